// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: MADV_COLLAPSE of file text raced, and huge page cache opened
 * for write.  The two collapse_file() fixes the series applies on, raced
 * as they were found (fixture collapse); MADV_COLLAPSE of a region alone
 * in a 1G span with and without its page table (collapse_table_present,
 * collapse_table_absent); opens for write at once against huge page
 * cache, every write kept (fixture dirty_open).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/*
 * The two collapse_file() fixes at the base of this series, raced the
 * way they were found.  A file of STORM_REGIONS full regions of functions
 * is mapped PROT_READ | PROT_EXEC and collapsed region by region with
 * MADV_COLLAPSE by one process, while others, for a few seconds:
 *
 *  - vs_punch: open the file for write and close it (on kernels with
 *    READ_ONLY_THP_FOR_FS that truncates its huge page cache), punch a hole
 *    of two regions and write its bytes back (hole punching takes
 *    invalidate_lock, then the folio locks, as truncation does), and evict
 *    the file's page cache: collapse_file() used to read a hole of its
 *    range with the range's earlier folios locked, and readahead takes
 *    invalidate_lock -- an ABBA deadlock (2 runs of 2 hung in 20 s on
 *    7.3.4, 2 vCPUs).  Every task must finish, and the text, collapsed once
 *    more, runs the file's code: each function returns its page number.
 *  - vs_evict: the collapser drops each region it collapsed, so that the
 *    next collapse reads holes again, and an evictor empties the range
 *    between the collapse and its mapping of the new folio: MADV_COLLAPSE
 *    used to say EINVAL (cannot be collapsed) of a range it had just
 *    collapsed; a lost race is EAGAIN.  At least one EAGAIN (the race ran)
 *    and no EINVAL (428 EAGAIN to 67 EINVAL in 15 s before the fix).
 *
 * Neither needs hugetext: on a kernel without it they test MADV_COLLAPSE.
 */
#define STORM_REGIONS	8
#define STORM_GRACE	30

struct storm {
	long collapsed, eagain, einval, other, opens, punches, evicts;
};

/* the file, and the counters its storm's tasks share */
struct storm_file {
	size_t pmdsize, len;
	char path[64];
	struct storm *c;
};

FIXTURE(collapse)
{
	struct thp_settings settings;
	long cap_saved;
	struct storm_file f;
};

