// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for the lock-order deadlock patch 12 fixes: collapse_file()
 * held folios of a range locked while it took mapping->invalidate_lock
 * (readahead of a hole, and the writer check), and truncation takes the two
 * in the other order.  Opening a file that has huge page cache for write
 * truncates that page cache (do_dentry_open()), so:
 *
 *  - a collapser maps a 16 MB text file and MADV_COLLAPSEs its 2 MB regions
 *    over and over;
 *  - a writer opens the file for write and closes it (": >>file") over and
 *    over, each time throwing the huge page cache away, so that the next
 *    collapse has holes to read;
 *  - an evictor drops the file's unmapped page cache (POSIX_FADV_DONTNEED)
 *    to make more holes.
 *
 * Before the fix this hung in the storm within minutes (hung-task reports
 * with khugepaged in page_cache_ra_unbounded() and the opener in
 * truncate_inode_pages_range()).  Pass: every task finishes in time,
 * collapses and truncating opens both happened, and afterwards the mapped
 * text, collapsed once more, equals the file byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define SECS 20
#define GRACE 60
#define REGION (2UL << 20)
#define FILE_DIR "/var/tmp/hugetext-truncrace"
#define FILE_PATH FILE_DIR "/text"

struct counts {
	long collapse_ok, collapse_err, opens, evicts;
};

static void collapser(struct counts *c, double end)
{
	size_t len, off;
	char *p = map_text_aligned(FILE_PATH, &len);

	if (p == MAP_FAILED)
		_exit(1);
	while (mono_now() < end)
		for (off = 0; off + REGION <= len; off += REGION) {
			if (madvise(p + off, REGION, MADV_COLLAPSE))
				__atomic_add_fetch(&c->collapse_err, 1, __ATOMIC_RELAXED);
			else
				__atomic_add_fetch(&c->collapse_ok, 1, __ATOMIC_RELAXED);
		}
	_exit(0);
}

static void writer(struct counts *c, double end)
{
	while (mono_now() < end) {
		int fd = open(FILE_PATH, O_WRONLY | O_APPEND);

		if (fd < 0)
			_exit(1);
		close(fd);
		__atomic_add_fetch(&c->opens, 1, __ATOMIC_RELAXED);
		usleep(2000);
	}
	_exit(0);
}

static void evictor(struct counts *c, double end)
{
	int fd = open(FILE_PATH, O_RDONLY);

	if (fd < 0)
		_exit(1);
	while (mono_now() < end) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		__atomic_add_fetch(&c->evicts, 1, __ATOMIC_RELAXED);
		usleep(5000);
	}
	_exit(0);
}

/* collapse once more and compare every byte of the mapping with the file */
static int verify(long *pmd_kb)
{
	size_t len, off;
	char *p = map_text_aligned(FILE_PATH, &len);
	long bad;

	if (p == MAP_FAILED)
		return -1;
	for (off = 0; off + REGION <= len; off += REGION)
		madvise(p + off, REGION, MADV_COLLAPSE);
	*pmd_kb = smaps_field(0, (unsigned long)p, (unsigned long)p + len,
			      "FilePmdMapped") / 1024;
	bad = mapping_diff_file(p, len, FILE_PATH);
	munmap(p, len);
	return bad;
}

int main(void)
{
	char src[512];
	struct counts *c;
	pid_t pids[3];
	double end, deadline;
	int i, status, hung = 0, failed = 0, bad;
	long pmd_kb = 0;

	ksft_print_header();
	if (!knob_exists("hugetext_enabled"))
		ksft_exit_skip("kernel without CONFIG_HUGETEXT\n");
	ksft_set_plan(3);
	knobs_save();
	if (knob_write("hugetext_enabled", "1"))
		ksft_exit_fail_msg("cannot set hugetext_enabled=1\n");
	if (knob_exists("khugepaged/max_nr_hugetext"))
		knob_write("khugepaged/max_nr_hugetext", "0");

	snprintf(src, sizeof(src), "%s/hugetext_bigtext", self_dir());
	mkdir(FILE_DIR, 0755);
	if (copy_file(src, FILE_PATH))
		ksft_exit_fail_msg("cannot copy %s to %s\n", src, FILE_PATH);
	sync();

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(c, 0, sizeof(*c));
	end = mono_now() + SECS;
	for (i = 0; i < 3; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (i == 0)
				collapser(c, end);
			else if (i == 1)
				writer(c, end);
			evictor(c, end);
		}
	}
	deadline = end + GRACE;
	for (i = 0; i < 3; i++) {
		pid_t r;

		while ((r = waitpid(pids[i], &status, WNOHANG)) == 0 && mono_now() < deadline)
			usleep(100000);
		if (r != pids[i]) {
			ksft_print_msg("task %d (%s) still running %d s after the end: hung?\n",
				       pids[i], i == 0 ? "collapser" : i == 1 ? "writer" : "evictor",
				       GRACE);
			hung++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failed++;
		}
	}
	ksft_print_msg("%ld collapses ok, %ld failed (file open for write or racing), %ld opens for write, %ld evictions\n",
		       c->collapse_ok, c->collapse_err, c->opens, c->evicts);
	ksft_test_result(!hung && !failed, "collapse vs open-for-write vs eviction for %d s: no task hung\n",
			 SECS);
	ksft_test_result(c->collapse_ok > 0 && c->opens > 0,
			 "both raced: collapses succeeded and opens for write truncated\n");
	if (hung)
		ksft_exit_fail_msg("not verifying content with tasks stuck\n");
	bad = verify(&pmd_kb);
	ksft_test_result(bad == 0 && pmd_kb > 0,
			 "afterwards the collapsed text (%ld kB PMD-mapped) equals the file (%d bad regions)\n",
			 pmd_kb, bad);
	unlink(FILE_PATH);
	ksft_finished();
}
