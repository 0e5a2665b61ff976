// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: program text on PMD-sized folios from its first fault,
 * whatever the THP mode.
 *
 * A file of small functions (one a page, each returning its page number)
 * is written to the current directory, which must be on a filesystem whose
 * page cache holds PMD-sized folios (ext4, xfs, btrfs), evicted, mapped
 * PROT_READ | PROT_EXEC, MAP_PRIVATE, congruent to its file offset, and
 * run: every function is called and its result checked, so the bytes
 * executed are the file's.
 *
 * A mode below is the kinds of code the knobs give, in the prctl's bits
 * (mode_read()): 1 (bit 0) file text, 2 (bit 1) anonymous code, 3 both,
 * 0 neither; "hugetext N" is mode N.
 *
 * For modes 0 and 1 against THP "never", "madvise" and "always", 2 (bit 1
 * alone) under "madvise" and 3 under "never" (FIXTURE_VARIANT; bit 0
 * decides for text): with 1, a full 2M region is PMD-mapped from its first
 * fault, and calling every function of it takes at most two faults; with
 * 0, nothing is PMD-mapped by the first faults and they are many (THP
 * "always" alone leaves the text to khugepaged).  With 1, and not with 0:
 * a mapping not congruent to its file offset, MADV_NOHUGEPAGE and
 * PR_SET_THP_DISABLE stay on small pages, and a region already partly
 * cached in small folios falls back (HT_FAULT_FALLBACK) and is collapsed
 * by the process itself on its return from the fault (HT_COLLAPSE_ALLOC),
 * PMD-mapped when the call returns.  MADV_NOHUGEPAGE after the first fault
 * unmaps the PMDs hugetext made, not those THP "always", "madvise" with
 * MADV_HUGEPAGE, or MADV_COLLAPSE made.  Then the process's own prctl
 * (PR_SET_HT) both ways; the cap (its knob at 1: a region without a slot
 * is not PMD-mapped and MADV_COLLAPSE of it fails with EBUSY; text
 * hugetext does not map is not capped); and a private mapping of a data
 * file keeps upstream's readahead with hugetext on (data_readahead).
 *
 * A kernel whose hugetext collapses new text at mmap() instead of reading
 * it at the first fault (HT_COLLAPSES_AT_EXEC, no HT_FAULT_ALLOC counter)
 * runs the same cases: there every full region of the mapping is
 * PMD-mapped after the first fault, not only the one faulted;
 * MADV_NOHUGEPAGE, which comes after the mmap(), is not checked under THP
 * "always" (such a kernel keeps the PMDs THP's own rules allow); the
 * partly cached fallback is skipped; and the mappings it skips are
 * counted (not_congruent, write_open).
 *
 * The other concerns are programs of their own over the same helpers
 * (hugetext_helpers.c): the knobs and the boot parameter
 * (hugetext_settings.c), where text and other memory are placed
 * (hugetext_placement.c), the prctl (hugetext_prctl.c), MADV_COLLAPSE
 * raced and huge page cache opened for write (hugetext_collapse.c), JIT
 * code (hugetext_jit.c), padding and the way back (hugetext_pad.c), the
 * cap's sampler (hugetext_cap.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/* the test file and its mapping */
struct text {
	size_t pmdsize, len;
	char path[64];
	int fd;
	char *reserve, *text;
};

FIXTURE(hugetext)
{
	struct thp_settings settings;
	unsigned long mode_saved;
	long cap_saved, sample_saved;	/* -1: no cap in this kernel */
	struct text t;
};

FIXTURE_VARIANT(hugetext)
{
	int mode;
	enum thp_enabled thp;
};

FIXTURE_VARIANT_ADD(hugetext, off_never) { .mode = 0, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(hugetext, off_madvise) { .mode = 0, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(hugetext, off_always) { .mode = 0, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(hugetext, text_never) { .mode = 1, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(hugetext, text_madvise) { .mode = 1, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(hugetext, text_always) { .mode = 1, .thp = THP_ALWAYS };
/* the other bit alone leaves file text alone; both bits are bit 0's */
FIXTURE_VARIANT_ADD(hugetext, jit_madvise) { .mode = 2, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(hugetext, both_never) { .mode = 3, .thp = THP_NEVER };

FIXTURE_SETUP(hugetext)
{
	unsigned char page[4096];
	char *reg;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (!emit_fn(page, 0))
		SKIP(return, "no code generator for this architecture\n");
	if (getpagesize() != sizeof(page))
		SKIP(return, "page size %d: the functions are laid out for 4K\n",
		     getpagesize());
	self->t.pmdsize = read_pmd_pagesize();
	if (!self->t.pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");

	/* NR_REGIONS full regions of functions after a first page */
	self->t.len = (NR_REGIONS + 1) * self->t.pmdsize;
	snprintf(self->t.path, sizeof(self->t.path), "hugetext-test.%d", getpid());
	ASSERT_EQ(write_functions(self->t.path, self->t.len), 0);
	/* mapped read-only: a file open for write is not text to a kernel */
	self->t.fd = open(self->t.path, O_RDONLY);
	ASSERT_GE(self->t.fd, 0);

	/* room to place the mapping at a PMD boundary (+ an offset) */
	self->t.reserve = mmap(NULL, self->t.len + 2 * self->t.pmdsize, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->t.reserve, MAP_FAILED);
	self->t.text = NULL;

	self->mode_saved = mode_read();
	self->cap_saved = access(CAP_KNOB, F_OK) ? -1 : (long)read_num(CAP_KNOB);
	self->sample_saved = access(SAMPLE_KNOB, F_OK) ? -1 : (long)read_num(SAMPLE_KNOB);
	thp_save_settings();
	thp_read_settings(&self->settings);
	self->settings.thp_enabled = variant->thp;
	self->settings.hugepages[sz2ord(self->t.pmdsize, getpagesize())].enabled = THP_INHERIT;
	/*
	 * khugepaged must not collapse behind the test's back: it sleeps
	 * 10 minutes after the pass this write wakes it for, and it collapses
	 * no range with a page missing, as the test's ranges have
	 */
	self->settings.khugepaged.scan_sleep_millisecs = 600000;
	self->settings.khugepaged.alloc_sleep_millisecs = 600000;
	self->settings.khugepaged.max_ptes_none = 0;
	settings_set_mode(&self->settings, variant->mode);
	thp_write_settings(&self->settings);
	ASSERT_EQ(mode_write(variant->mode), 0);
	/*
	 * ... once the pass it is woken for is over.  A pass still running
	 * can reach the test's mm and collapse a region its faults have
	 * cached whole (seen on a slowed guest: off_always.first_fault
	 * PMD-mapped after 22 faults).  Registering an mm when none is wakes
	 * khugepaged for a pass at once, however long its sleep: the test's
	 * mm is registered now (khugepaged_register()), not by its text's
	 * mmap(), and that pass and the one the writes woke end before the
	 * test.
	 */
	reg = khugepaged_register(self->t.pmdsize);
	ASSERT_NE(reg, MAP_FAILED);
	munmap(reg, self->t.pmdsize);
	khugepaged_settle();
}

FIXTURE_TEARDOWN(hugetext)
{
	mode_write(self->mode_saved);
	if (self->sample_saved >= 0)
		path_write_num(SAMPLE_KNOB, self->sample_saved);
	if (self->cap_saved >= 0)
		path_write_num(CAP_KNOB, self->cap_saved);
	thp_restore_settings();
	prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0);
	munmap(self->t.reserve, self->t.len + 2 * self->t.pmdsize);
	close(self->t.fd);
	unlink(self->t.path);
}

/*
 * Evict the file's page cache, then map [@off, @off + @len) of it at a PMD
 * boundary + @off + @shift; ->text is where file offset 0 would be, so
 * that run_region() and the checks address regions by file offset.  A
 * mapping of one region is a VMA of its own: smaps counts only it.
 */
static char *map_range(struct text *self, size_t off, size_t len, size_t shift)
{
	unsigned long base = ((unsigned long)self->reserve + self->pmdsize - 1) &
			     ~(self->pmdsize - 1);
	char *p;

	posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap((char *)base + off + shift, len, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED, self->fd, off);
	if (p == MAP_FAILED)
		return p;
	self->text = p - off;
	return p;
}

static char *map_text(struct text *self, size_t shift)
{
	return map_range(self, 0, self->len, shift);
}

/* run_range() of region @r: file offsets [r, r + 1) * PMD */
static long run_region(struct text *self, int r)
{
	return run_range(self->text, (size_t)r * self->pmdsize, self->pmdsize);
}

/* a full region's first faults: one PMD whatever THP says, or small pages */
TEST_F(hugetext, first_fault)
{
	long read0 = read_vmstat(HT_FAULT_ALLOC);
	long alloc0 = read_vmstat("thp_collapse_alloc");
	long ok0 = read_vmstat(HT_COLLAPSE_ALLOC);
	/* a collapse at mmap() maps every full region, not the faulted one */
	int all = self->t.len / self->t.pmdsize;
	long faults;

	ASSERT_NE(map_text(&self->t, 0), MAP_FAILED);
	faults = run_region(&self->t, 1);
	ASSERT_GE(faults, 0);
	if (variant->mode & 1) {
		/* smaps entries are found by their VMA's start */
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len,
					    read0 >= 0 ? 1 : all, self->t.pmdsize));
		EXPECT_LE(faults, 2);
		if (read0 >= 0)
			EXPECT_GE(read_vmstat(HT_FAULT_ALLOC) - read0, 1);
	} else {
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
		/* at least one fault per fault-around window (64K by default) */
		EXPECT_GE(faults, (long)(self->t.pmdsize / (64 << 10)));
		EXPECT_EQ(read_vmstat(HT_FAULT_ALLOC), read0);
	}
	/* the second region, and again the first: still the file's code */
	ASSERT_GE(run_region(&self->t, 2), 0);
	ASSERT_GE(run_region(&self->t, 1), 0);
	if (variant->mode & 1)
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len,
					    read0 >= 0 ? NR_REGIONS : all, self->t.pmdsize));
	/*
	 * Read huge at the first fault, nothing collapsed: neither by the
	 * process on its return from the fault nor by anyone (under THP
	 * "never" khugepaged's one pass after the setup has nothing to take)
	 */
	if (read0 >= 0 && (variant->mode & 1) && variant->thp == THP_NEVER) {
		EXPECT_EQ(read_vmstat("thp_collapse_alloc"), alloc0);
		EXPECT_EQ(read_vmstat(HT_COLLAPSE_ALLOC), ok0);
	}
}

/*
 * not congruent to the file offset: no PMD can map it (a kernel that
 * collapses text at mmap() counts it in HT_SKIP_NOT_CONGRUENT)
 */
TEST_F(hugetext, not_congruent)
{
	long skip0 = read_vmstat(HT_SKIP_NOT_CONGRUENT);

	ASSERT_NE(map_text(&self->t, 4096), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
	if (skip0 >= 0 && (variant->mode & 1))
		EXPECT_GT(read_vmstat(HT_SKIP_NOT_CONGRUENT), skip0);
}

#if HT_COLLAPSES_AT_EXEC
/*
 * A file open for write is not text: on a kernel that collapses text at
 * mmap() its executable mapping stays on small pages with hugetext on,
 * counted in HT_SKIP_WRITE_OPEN (one that reads text at the first fault
 * follows the page cache's own rules: hugetext_collapse.c's dirty_open)
 */
TEST_F(hugetext, write_open)
{
	long skip0 = read_vmstat(HT_SKIP_WRITE_OPEN);
	int wfd;

	ASSERT_GE(skip0, 0);
	wfd = open(self->t.path, O_RDWR);
	ASSERT_GE(wfd, 0);
	ASSERT_NE(map_text(&self->t, 0), MAP_FAILED);
	EXPECT_GE(run_region(&self->t, 1), 0);
	EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
	if (variant->mode & 1)
		EXPECT_GT(read_vmstat(HT_SKIP_WRITE_OPEN), skip0);
	close(wfd);
}
#endif

/* opt-outs: MADV_NOHUGEPAGE and PR_SET_THP_DISABLE */
TEST_F(hugetext, opt_out)
{
	bool at_fault = read_vmstat(HT_FAULT_ALLOC) >= 0;

	ASSERT_NE(map_text(&self->t, 0), MAP_FAILED);
	ASSERT_EQ(madvise(self->t.text, self->t.len, MADV_NOHUGEPAGE), 0);
	ASSERT_GE(run_region(&self->t, 1), 0);
	if (at_fault || variant->thp != THP_ALWAYS)
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
	munmap(self->t.text, self->t.len);

	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	ASSERT_NE(map_text(&self->t, 0), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), 0);
}

/*
 * MADV_NOHUGEPAGE once the text is PMD-mapped: the PMDs hugetext made go,
 * and the range refaults with small pages, still the file's code; PMDs
 * THP's own settings or MADV_COLLAPSE made stay, as without hugetext.
 * @advised: the range is advised MADV_HUGEPAGE before its first fault, so
 * THP's own settings map it huge under "madvise" as under "always", and
 * only under "never" is hugetext what made it huge.
 */
static void opt_out_late_run(struct __test_metadata *_metadata, struct text *t,
			     int mode, enum thp_enabled thp, bool advised)
{
	char *p = map_range(t, t->pmdsize, t->pmdsize, 0);
	bool thp_maps = advised ? thp != THP_NEVER : thp == THP_ALWAYS;
	int left = (mode & 1) && !thp_maps ? 0 : 1;

	ASSERT_NE(p, MAP_FAILED);
	if (advised)
		ASSERT_EQ(madvise(p, t->pmdsize, MADV_HUGEPAGE), 0);
	ASSERT_GE(run_region(t, 1), 0);
	if (!(mode & 1))
		ASSERT_EQ(collapse_retry(p, t->pmdsize), 0);
	ASSERT_TRUE(check_huge_file(p, t->pmdsize, 1, t->pmdsize));
	ASSERT_EQ(madvise(p, t->pmdsize, MADV_NOHUGEPAGE), 0);
	EXPECT_TRUE(check_huge_file(p, t->pmdsize, left, t->pmdsize));
	ASSERT_GE(run_region(t, 1), 0);
	EXPECT_TRUE(check_huge_file(p, t->pmdsize, left, t->pmdsize));
}

TEST_F(hugetext, opt_out_late)
{
	opt_out_late_run(_metadata, &self->t, variant->mode, variant->thp, false);
}

TEST_F(hugetext, opt_out_late_advised)
{
	opt_out_late_run(_metadata, &self->t, variant->mode, variant->thp, true);
}

/*
 * A region partly cached in small folios keeps them at its first fault: a
 * counted fallback.  Once the region is all cached khugepaged may collapse
 * it (hugetext's fallback); the setup's settings wake it for one pass,
 * which on SMP can meet the region between the fault and the check.  Such
 * a collapse (thp_collapse_alloc moved) is not the fault's doing: the test
 * runs again on a fresh mapping, up to three times.  The read and the
 * fault run on one CPU: the fault's collapse drains that CPU's LRU batch
 * alone, and a folio another CPU read that is still in its batch is left
 * to khugepaged, whose pass drains every CPU's.
 */
TEST_F(hugetext, partly_cached)
{
	long fb0 = read_vmstat(HT_FAULT_FALLBACK);
	char *region = self->t.text;
	bool done = false, small = false;
	cpu_set_t all, one;
	long fb, ok = 0;
	char buf[4096];
	int try;

	if (fb0 < 0)
		SKIP(return, "this kernel collapses text at mmap(), no first-fault read\n");
	/*
	 * The setup's settings may wake khugepaged for a pass, which can
	 * collapse the region (all cached by then) before the fault: then
	 * again, on a fresh mapping.
	 */
	for (try = 0; try < 3 && !done; try++) {
		long collapses = read_vmstat("thp_collapse_alloc");

		if (try) {
			ksft_print_msg("khugepaged collapsed the region before the check: again\n");
			munmap(region, self->t.pmdsize);
		}
		region = map_range(&self->t, self->t.pmdsize, self->t.pmdsize, 0);
		ASSERT_NE(region, MAP_FAILED);
		ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
		/*
		 * one small folio in the middle of region 1: no readahead
		 * (which could read the whole region into a PMD-sized folio)
		 */
		ASSERT_EQ(posix_fadvise(self->t.fd, 0, 0, POSIX_FADV_RANDOM), 0);
		ASSERT_EQ(pread(self->t.fd, buf, sizeof(buf),
				self->t.pmdsize + self->t.pmdsize / 2), (ssize_t)sizeof(buf));
		ASSERT_EQ(posix_fadvise(self->t.fd, 0, 0, POSIX_FADV_NORMAL), 0);
		fb = read_vmstat(HT_FAULT_FALLBACK);
		ok = read_vmstat(HT_COLLAPSE_ALLOC);
		ASSERT_GE(run_region(&self->t, 1), 0);
		ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
		if (variant->mode & 1) {
			/* the fault fell back: the case under test */
			done = read_vmstat(HT_FAULT_FALLBACK) > fb;
		} else {
			small = check_huge_file(region, self->t.pmdsize, 0, self->t.pmdsize);
			done = small || read_vmstat("thp_collapse_alloc") == collapses;
		}
	}
	if (variant->mode & 1) {
		/*
		 * the fault read small folios, and the process collapsed the
		 * region on its return to user space: the region ran on a
		 * PMD before run_region() returned, without khugepaged
		 */
		EXPECT_TRUE(done);
		EXPECT_GE(read_vmstat(HT_COLLAPSE_ALLOC) - ok, 1);
		EXPECT_TRUE(check_huge_file(region, self->t.pmdsize, 1, self->t.pmdsize));
	} else {
		EXPECT_TRUE(small);
	}
}

/* prctl(PR_SET_HT): the process's own bit 0, against the knob */
TEST_F(hugetext, prctl)
{
	unsigned long own = variant->mode & 1 ? PR_HT_SET :
			    PR_HT_SET | PR_HT_FILE;

	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	ASSERT_EQ(prctl(PR_SET_HT, own, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), (int)own);
	ASSERT_NE(map_range(&self->t, self->t.pmdsize, self->t.pmdsize, 0), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	/* the opposite of what the knob alone gives */
	EXPECT_TRUE(check_huge_file(self->t.text + self->t.pmdsize, self->t.pmdsize,
				    variant->mode & 1 ? 0 : 1, self->t.pmdsize));
	EXPECT_EQ(prctl(PR_SET_HT, 1, 0, 0, 0), -1);	/* no SET bit */
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_SET_HT, own, 1, 0, 0), -1);	/* arg3 */
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), (int)own);
}

