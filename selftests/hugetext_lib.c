// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library with 8M of text loaded by ld.so: with hugetext=1 its text
 * is placed congruent and PMD-mapped within 1 s of exec, on ext4 and on
 * overlayfs over ext4 (a filesystem without a get_unmapped_area hook of its
 * own); with hugetext=0 it gets no huge page.  ld.so's anonymous
 * reservation for a library aligned beyond the page size (arm64's, p_align
 * 64K; on x86-64 a copy of the library linked so) is placed on a 2M
 * boundary: the library's text is PMD-mapped.  The same placements for
 * memory that is not a library's -- the program's own reservations, thread
 * stacks, MAP_NORESERVE, readable mappings, a data file on overlayfs --
 * are the kselftest's (anon_placement, overlay_data_file): what stays here
 * needs programs and a library built for ld.so to load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define OVL "/var/tmp/hugetext-ovl"

static char out[8192];

static int run(const char *prog, const char *mode)
{
	char *argv[] = { (char *)prog, (char *)mode, "--timeout", "3000", "--no-touch", NULL };
	struct rusage ru;
	int rc = run_helper(argv, out, sizeof(out), &ru, false);

	print_indented(out);
	return rc;
}

static void test_lib(const char *fs, const char *dir, const char *name)
{
	char prog[600];
	long m0 = vmstat_read("hugetext_align_mmap"), ms;
	int rc;

	snprintf(prog, sizeof(prog), "%s/%s", dir, name);
	knob_write(KNOB_ENABLED, "1");
	drop_caches();
	rc = run(prog, "huge");
	ms = parse_after(out, "all PMD-mapped ");
	ksft_test_result(rc == 0 && ms >= 0 && ms <= 1000,
			 "%s: DSO text congruent and PMD-mapped %ld ms after exec (limit 1000)\n",
			 fs, ms);
	if (strcmp(fs, "ext4"))
		ksft_test_result(vmstat_read("hugetext_align_mmap") > m0,
				 "%s: placement counted in hugetext_align_mmap\n", fs);
	knob_write(KNOB_ENABLED, "0");
	drop_caches();
	rc = run(prog, "none");
	ksft_test_result(rc == 0, "%s: hugetext=0: no PMD-mapped DSO text\n", fs);
}

static int setup_overlay(const char *src)
{
	char path[700];

	mkdir(OVL, 0755);
	mkdir(OVL "/lower", 0755);
	mkdir(OVL "/upper", 0755);
	mkdir(OVL "/work", 0755);
	mkdir(OVL "/merged", 0755);
	snprintf(path, sizeof(path), "%s/hugetext_biglib", src);
	if (copy_file(path, OVL "/lower/hugetext_biglib"))
		return -1;
	snprintf(path, sizeof(path), "%s/libhugetext_big.so", src);
	if (copy_file(path, OVL "/lower/libhugetext_big.so"))
		return -1;
	return mount("overlay", OVL "/merged", "overlay", 0,
		     "lowerdir=" OVL "/lower,upperdir=" OVL "/upper,workdir=" OVL "/work");
}

int main(void)
{
	char dir[512];

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	snprintf(dir, sizeof(dir), "%s", self_dir());
	ksft_set_plan(8);
	knobs_save();
	knob_write("enabled", "madvise");
	khugepaged_defaults();

	test_lib("ext4", dir, "hugetext_biglib");
	/* ld.so's anonymous reservation, then the file MAP_FIXED inside */
	test_lib("ext4, the library linked for 64K pages", dir, "hugetext_biglib64k");
	if (setup_overlay(dir)) {
		ksft_print_msg("overlayfs: %s\n", strerror(errno));
		ksft_test_result_fail("overlayfs: cannot mount overlay over ext4\n");
		ksft_test_result_skip("overlayfs: not mounted\n");
		ksft_test_result_skip("overlayfs: not mounted\n");
	} else {
		test_lib("overlayfs", OVL "/merged", "hugetext_biglib");
		umount(OVL "/merged");
	}
	knobs_restore();
	ksft_finished();
}
