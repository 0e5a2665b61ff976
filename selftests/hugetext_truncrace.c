// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for the lock-order deadlock patch 1 fixes: collapse_file()
 * held folios of a range locked while it took mapping->invalidate_lock
 * (readahead of a hole, and the writer check), and truncation takes the two
 * in the other order.  Opening a file that has huge page cache for write
 * truncates that page cache (do_dentry_open()), so:
 *
 *  - a collapser maps a 16 MB text file and MADV_COLLAPSEs its 2 MB regions
 *    over and over;
 *  - a writer opens the file for write and closes it (": >>file") over and
 *    over, each time throwing the huge page cache away, so that the next
 *    collapse has holes to read; and in turn punches a hole of two regions
 *    into the file (fallocate(PUNCH_HOLE), which takes invalidate_lock and
 *    then the range's folio locks, as truncation does) and writes the bytes
 *    back: on Linux 7.3, where opening for write no longer truncates (no
 *    READ_ONLY_THP_FOR_FS), the hole punch is what meets the collapse;
 *  - an evictor drops the file's unmapped page cache (POSIX_FADV_DONTNEED)
 *    to make more holes.
 *
 * Before the fix this hung in the storm within minutes (hung-task reports
 * with khugepaged in page_cache_ra_unbounded() and the opener in
 * truncate_inode_pages_range()).  Pass: every task finishes in time,
 * collapses and truncating opens both happened, and afterwards the mapped
 * text, collapsed once more, equals the file byte for byte.
 *
 * Then the error codes: with no writer, a collapser that drops each region
 * it collapsed (mapping and huge page cache) races only the evictor, which
 * empties the range between the collapse's read of its holes and its
 * locking of the folios, or takes the new huge folio before MADV_COLLAPSE
 * maps it.  Such a race is transient: MADV_COLLAPSE must say EAGAIN (try
 * again), never EINVAL, which tells a caller the range cannot be
 * collapsed.  Measured on 2 vCPUs before the series' first two patches
 * had it so: x86-64 6.12 786 EAGAIN to 37 EINVAL, 7.3 428 to 67, arm64
 * 6.12 226 to 559 (on arm64 every EINVAL was SCAN_PAGE_NULL: the
 * evictor had taken the huge folio before MADV_COLLAPSE could map it);
 * with them 732 to 0 (x86-64 and arm64 6.12), 424 to 0 (7.3).  The test
 * asks for at least one EAGAIN (the race was run) and no EINVAL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
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
#define SECS2 15
#define GRACE 60
#define REGION (2UL << 20)
#define FILE_DIR "/var/tmp/hugetext-truncrace"
#define FILE_PATH FILE_DIR "/text"

enum { E_AGAIN, E_INVAL, E_NOMEM, E_BUSY, E_OTHER, E_NR };
static const char * const err_names[E_NR] = {
	"EAGAIN", "EINVAL", "ENOMEM", "EBUSY", "other"
};

struct counts {
	long collapse_ok, collapse_err, opens, punches, evicts;
	long errs[E_NR];
};

static void count_err(struct counts *c, int err)
{
	int i = err == EAGAIN ? E_AGAIN : err == EINVAL ? E_INVAL :
		err == ENOMEM ? E_NOMEM : err == EBUSY ? E_BUSY : E_OTHER;

	__atomic_add_fetch(&c->collapse_err, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->errs[i], 1, __ATOMIC_RELAXED);
}

static void print_errs(const char *what, struct counts *c)
{
	char buf[160];
	int i, n = 0;

	for (i = 0; i < E_NR; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%ld %s", i ? ", " : "",
			      c->errs[i], err_names[i]);
	ksft_print_msg("%s: %ld collapses ok, %ld failed: %s\n", what, c->collapse_ok,
		       c->collapse_err, buf);
}

/*
 * @unmap: drop each collapsed region's mapping and its huge page cache, so
 * that the next collapse of it reads holes again, which the evictor races
 */
static void collapser(struct counts *c, double end, bool unmap)
{
	size_t len, off;
	char *p = map_text_aligned(FILE_PATH, &len);
	int fd = open(FILE_PATH, O_RDONLY);

	if (p == MAP_FAILED || fd < 0)
		_exit(1);
	while (mono_now() < end)
		for (off = 0; off + REGION <= len; off += REGION) {
			if (madvise(p + off, REGION, MADV_COLLAPSE)) {
				count_err(c, errno);
				continue;
			}
			__atomic_add_fetch(&c->collapse_ok, 1, __ATOMIC_RELAXED);
			if (unmap && (madvise(p + off, REGION, MADV_DONTNEED) ||
				      posix_fadvise(fd, off, REGION, POSIX_FADV_DONTNEED)))
				_exit(1);
		}
	_exit(0);
}

/* the whole of @path in a malloc()ed buffer, its size in *@len; NULL on error */
static char *read_file_all(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY);

	if (fd >= 0 && !fstat(fd, &st) && (buf = malloc(st.st_size)) &&
	    pread(fd, buf, st.st_size, 0) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	*len = buf ? st.st_size : 0;
	return buf;
}

/*
 * How long the writer keeps the file closed after its cycle @n: 2 to 30 ms.
 * On 6.12 a file open for write refuses every collapse (EINVAL), and the
 * rewrite and fdatasync hold it open for most of a cycle: with 2 ms gaps
 * all of 6.4 million collapses failed in one run of 20 s on 2 vCPUs, so
 * the test raced nothing.  Gaps of varied length leave the collapser
 * windows both shorter and longer than one collapse.
 */
static unsigned int closed_us(size_t n)
{
	return 2000 + (n % 8) * 4000;
}

/*
 * Open for write and close (truncates the huge page cache on 6.12), then
 * punch a hole of two regions at a region boundary and write the file's
 * bytes back (truncates the page cache of that range on every kernel).
 */
static void writer(struct counts *c, double end)
{
	size_t len, off, n = 0;
	char *orig = read_file_all(FILE_PATH, &len);

	if (!orig || len < 2 * REGION)
		_exit(1);
	while (mono_now() < end) {
		int fd = open(FILE_PATH, O_WRONLY | O_APPEND);

		if (fd < 0)
			_exit(1);
		close(fd);
		__atomic_add_fetch(&c->opens, 1, __ATOMIC_RELAXED);
		usleep(closed_us(n));

		fd = open(FILE_PATH, O_WRONLY);
		if (fd < 0)
			_exit(1);
		off = (n++ % (len / REGION - 1)) * REGION;
		if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
			       2 * REGION)) {
			/* written back at once: a collapse skips dirty folios */
			if (pwrite(fd, orig + off, 2 * REGION, off) != (ssize_t)(2 * REGION) ||
			    fdatasync(fd))
				_exit(1);
			__atomic_add_fetch(&c->punches, 1, __ATOMIC_RELAXED);
		} else if (errno != EOPNOTSUPP) {
			_exit(1);
		}
		close(fd);
		usleep(closed_us(n));
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

/*
 * Run the collapser and the evictor (and the writer, if @writer) for @secs;
 * returns how many tasks hung, and counts the ones that failed in @failed.
 */
static int storm(struct counts *c, int secs, bool writer_too, int *failed)
{
	static const char * const names[] = { "collapser", "evictor", "writer" };
	int i, n = writer_too ? 3 : 2, status, hung = 0;
	double end = mono_now() + secs, deadline = end + GRACE;
	pid_t pids[3];

	memset(c, 0, sizeof(*c));
	*failed = 0;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (i == 0)
				collapser(c, end, !writer_too);
			else if (i == 1)
				evictor(c, end);
			writer(c, end);
		}
	}
	for (i = 0; i < n; i++) {
		pid_t r;

		while ((r = waitpid(pids[i], &status, WNOHANG)) == 0 && mono_now() < deadline)
			usleep(100000);
		if (r != pids[i]) {
			ksft_print_msg("task %d (%s) still running %d s after the end: hung?\n",
				       pids[i], names[i], GRACE);
			hung++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			(*failed)++;
		}
	}
	return hung;
}