/*
 * The cap (CAP_KNOB) at 1, its sampling period at 10 minutes: a region gets
 * a slot only after two sampled periods of use, so none of the new
 * mapping's has one.  With hugetext on, the region the test runs is not
 * PMD-mapped and MADV_COLLAPSE of it fails with EBUSY; with hugetext off
 * the cap does not apply and MADV_COLLAPSE maps it.  With the cap back at
 * 0, MADV_COLLAPSE maps it either way.
 */
TEST_F(hugetext, cap)
{
	char *r1;

	if (self->cap_saved < 0 || self->sample_saved < 0)
		SKIP(return, "no cap in this kernel\n");
	ASSERT_EQ(path_write(SAMPLE_KNOB, "600000"), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "1"), 0);
	ASSERT_NE(map_text(&self->t, 0), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	r1 = self->t.text + self->t.pmdsize;
	if (variant->mode & 1) {
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
		EXPECT_EQ(madvise(r1, self->t.pmdsize, MADV_COLLAPSE), -1);
		EXPECT_EQ(errno, EBUSY);
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
	} else {
		EXPECT_EQ(collapse_retry(r1, self->t.pmdsize), 0);
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 1, self->t.pmdsize));
	}
	ASSERT_EQ(path_write(CAP_KNOB, "0"), 0);
	EXPECT_EQ(collapse_retry(r1, self->t.pmdsize), 0);
	EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 1, self->t.pmdsize));
	/* still the file's code */
	ASSERT_GE(run_region(&self->t, 1), 0);
}