FIXTURE_SETUP(collapse)
{
	unsigned char page[4096];

	self->f.c = MAP_FAILED;
	self->f.path[0] = 0;
	if (!emit_fn(page, 0))
		SKIP(return, "no code generator for this architecture\n");
	SKIP_UNLESS_ROOT(return);
	if (getpagesize() != sizeof(page))
		SKIP(return, "page size %d: the functions are laid out for 4K\n",
		     getpagesize());
	self->f.pmdsize = read_pmd_pagesize();
	if (!self->f.pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	self->f.len = STORM_REGIONS * self->f.pmdsize;
	snprintf(self->f.path, sizeof(self->f.path), "hugetext-storm.%d", getpid());
	ASSERT_EQ(write_functions(self->f.path, self->f.len), 0);
	self->f.c = mmap(NULL, sizeof(*self->f.c), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->f.c, MAP_FAILED);

	/* MADV_COLLAPSE under THP "madvise", khugepaged out of the way */
	thp_save_settings();
	thp_read_settings(&self->settings);
	self->settings.thp_enabled = THP_MADVISE;
	self->settings.hugepages[sz2ord(self->f.pmdsize, getpagesize())].enabled = THP_INHERIT;
	self->settings.khugepaged.scan_sleep_millisecs = 600000;
	self->settings.khugepaged.alloc_sleep_millisecs = 600000;
	thp_write_settings(&self->settings);
	/* a cap would refuse collapses (EBUSY) */
	self->cap_saved = access(CAP_KNOB, F_OK) ? -1 : (long)read_num(CAP_KNOB);
	if (self->cap_saved > 0)
		ASSERT_EQ(path_write(CAP_KNOB, "0"), 0);
}

FIXTURE_TEARDOWN(collapse)
{
	if (self->cap_saved > 0)
		path_write_num(CAP_KNOB, self->cap_saved);
	thp_restore_settings();
	if (self->f.c != MAP_FAILED)
		munmap(self->f.c, sizeof(*self->f.c));
	if (self->f.path[0])
		unlink(self->f.path);
}

/* @path mapped PROT_READ | PROT_EXEC at a PMD boundary, or MAP_FAILED */
static char *storm_map(const char *path, size_t len, size_t pmdsize)
{
	char *area, *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return MAP_FAILED;
	area = mmap(NULL, len + pmdsize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		close(fd);
		return MAP_FAILED;
	}
	p = (char *)(((unsigned long)area + pmdsize - 1) & ~(pmdsize - 1));
	p = mmap(p, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0);
	close(fd);
	return p;
}

/* @unmap: drop each collapsed region (mapping and page cache) at once */
static void storm_collapser(struct storm_file *f, double end, bool unmap)
{
	char *p = storm_map(f->path, f->len, f->pmdsize);
	int fd = open(f->path, O_RDONLY);
	size_t off;

	if (p == MAP_FAILED || fd < 0)
		_exit(1);
	while (storm_now() < end) {
		for (off = 0; off < f->len; off += f->pmdsize) {
			long *n = &f->c->collapsed;

			if (madvise(p + off, f->pmdsize, MADV_COLLAPSE))
				n = errno == EAGAIN ? &f->c->eagain :
				    errno == EINVAL ? &f->c->einval : &f->c->other;
			__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
			if (n == &f->c->collapsed && unmap &&
			    (madvise(p + off, f->pmdsize, MADV_DONTNEED) ||
			     posix_fadvise(fd, off, f->pmdsize, POSIX_FADV_DONTNEED)))
				_exit(1);
		}
	}
	_exit(0);
}

static void storm_evictor(struct storm_file *f, double end)
{
	int fd = open(f->path, O_RDONLY);

	if (fd < 0)
		_exit(1);
	while (storm_now() < end) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		__atomic_add_fetch(&f->c->evicts, 1, __ATOMIC_RELAXED);
		usleep(5000);
	}
	_exit(0);
}

/* open for write and close; punch two regions and write them back */
static void storm_writer(struct storm_file *f, double end)
{
	size_t off, n = 0, pmd = f->pmdsize;
	char *orig = malloc(f->len);
	int fd = open(f->path, O_RDONLY);

	if (!orig || fd < 0 || pread(fd, orig, f->len, 0) != (ssize_t)f->len)
		_exit(1);
	close(fd);
	while (storm_now() < end) {
		fd = open(f->path, O_WRONLY | O_APPEND);
		if (fd < 0)
			_exit(1);
		close(fd);
		__atomic_add_fetch(&f->c->opens, 1, __ATOMIC_RELAXED);
		/* closed 2 to 30 ms: windows shorter and longer than a collapse */
		usleep(2000 + (n % 8) * 4000);
		fd = open(f->path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		off = (n++ % (STORM_REGIONS - 1)) * pmd;
		if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, 2 * pmd)) {
			/* written back at once: a collapse skips dirty folios */
			if (pwrite(fd, orig + off, 2 * pmd, off) != (ssize_t)(2 * pmd) ||
			    fdatasync(fd))
				_exit(1);
			__atomic_add_fetch(&f->c->punches, 1, __ATOMIC_RELAXED);
		} else if (errno != EOPNOTSUPP) {
			_exit(1);
		}
		close(fd);
		usleep(2000 + (n % 8) * 4000);
	}
	_exit(0);
}

/*
 * Run the collapser, the evictor and, if @writer, the writer for @secs;
 * the number of tasks still running STORM_GRACE s after the end (hung),
 * those that failed in *@failed.
 */