int main(void)
{
	char src[512];
	struct counts *c;
	int hung, failed, bad;
	long pmd_kb = 0;

	ksft_print_header();
	ksft_set_plan(5);
	knobs_save();
	/*
	 * The race is upstream's (MADV_COLLAPSE against truncation): without
	 * hugetext (a stock kernel, CONFIG_HUGETEXT=n) it runs all the same;
	 * with it, hugetext's own collapses join in.
	 */
	if (knob_exists(KNOB_ENABLED) && knob_write(KNOB_ENABLED, "1"))
		ksft_exit_fail_msg("cannot set hugetext_enabled=1\n");
	if (!knob_exists(KNOB_ENABLED))
		ksft_print_msg("no hugetext in this kernel: MADV_COLLAPSE alone\n");
	if (knob_exists(KNOB_MAX_NR_HUGETEXT))
		knob_write(KNOB_MAX_NR_HUGETEXT, "0");

	snprintf(src, sizeof(src), "%s/hugetext_bigtext", self_dir());
	mkdir(FILE_DIR, 0755);
	if (copy_file(src, FILE_PATH))
		ksft_exit_fail_msg("cannot copy %s to %s\n", src, FILE_PATH);
	sync();

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	hung = storm(c, SECS, true, &failed);
	print_errs("with the writer", c);
	ksft_print_msg("%ld opens for write, %ld hole punches (rewritten), %ld evictions\n",
		       c->opens, c->punches, c->evicts);
	ksft_test_result(!hung && !failed,
			 "collapse vs open-for-write and hole punch vs eviction for %d s: no task hung\n",
			 SECS);
	ksft_test_result(c->collapse_ok > 0 && c->opens > 0 && c->punches > 0,
			 "all raced: collapses succeeded, opens for write and hole punches truncated\n");
	if (hung)
		ksft_exit_fail_msg("not verifying content with tasks stuck\n");
	bad = verify(&pmd_kb);
	ksft_test_result(bad == 0 && pmd_kb > 0,
			 "afterwards the collapsed text (%ld kB PMD-mapped) equals the file (%d bad regions)\n",
			 pmd_kb, bad);

	hung = storm(c, SECS2, false, &failed);
	print_errs("eviction only", c);
	ksft_print_msg("%ld evictions\n", c->evicts);
	ksft_test_result(!hung && !failed && c->collapse_ok > 0,
			 "collapse (unmapping what it collapsed) vs eviction for %d s: no task hung, %ld collapses\n",
			 SECS2, c->collapse_ok);
	ksft_test_result(c->errs[E_AGAIN] > 0 && c->errs[E_INVAL] == 0 &&
			 c->errs[E_OTHER] == 0,
			 "a collapse losing a race with eviction says EAGAIN, never EINVAL (%ld EAGAIN, %ld EINVAL)\n",
			 c->errs[E_AGAIN], c->errs[E_INVAL]);
	unlink(FILE_PATH);
	ksft_finished();
}