/*
 * Read @len bytes of @path through a private read-only mapping, in order,
 * a byte a page, from a cold cache, with hugetext set to @pr for this
 * process: the major faults it took (each one a synchronous read), or -1.
 */
static long read_through(const char *path, size_t len, unsigned long pr)
{
	struct rusage r0, r1;
	size_t off;
	char *p;
	int fd;

	if (prctl(PR_SET_HT, pr, 0, 0, 0))
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	getrusage(RUSAGE_SELF, &r0);
	for (off = 0; off < len; off += 4096)
		FORCE_READ(p[off]);
	getrusage(RUSAGE_SELF, &r1);
	munmap(p, len);
	return r1.ru_majflt - r0.ru_majflt;
}

/*
 * A private mapping of a data file, which nothing maps executable, keeps
 * upstream's readahead in a hugetext process (a git pack, a read-only
 * database file): read through in order, it takes no more major faults
 * with hugetext on than off.  Keeping read-around inside the mapping and
 * starting no asynchronous readahead are for a program's segments next to
 * its text; applied to every private mapping, they made each read-around
 * window a synchronous miss (64M: one a ra_pages / 2).
 */
TEST(data_readahead)
{
	const size_t len = 64UL << 20;
	char path[64], buf[1 << 16];
	long off, on;
	size_t done;
	int fd;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no readahead from a disk\n");
	snprintf(path, sizeof(path), "hugetext-data.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	memset(buf, 0x5a, sizeof(buf));
	for (done = 0; done < len; done += sizeof(buf))
		ASSERT_EQ(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ASSERT_EQ(fsync(fd), 0);
	close(fd);
	off = read_through(path, len, PR_HT_SET);
	on = read_through(path, len, PR_HT_SET | PR_HT_FILE);
	prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0);
	unlink(path);
	ASSERT_GE(off, 0);
	ASSERT_GE(on, 0);
	ksft_print_msg("64M read in order, private mapping: majflt %ld hugetext off, %ld on\n",
		       off, on);
	EXPECT_LE(on, off + 2);
}

TEST_HARNESS_MAIN
