// SPDX-License-Identifier: GPL-2.0
/*
 * A shared library with 8M of text loaded by ld.so: with hugetext=1 its text
 * is placed congruent and PMD-mapped within 1 s of exec, on ext4 and on
 * overlayfs over ext4 (a filesystem without a get_unmapped_area hook of its
 * own); with hugetext=0 on overlayfs it gets no huge page.  A data file
 * (not ELF) on overlayfs is placed as without hugetext: no 2M alignment, no
 * address space spent on it.  ld.so's anonymous reservation for a library
 * aligned beyond the page size (arm64's, p_align 64K; on x86-64 a copy of
 * the library linked so) is placed on a 2M boundary: the library's text
 * is PMD-mapped.  The same reservation made by the program itself (a Go
 * or V8 heap's, 8M+64K and 64M), thread stacks, MAP_NORESERVE and
 * readable mappings are placed as without hugetext.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/*
 * hugetext=1: map a 6M+4K data file on overlayfs 16 times; placed as
 * without hugetext, successive mappings sit 6M+4K apart, so at most one or
 * two can be 2M-aligned by chance; aligned for hugetext, all would be.
 */
static void test_data_file(void)
{
	const size_t len = (6UL << 20) + 4096;
	long m0 = vmstat_read("hugetext_align_mmap");
	void *maps[16];
	int fd, i, aligned = 0, n = 0;
	char *buf;

	knob_write(KNOB_ENABLED, "1");
	fd = open(OVL "/merged/data.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = calloc(1, len);
	if (fd < 0 || !buf || write(fd, buf, len) != (ssize_t)len) {
		ksft_test_result_fail("overlayfs: cannot write a data file: %s\n", strerror(errno));
		free(buf);
		return;
	}
	free(buf);
	close(fd);
	fd = open(OVL "/merged/data.bin", O_RDONLY);
	for (i = 0; i < 16; i++) {
		maps[i] = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (maps[i] == MAP_FAILED)
			continue;
		n++;
		aligned += !((unsigned long)maps[i] & ((2UL << 20) - 1));
	}
	for (i = 0; i < 16; i++)
		if (maps[i] != MAP_FAILED)
			munmap(maps[i], len);
	close(fd);
	unlink(OVL "/merged/data.bin");
	ksft_test_result(n == 16 && aligned <= 2 && vmstat_read("hugetext_align_mmap") == m0,
			 "overlayfs: a data file is not 2M-aligned for hugetext (%d of %d mappings aligned, hugetext_align_mmap +%ld)\n",
			 aligned, n, vmstat_read("hugetext_align_mmap") - m0);
}

/*
 * ld.so's reservation for a library aligned beyond the page size (every
 * arm64 library: p_align 64K): an anonymous PROT_NONE mapping of its span
 * plus p_align, into which the file is mapped MAP_FIXED.  Map 16 such
 * reservations of 8M+64K in a row: placed on a 2M boundary for hugetext,
 * all 16 are aligned; placed as before, successive ones sit 8M+64K apart
 * and at most one or two can be aligned by chance.
 */
static int reservations_aligned(size_t len, int prot, int flags, long *counted)
{
	long m0 = vmstat_read("hugetext_align_mmap");
	void *maps[16], *gaps[16];
	int i, aligned = 0;

	for (i = 0; i < 16; i++) {
		maps[i] = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
		/* a page between: a 64M reservation would keep its neighbour's alignment */
		gaps[i] = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (maps[i] == MAP_FAILED || gaps[i] == MAP_FAILED)
			return -1;
		aligned += !((unsigned long)maps[i] & ((2UL << 20) - 1));
	}
	*counted = vmstat_read("hugetext_align_mmap") - m0;
	for (i = 0; i < 16; i++) {
		munmap(maps[i], len);
		munmap(gaps[i], 4096);
	}
	return aligned;
}

static void test_reservation(void)
{
	static const struct {
		const char *mode, *what;
		size_t len;
		int prot, flags;
	} cases[] = {
		{ "1", "8M+64K PROT_NONE reservation of the program's own (not ld.so's)",
		  (8UL << 20) + (64UL << 10), PROT_NONE, 0 },
		{ "1", "64M PROT_NONE reservation of the program's own (a Go or V8 heap's)",
		  64UL << 20, PROT_NONE, 0 },
		{ "0", "hugetext=0: 8M+64K PROT_NONE reservation",
		  (8UL << 20) + (64UL << 10), PROT_NONE, 0 },
		{ "1", "8M+64K thread stack (MAP_STACK)",
		  (8UL << 20) + (64UL << 10), PROT_NONE, MAP_STACK },
		{ "1", "8M+64K MAP_NORESERVE reservation",
		  (8UL << 20) + (64UL << 10), PROT_NONE, MAP_NORESERVE },
		{ "1", "8M+64K readable anonymous mapping",
		  (8UL << 20) + (64UL << 10), PROT_READ, 0 },
	};
	unsigned int i;
	long counted = 0;
	int n, base;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/*
		 * Without hugetext: at most one or two of 16 on a 2M boundary
		 * by chance; a length that is a multiple of 2M (64M) on one
		 * always (THP's own placement of large anonymous mappings)
		 */
		knob_write(KNOB_ENABLED, "0");
		base = reservations_aligned(cases[i].len, cases[i].prot,
					    cases[i].flags, &counted);
		knob_write(KNOB_ENABLED, cases[i].mode);
		n = reservations_aligned(cases[i].len, cases[i].prot,
					 cases[i].flags, &counted);
		ksft_test_result(n >= 0 && counted == 0 &&
				 (n == base || (n <= 2 && base <= 2)),
				 "anonymous %s: placed as without hugetext (%d of 16 aligned, %d with hugetext=0; hugetext_align_mmap +%ld)\n",
				 cases[i].what, n, base, counted);
	}
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
	ksft_set_plan(15);
	knobs_save();
	knob_write("enabled", "madvise");
	khugepaged_defaults();

	test_lib("ext4", dir, "hugetext_biglib");
	/* ld.so's anonymous reservation, then the file MAP_FIXED inside */
	test_lib("ext4, the library linked for 64K pages", dir, "hugetext_biglib64k");
	test_reservation();
	if (setup_overlay(dir)) {
		ksft_print_msg("overlayfs: %s\n", strerror(errno));
		ksft_test_result_fail("overlayfs: cannot mount overlay over ext4\n");
		ksft_test_result_skip("overlayfs: not mounted\n");
		ksft_test_result_skip("overlayfs: not mounted\n");
		ksft_test_result_skip("overlayfs: not mounted\n");
	} else {
		test_lib("overlayfs", OVL "/merged", "hugetext_biglib");
		test_data_file();
		umount(OVL "/merged");
	}
	knobs_restore();
	ksft_finished();
}