static int storm_run(struct storm_file *f, int secs, bool writer, int *failed)
{
	int i, n = writer ? 3 : 2, hung = 0, status;
	double end = storm_now() + secs;
	pid_t pids[3], r;

	memset(f->c, 0, sizeof(*f->c));
	*failed = 0;
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (pids[i])
			continue;
		if (i == 0)
			storm_collapser(f, end, !writer);
		else if (i == 1)
			storm_evictor(f, end);
		storm_writer(f, end);
	}
	for (i = 0; i < n; i++) {
		while ((r = waitpid(pids[i], &status, WNOHANG)) == 0 &&
		       storm_now() < end + STORM_GRACE)
			usleep(100000);
		if (r != pids[i]) {
			ksft_print_msg("task %d of %d still running %d s after the storm: hung\n",
				       i + 1, n, STORM_GRACE);
			hung++;
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			(*failed)++;
		}
	}
	ksft_print_msg("%d s: %ld collapsed, %ld EAGAIN, %ld EINVAL, %ld other errors\n",
		       secs, f->c->collapsed, f->c->eagain, f->c->einval, f->c->other);
	ksft_print_msg("%ld opens for write, %ld hole punches, %ld evictions\n",
		       f->c->opens, f->c->punches, f->c->evicts);
	return hung;
}

TEST_F_TIMEOUT(collapse, vs_punch, 90)
{
	int failed, r, tries;
	char *p;

	ASSERT_EQ(storm_run(&self->f, 10, true, &failed), 0);
	EXPECT_EQ(failed, 0);
	EXPECT_GT(self->f.c->collapsed, 0);
	EXPECT_GT(self->f.c->opens, 0);
	EXPECT_GT(self->f.c->punches, 0);
	/* afterwards: every region collapses, and runs the file's code */
	p = storm_map(self->f.path, self->f.len, self->f.pmdsize);
	ASSERT_NE(p, MAP_FAILED);
	for (r = 0; r < STORM_REGIONS; r++)
		for (tries = 0; tries < 10; tries++)
			if (!madvise(p + r * self->f.pmdsize, self->f.pmdsize, MADV_COLLAPSE) ||
			    errno != EAGAIN)
				break;
	EXPECT_TRUE(check_huge_file(p, self->f.len, STORM_REGIONS, self->f.pmdsize));
	EXPECT_GE(run_range(p, 0, self->f.len), 0);
	munmap(p, self->f.len);
}

TEST_F_TIMEOUT(collapse, vs_evict, 60)
{
	int failed;

	ASSERT_EQ(storm_run(&self->f, 8, false, &failed), 0);
	EXPECT_EQ(failed, 0);
	EXPECT_GT(self->f.c->collapsed, 0);
	EXPECT_GT(self->f.c->eagain, 0);
	EXPECT_EQ(self->f.c->einval, 0);
	EXPECT_EQ(self->f.c->other, 0);
}

/*
 * A @span-aligned address with no mapping in [it - @span, it + 2 * @span),
 * at or above @from and below 2^47 (every arch's user space here); 0 if
 * none.  A page table is allocated only for a mapping's faults, so a span
 * no mapping ever touched has none.
 */
static unsigned long free_span(unsigned long from, unsigned long span)
{
	unsigned long prev_end = 0, s, e, a = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		a = MAX((prev_end + 2 * span - 1) & ~(span - 1),
			(from + span - 1) & ~(span - 1));
		if (a >= prev_end + span && a + 2 * span <= s &&
		    a + 2 * span <= (1UL << 47))
			break;
		prev_end = e;
		a = 0;
	}
	fclose(f);
	return a;
}

/*
 * MADV_COLLAPSE of a file region mapped PROT_READ | PROT_EXEC alone in a
 * span of the address space one table of PMD entries maps (1G with 4K
 * pages), its page cache read first: the call returns 0 and the region is
 * PMD-mapped before it is touched, then runs the file's code.  With
 * @table, a page of the span was faulted first, so the table exists;
 * without, nothing in the span ever faulted.  6.12 needed a fix for the
 * latter (collapse_pte_mapped_thp() found no PMD: SCAN_PMD_NULL, EINVAL
 * although the collapse had succeeded), which a PIE placed congruent in a
 * fresh span meets; mainline allocates the missing levels.  The process's
 * own hugetext is off, so only MADV_COLLAPSE maps.
 */
static void collapse_in_span(struct __test_metadata *_metadata, bool table)
{
	size_t pmdsize = read_pmd_pagesize();
	unsigned long span = pmdsize * (getpagesize() / sizeof(void *)), a;
	char path[64], *buf, *p, *anon = NULL;
	int fd;

	if (!pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	prctl(PR_SET_HT, PR_HT_SET, 0, 0, 0);
	snprintf(path, sizeof(path), "hugetext-span.%d", getpid());
	ASSERT_EQ(write_functions(path, pmdsize), 0);
	fd = open(path, O_RDONLY);
	unlink(path);
	ASSERT_GE(fd, 0);
	buf = malloc(pmdsize);
	ASSERT_NE(buf, NULL);
	ASSERT_EQ(pread(fd, buf, pmdsize, 0), (ssize_t)pmdsize);
	free(buf);
	a = free_span(1UL << 32, span);
	ASSERT_NE(a, 0);
	if (table) {
		anon = mmap((char *)a + span / 2, getpagesize(),
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			    -1, 0);
		ASSERT_EQ(anon, (char *)a + span / 2);
		*anon = 1;
	}
	p = mmap((char *)a, pmdsize, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	ASSERT_EQ(p, (char *)a);
	EXPECT_EQ(collapse_retry(p, pmdsize), 0);
	EXPECT_TRUE(check_huge_file(p, pmdsize, 1, pmdsize));
	EXPECT_GE(run_range(p, 0, pmdsize), 0);
	munmap(p, pmdsize);
	if (anon)
		munmap(anon, getpagesize());
}

TEST(collapse_table_present)
{
	collapse_in_span(_metadata, true);
}

TEST(collapse_table_absent)
{
	collapse_in_span(_metadata, false);
}

/*
 * Opens for write of a file whose page cache holds a huge folio.  A kernel
 * may empty such a file's page cache at the open (read-only huge page
 * cache, CONFIG_READ_ONLY_THP_FOR_FS): that must cost no one's data.  Two
 * opens at once both see the huge folio; if the second empties the cache
 * after the first one's write() dirtied a page, that write is lost.  Made
 * wide: a file of 16 PMD regions is cached in small folios but for its
 * last region, collapsed (PROT_READ | PROT_EXEC, MADV_COLLAPSE); eight
 * threads open it for write at once, each writes a new version of its own
 * page just before that region and closes.  Every round all eight pages
 * must read back their new versions; after fsync and drop_caches the disk
 * must hold them; and a write into the collapsed region after an open for
 * write must read back alike through read(), the mapping and a new
 * mapping.  Periodic writeback is off (dirty_writeback_centisecs 0) for
 * the test and restored.
 */
#define DO_ROUNDS 20
#define DO_OPENERS 8
#define DO_REGIONS 16
#define WB_KNOB "/proc/sys/vm/dirty_writeback_centisecs"

/* the file, its size, and room to map its last region at a PMD boundary */
struct dirty_file {
	char wb_saved[32], path[64];
	size_t pmdsize, size;
	char *reserve;
};

FIXTURE(dirty_open)
{
	struct dirty_file f;
};

/* page @k of the file, version @v: every 8-byte word says (k, v) */
static void dirty_fill(unsigned char *page, unsigned long k, unsigned long v)
{
	uint64_t w = (uint64_t)k << 32 | v;
	size_t i;

	for (i = 0; i < 4096; i += sizeof(w))
		memcpy(page + i, &w, sizeof(w));
}

/* open @path for write, write version @v of page @k, close: 0 or errno */
static int dirty_write(const char *path, unsigned long k, unsigned long v)
{
	unsigned char page[4096];
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return errno;
	dirty_fill(page, k, v);
	if (pwrite(fd, page, sizeof(page), k * sizeof(page)) != sizeof(page))
		ret = errno ? errno : EIO;
	if (close(fd) && !ret)
		ret = errno;
	return ret;
}

/* the version page @k of @path holds (read()), -1 if not a whole version */
static long dirty_version(const char *path, unsigned long k)
{
	unsigned char page[4096], want[4096];
	int fd = open(path, O_RDONLY);
	uint64_t w;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, page, sizeof(page), k * sizeof(page));
	close(fd);
	if (n != sizeof(page))
		return -1;
	memcpy(&w, page, sizeof(w));
	dirty_fill(want, k, (uint32_t)w);
	return w >> 32 == k && !memcmp(page, want, sizeof(page)) ? (long)(uint32_t)w : -1;
}

FIXTURE_SETUP(dirty_open)
{
	unsigned char page[4096];
	unsigned long k;
	int fd;

	self->f.wb_saved[0] = '\0';
	self->f.path[0] = '\0';
	self->f.reserve = MAP_FAILED;
	if (getpagesize() != sizeof(page))
		SKIP(return, "page size %d: the file is laid out for 4K\n", getpagesize());
	if (geteuid())
		SKIP(return, "not root: %s is root's to write\n", WB_KNOB);
	self->f.pmdsize = read_pmd_pagesize();
	if (!self->f.pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	fd = open(WB_KNOB, O_RDONLY);
	if (fd < 0)
		SKIP(return, "no %s\n", WB_KNOB);
	k = read(fd, self->f.wb_saved, sizeof(self->f.wb_saved) - 1);
	close(fd);
	ASSERT_GT((long)k, 0);
	self->f.wb_saved[k] = '\0';
	ASSERT_EQ(path_write(WB_KNOB, "0"), 0);

	self->f.size = DO_REGIONS * self->f.pmdsize;
	snprintf(self->f.path, sizeof(self->f.path), "hugetext-dirty.%d", getpid());
	fd = open(self->f.path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	for (k = 0; k < self->f.size / sizeof(page); k++) {
		dirty_fill(page, k, 0);
		ASSERT_EQ(write(fd, page, sizeof(page)), sizeof(page));
	}
	ASSERT_EQ(fsync(fd), 0);
	close(fd);
	/* room for the last region at a PMD boundary */
	self->f.reserve = mmap(NULL, 2 * self->f.pmdsize, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->f.reserve, MAP_FAILED);
}

FIXTURE_TEARDOWN(dirty_open)
{
	if (self->f.wb_saved[0])
		path_write(WB_KNOB, self->f.wb_saved);
	if (self->f.reserve != MAP_FAILED)
		munmap(self->f.reserve, 2 * self->f.pmdsize);
	if (self->f.path[0])
		unlink(self->f.path);
}

/* the file's last region, PROT_READ | PROT_EXEC, at a PMD boundary */
static char *dirty_map_last(struct dirty_file *self)
{
	unsigned long base = ((unsigned long)self->reserve + self->pmdsize - 1) &
			     ~(self->pmdsize - 1);
	int fd = open(self->path, O_RDONLY);
	char *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap((char *)base, self->pmdsize, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED, fd, self->size - self->pmdsize);
	close(fd);
	return p;
}

/* all of the file into the page cache, in small folios where not cached */
static void dirty_cache(struct dirty_file *self)
{
	static unsigned char buf[1 << 16];
	int fd = open(self->path, O_RDONLY);
	size_t off;

	for (off = 0; fd >= 0 && off < self->size; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), off) != sizeof(buf))
			break;
	if (fd >= 0)
		close(fd);
}

/* collapse_retry() of the region at @p: is it PMD-mapped? */
static bool dirty_collapse(char *p, size_t pmdsize)
{
	collapse_retry(p, pmdsize);
	return check_huge_file(p, pmdsize, 1, pmdsize);
}

struct dirty_opener {
	pthread_barrier_t *go;
	const char *path;
	unsigned long page, ver;
	int err;
};

static void *dirty_open_and_write(void *arg)
{
	struct dirty_opener *o = arg;

	pthread_barrier_wait(o->go);
	o->err = dirty_write(o->path, o->page, o->ver);
	return NULL;
}

TEST_F_TIMEOUT(dirty_open, writes_kept, 180)
{
	unsigned long npages = self->f.size / 4096, rpages = self->f.pmdsize / 4096;
	unsigned long ver, k, huge = 0, unmapped = 0, lost = 0, disk = 0;
	struct dirty_opener o[DO_OPENERS];
	unsigned char want[4096];
	pthread_t t[DO_OPENERS];
	pthread_barrier_t go;
	bool pmd_kept;
	char *p, *q;
	int i, fd;

	p = dirty_map_last(&self->f);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(pthread_barrier_init(&go, NULL, DO_OPENERS), 0);
	for (ver = 1; ver <= DO_ROUNDS; ver++) {
		dirty_cache(&self->f);
		huge += dirty_collapse(p, self->f.pmdsize);
		for (i = 0; i < DO_OPENERS; i++) {
			o[i] = (struct dirty_opener){ .go = &go, .path = self->f.path,
				.page = npages - rpages - 1 - 3 * i, .ver = ver };
			ASSERT_EQ(pthread_create(&t[i], NULL, dirty_open_and_write, &o[i]), 0);
		}
		for (i = 0; i < DO_OPENERS; i++) {
			pthread_join(t[i], NULL);
			ASSERT_EQ(o[i].err, 0);
		}
		unmapped += check_huge_file(p, self->f.pmdsize, 0, self->f.pmdsize);
		for (i = 0; i < DO_OPENERS; i++)
			lost += dirty_version(self->f.path, o[i].page) != (long)ver;
	}
	pthread_barrier_destroy(&go);
	ksft_print_msg("%d rounds of %d opens for write: huge before %lu, unmapped by them %lu\n",
		       DO_ROUNDS, DO_OPENERS, huge, unmapped);
	ksft_print_msg("writes lost: %lu\n", lost);
	EXPECT_EQ(huge, DO_ROUNDS);	/* each round raced with a huge folio */
	EXPECT_EQ(lost, 0);

	/* what reached the disk: the last round's versions */
	fd = open(self->f.path, O_RDONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fsync(fd), 0);
	close(fd);
	ASSERT_EQ(mmap(p, self->f.pmdsize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0), p);
	ASSERT_EQ(path_write("/proc/sys/vm/drop_caches", "3"), 0);
	for (i = 0; i < DO_OPENERS; i++)
		disk += dirty_version(self->f.path, o[i].page) != DO_ROUNDS;
	EXPECT_EQ(disk, 0);

	/*
	 * a write into the collapsed region after an open for write: read(),
	 * the mapping and a new mapping all read it
	 */
	p = dirty_map_last(&self->f);
	ASSERT_NE(p, MAP_FAILED);
	dirty_cache(&self->f);
	ASSERT_TRUE(dirty_collapse(p, self->f.pmdsize));
	k = npages - 5;
	ASSERT_EQ(dirty_write(self->f.path, k, 1000), 0);
	pmd_kept = check_huge_file(p, self->f.pmdsize, 1, self->f.pmdsize);
	ksft_print_msg("after an open for write the region is %s\n",
		       pmd_kept ? "still PMD-mapped (the cache kept)" :
		       "no longer PMD-mapped (the cache emptied)");
	dirty_fill(want, k, 1000);
	EXPECT_EQ(dirty_version(self->f.path, k), 1000);
	EXPECT_EQ(memcmp(p + self->f.pmdsize - 5 * 4096, want, sizeof(want)), 0);
	fd = open(self->f.path, O_RDONLY);
	ASSERT_GE(fd, 0);
	q = mmap(NULL, self->f.pmdsize, PROT_READ, MAP_PRIVATE, fd, self->f.size - self->f.pmdsize);
	close(fd);
	ASSERT_NE(q, MAP_FAILED);
	EXPECT_EQ(memcmp(q + self->f.pmdsize - 5 * 4096, want, sizeof(want)), 0);
	munmap(q, self->f.pmdsize);
}

TEST_HARNESS_MAIN
