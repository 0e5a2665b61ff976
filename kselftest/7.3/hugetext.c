// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: program text on PMD-sized folios whatever the THP mode.
 *
 * A file of small functions (one a page, each returning its page number)
 * is written to the current directory, which must be on a filesystem whose
 * page cache holds PMD-sized folios (ext4, xfs, btrfs), evicted, mapped
 * PROT_READ | PROT_EXEC, MAP_PRIVATE, congruent to its file offset, and
 * run: every function is called and its result checked, so the bytes
 * executed are the file's.
 *
 * A mode below is the kinds of code the knobs have at "always", in the
 * prctl's bits: 1 (bit 0) exec_file_enabled, 2 (bit 1) exec_anon_enabled,
 * 3 both, 0 both at "prctl"; "hugetext N" is mode N.
 *
 * For modes 0 and 1 against THP "never", "madvise" and
 * "always", 2 (bit 1 alone) under "madvise" and 3 under "never"
 * (FIXTURE_VARIANT; bit 0 decides for text): with 1, a full 2M region is
 * PMD-mapped from its first fault, and calling every function of it takes
 * one fault; with 0, nothing is PMD-mapped by the first faults and they
 * are many (THP "always" alone leaves the text to khugepaged).  With 1,
 * and not with 0:
 * a mapping not congruent to its file offset, MADV_NOHUGEPAGE and
 * PR_SET_THP_DISABLE stay on small pages, and a region already partly
 * cached in small folios falls back (thp_exec_fault_fallback) and is
 * collapsed by the process itself on its return from the fault
 * (thp_exec_collapse_alloc), PMD-mapped when the call returns.
 * MADV_NOHUGEPAGE after the first fault unmaps the PMDs hugetext made, not
 * those THP "always", "madvise" with MADV_HUGEPAGE, or MADV_COLLAPSE
 * made.  Then prctl(PR_SET_THP_EXEC)
 * both ways, and the knob as its ceiling for a process without
 * CAP_SYS_RESOURCE (fixture prctl_ceiling); the cap (max_exec_regions 1:
 * a region without a slot is not PMD-mapped and MADV_COLLAPSE of it
 * fails with EBUSY; text hugetext does not map is not capped); a private
 * mapping of a data file keeps
 * upstream's readahead with hugetext on; JIT code (hugetext bit 1) is
 * hugetext_jit.c's; a PIE placed congruent (hugetext_exec_bias()) with bit 0 on,
 * and not with it off, keeping mmap_rnd_bits less the PMD shift of ASLR
 * (fixture aslr); a secure exec that forgets the process's setting;
 * anonymous memory placed as without hugetext and a data file on overlayfs
 * as on the filesystem under it (anon_placement, overlay_data_file);
 * shared libraries loaded by ld.so from ext4, overlayfs and linked for
 * 64K pages (fixture lib).  The settings (the knobs, the padding and cap
 * knobs, the boot parameter as the kernel was booted) are
 * hugetext_settings.c's.  MADV_COLLAPSE raced and huge page cache opened
 * for write are hugetext_collapse.c's.
 * A program whose text has a partial region at each end, padded
 * against the padding knobs (fixture pad), is hugetext_pad.c's; the way
 * back (fixture rollback) runs the same program (hugetext_helpers.c).
 * The cap's sampler is hugetext_cap.c's.
 *
 * A kernel whose hugetext collapses new text at mmap() instead of reading
 * it at the first fault (no thp_exec_fault_alloc in /proc/vmstat) runs the
 * same binary: there every full region of the mapping is PMD-mapped after
 * the first fault, not only the one faulted; MADV_NOHUGEPAGE, which comes
 * after the mmap(), is not checked under THP "always" (such a kernel keeps
 * the PMDs THP's own rules allow); the partly cached fallback is skipped.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/param.h>
#include <sys/klog.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/magic.h>

#include "kselftest_harness.h"
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

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
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
	self->settings.exec_enabled = variant->mode;
	thp_write_settings(&self->settings);
	ASSERT_EQ(mode_write(variant->mode), 0);
}

FIXTURE_TEARDOWN(hugetext)
{
	mode_write(self->mode_saved);
	if (self->sample_saved >= 0)
		path_write_num(SAMPLE_KNOB, self->sample_saved);
	if (self->cap_saved >= 0)
		path_write_num(CAP_KNOB, self->cap_saved);
	thp_restore_settings();
	prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SYSTEM, 0, 0, 0);
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
	long read0 = read_vmstat("thp_exec_fault_alloc");
	long alloc0 = read_vmstat("thp_collapse_alloc");
	long ok0 = read_vmstat("thp_exec_collapse_alloc");
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
			EXPECT_GE(read_vmstat("thp_exec_fault_alloc") - read0, 1);
	} else {
		EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
		/* at least one fault per fault-around window (64K by default) */
		EXPECT_GE(faults, (long)(self->t.pmdsize / (64 << 10)));
		EXPECT_EQ(read_vmstat("thp_exec_fault_alloc"), read0);
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
		EXPECT_EQ(read_vmstat("thp_exec_collapse_alloc"), ok0);
	}
}

/* not congruent to the file offset: no PMD can map it */
TEST_F(hugetext, not_congruent)
{
	ASSERT_NE(map_text(&self->t, 4096), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	EXPECT_TRUE(check_huge_file(self->t.text, self->t.len, 0, self->t.pmdsize));
}

/* opt-outs: MADV_NOHUGEPAGE and PR_SET_THP_DISABLE */
TEST_F(hugetext, opt_out)
{
	bool at_fault = read_vmstat("thp_exec_fault_alloc") >= 0;

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
	long fb0 = read_vmstat("thp_exec_fault_fallback");
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
		fb = read_vmstat("thp_exec_fault_fallback");
		ok = read_vmstat("thp_exec_collapse_alloc");
		ASSERT_GE(run_region(&self->t, 1), 0);
		ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
		if (variant->mode & 1) {
			/* the fault fell back: the case under test */
			done = read_vmstat("thp_exec_fault_fallback") > fb;
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
		EXPECT_GE(read_vmstat("thp_exec_collapse_alloc") - ok, 1);
		EXPECT_TRUE(check_huge_file(region, self->t.pmdsize, 1, self->t.pmdsize));
	} else {
		EXPECT_TRUE(small);
	}
}

/* prctl(PR_SET_THP_EXEC): the process's own bit 0, against the knob */
TEST_F(hugetext, prctl)
{
	unsigned long own = variant->mode & 1 ? PR_THP_EXEC_SET :
			    PR_THP_EXEC_SET | PR_THP_EXEC_FILE;

	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	ASSERT_EQ(prctl(PR_SET_THP_EXEC, own, 0, 0, 0), 0);
	ASSERT_EQ(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0), (int)own);
	ASSERT_NE(map_range(&self->t, self->t.pmdsize, self->t.pmdsize, 0), MAP_FAILED);
	ASSERT_GE(run_region(&self->t, 1), 0);
	/* the opposite of what the knob alone gives */
	EXPECT_TRUE(check_huge_file(self->t.text + self->t.pmdsize, self->t.pmdsize,
				    variant->mode & 1 ? 0 : 1, self->t.pmdsize));
	EXPECT_EQ(prctl(PR_SET_THP_EXEC, 1, 0, 0, 0), -1);	/* no SET bit */
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_SET_THP_EXEC, own, 1, 0, 0), -1);	/* arg3 */
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0), (int)own);
}

/*
 * Read @len bytes of @path through a private read-only mapping, in order,
 * a byte a page, from a cold cache, with hugetext set to @pr for this
 * process: the major faults it took (each one a synchronous read), or -1.
 */
/*
 * max_exec_regions at 1, its sampling period at 10 minutes: a region gets
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
		SKIP(return, "no max_exec_regions in this kernel\n");
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

static long read_through(const char *path, size_t len, unsigned long pr)
{
	struct rusage r0, r1;
	size_t off;
	char *p;
	int fd;

	if (prctl(PR_SET_THP_EXEC, pr, 0, 0, 0))
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

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
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
	off = read_through(path, len, PR_THP_EXEC_SET);
	on = read_through(path, len, PR_THP_EXEC_SET | PR_THP_EXEC_FILE);
	prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SYSTEM, 0, 0, 0);
	unlink(path);
	ASSERT_GE(off, 0);
	ASSERT_GE(on, 0);
	ksft_print_msg("64M read in order, private mapping: majflt %ld hugetext off, %ld on\n",
		       off, on);
	EXPECT_LE(on, off + 2);
}

/*
 * The ELF tests run this program again with HUGETEXT_REPORT=FD in its
 * environment: before main() it reads a byte of the first full PMD region
 * of its blob (below), then writes to FD what the kernel gave it --
 * PR_GET_THP_EXEC, whether its text is congruent to its file offset modulo
 * the PMD size, AT_SECURE, where its text's file offset 0 is, and how
 * much of its text mapping is PMD-mapped after that first fault
 * (FilePmdMapped, kB; -1 if the blob holds no full region) -- and exits.  Its text holds a
 * 4M blob, so that as a PIE it has a full PMD region of text for the ELF
 * loader to place.
 */
#define BLOB_SIZE 0x400000UL
extern const char hugetext_blob[];
asm(".pushsection .text.hugetext_blob, \"ax\"\n"
	".globl hugetext_blob\n"
	".hidden hugetext_blob\n"
	"hugetext_blob:\n"
	".skip 0x400000\n"
	".popsection\n");

static void __attribute__((constructor)) hugetext_report(void)
{
	/* this function is in the text segment, with the blob */
	unsigned long addr = (unsigned long)hugetext_report, start, end, off;
	const char *fd = getenv("HUGETEXT_REPORT");
	unsigned long pmd, region, base = 0;
	int congruent = -1, in_region = 0;
	long pmd_kb = -1, kb;
	char line[512];
	FILE *smaps;

	if (!fd)
		return;
	pmd = read_pmd_pagesize();
	region = pmd ? ((unsigned long)hugetext_blob + pmd - 1) & ~(pmd - 1) : 0;
	if (region && region + pmd <= (unsigned long)hugetext_blob + BLOB_SIZE)
		FORCE_READ(*(char *)region);
	else
		region = 0;
	smaps = fopen("/proc/self/smaps", "r");
	while (smaps && fgets(line, sizeof(line), smaps)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3) {
			in_region = region && start <= region && region < end;
			if (start <= addr && addr < end) {
				congruent = pmd && (start - off) % pmd == 0;
				base = start - off;
			}
		} else if (in_region && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1) {
			pmd_kb = kb;
		}
	}
	if (smaps)
		fclose(smaps);
	dprintf(atoi(fd), "%d %d %lu %lx %ld\n", prctl(PR_GET_THP_EXEC, 0, 0, 0, 0),
		congruent, getauxval(AT_SECURE), base, pmd_kb);
	_exit(0);
}

struct report {
	int prctl, congruent, secure;
	unsigned long base;
	long pmd_kb;
};

/* run_report()'s @pr that sets nothing: the child keeps what it inherited */
#define PR_KEEP		(~0UL)

/* become @uid (its group too, no others): every capability goes; 0, or -1 */
static int drop_to(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/*
 * Run @exe (this program) with prctl(PR_SET_THP_EXEC, @pr) set before the
 * exec (unless @pr is PR_KEEP), as @uid if not 0: its report, or -1 (the
 * exec failed).
 */
static int run_report(const char *exe, unsigned long pr, uid_t uid, struct report *r)
{
	char buf[64], env[32];
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char *argv[2], *envp[2];

		argv[0] = (char *)exe;
		argv[1] = NULL;
		envp[0] = env;
		envp[1] = NULL;
		close(p[0]);
		snprintf(env, sizeof(env), "HUGETEXT_REPORT=%d", p[1]);
		if (pr != PR_KEEP && prctl(PR_SET_THP_EXEC, pr, 0, 0, 0))
			_exit(2);
		if (uid && drop_to(uid))
			_exit(3);
		execve(exe, argv, envp);
		_exit(4);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%d %d %d %lx %ld", &r->prctl, &r->congruent, &r->secure,
		      &r->base, &r->pmd_kb) == 5 ? 0 : -1;
}

/*
 * Is this program a PIE (ET_DYN with PT_INTERP), which the loader places?
 * Read from its ELF header (64-bit, native order): e_type at 16, e_phoff
 * at 32, e_phentsize at 54, e_phnum at 56; p_type first in a phdr.
 */
static bool self_is_pie(void)
{
	unsigned short type, phentsize, phnum;
	unsigned char eh[64];
	unsigned long phoff;
	bool interp = false;
	unsigned int ptype;
	int fd, i;

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return false;
	if (pread(fd, eh, sizeof(eh), 0) == sizeof(eh) && eh[EI_CLASS] == ELFCLASS64) {
		memcpy(&type, eh + 16, sizeof(type));
		memcpy(&phoff, eh + 32, sizeof(phoff));
		memcpy(&phentsize, eh + 54, sizeof(phentsize));
		memcpy(&phnum, eh + 56, sizeof(phnum));
		for (i = 0; type == ET_DYN && i < phnum; i++)
			if (pread(fd, &ptype, sizeof(ptype), phoff + i * phentsize) ==
			    sizeof(ptype) && ptype == PT_INTERP)
				interp = true;
	}
	close(fd);
	return interp;
}

#define NR_EXECS 4

/*
 * A PIE's text is placed congruent to its file offset modulo the PMD size
 * when hugetext bit 0 is on for the process (here by its prctl, kept over
 * exec), at every exec, and its full region is PMD-mapped once its first
 * fault returns, each placement counted in thp_exec_align_pie; with it
 * off the load bias is only page-aligned, nothing is counted, and
 * NR_EXECS execs are not all congruent (by chance: 1 in 512^4).
 */
TEST(pie_placement)
{
	long pmd_kb = read_pmd_pagesize() >> 10;
	struct report r;
	int i, congruent = 0;
	long align0;

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	if (!self_is_pie())
		SKIP(return, "this program is not a PIE: nothing for the loader to place\n");
	align0 = read_vmstat("thp_exec_align_pie");
	for (i = 0; i < NR_EXECS; i++) {
		ASSERT_EQ(run_report("/proc/self/exe",
				     PR_THP_EXEC_SET | PR_THP_EXEC_FILE, 0, &r), 0);
		EXPECT_EQ(r.prctl, (int)(PR_THP_EXEC_SET | PR_THP_EXEC_FILE));
		EXPECT_EQ(r.congruent, 1);
		if (!i)
			ksft_print_msg("its text PMD-mapped after its blob's first fault: %ld kB\n",
				       r.pmd_kb);
		/* -1: pages so large that the blob holds no full region */
		if (r.pmd_kb >= 0)
			EXPECT_GE(r.pmd_kb, pmd_kb);
	}
	/* each placement counted (an interpreter placed too may add its own) */
	if (align0 >= 0) {
		EXPECT_GE(read_vmstat("thp_exec_align_pie") - align0, NR_EXECS);
		align0 = read_vmstat("thp_exec_align_pie");
	}
	for (i = 0; i < NR_EXECS; i++) {
		ASSERT_EQ(run_report("/proc/self/exe", PR_THP_EXEC_SET, 0, &r), 0);
		EXPECT_EQ(r.prctl, (int)PR_THP_EXEC_SET);
		congruent += r.congruent == 1;
	}
	EXPECT_LT(congruent, NR_EXECS);
	if (align0 >= 0)
		EXPECT_EQ(read_vmstat("thp_exec_align_pie"), align0);
}

/* /proc/self/status's THP_exec:, -1 when absent */
static long status_hugetext(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "THP_exec: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * prctl(PR_SET_THP_EXEC) itself: a process starts with PR_THP_EXEC_SYSTEM;
 * bad values and non-zero unused arguments fail with EINVAL and change
 * nothing; /proc/PID/status shows the setting; a forked child inherits it
 * and keeps it over exec.
 */
TEST(prctl_args)
{
	static const struct {
		unsigned long a2, a3, a4, a5;
	} bad[] = {
		{ PR_THP_EXEC_FILE }, { PR_THP_EXEC_ANON },
		{ PR_THP_EXEC_FILE | PR_THP_EXEC_ANON }, { 8 },
		{ PR_THP_EXEC_SET | 8 }, { PR_THP_EXEC_SET | 0x100 }, { ~0UL },
		{ 1UL << 63 }, { PR_THP_EXEC_SET | PR_THP_EXEC_FILE, 1 },
		{ PR_THP_EXEC_SET | PR_THP_EXEC_FILE, 0, 1 },
		{ PR_THP_EXEC_SET | PR_THP_EXEC_FILE, 0, 0, 1 },
	};
	const unsigned long own = PR_THP_EXEC_SET | PR_THP_EXEC_ANON;
	struct report r;
	unsigned int i;
	int status;
	pid_t pid;

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	/* the harness never sets it: its children start with the default */
	EXPECT_EQ(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0), PR_THP_EXEC_SYSTEM);
	EXPECT_EQ(status_hugetext(), PR_THP_EXEC_SYSTEM);

	ASSERT_EQ(prctl(PR_SET_THP_EXEC, own, 0, 0, 0), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(prctl(PR_SET_THP_EXEC, bad[i].a2, bad[i].a3, bad[i].a4,
				bad[i].a5), -1) {
			TH_LOG("PR_SET_THP_EXEC %#lx %lu %lu %lu taken", bad[i].a2,
			       bad[i].a3, bad[i].a4, bad[i].a5);
		}
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0), (int)own);
	}
	errno = 0;
	EXPECT_EQ(prctl(PR_GET_THP_EXEC, 1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(status_hugetext(), (long)own);

	/* inherited over fork ... */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) == (int)own &&
		      status_hugetext() == (long)own ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* ... and kept over exec */
	ASSERT_EQ(run_report("/proc/self/exe", PR_KEEP, 0, &r), 0);
	EXPECT_EQ(r.prctl, (int)own);
	EXPECT_EQ(prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SYSTEM, 0, 0, 0), 0);
	EXPECT_EQ(status_hugetext(), PR_THP_EXEC_SYSTEM);
}

#define NOBODY 65534

/*
 * In a child of the test: drop to uid @NOBODY (and with it every
 * capability), then set what the knob at @mode allows and what it does
 * not.  0, or the number of the step that went wrong.
 */
static int ceiling_steps(unsigned int mode)
{
	const unsigned long text = PR_THP_EXEC_SET | PR_THP_EXEC_FILE;

	if (drop_to(NOBODY))
		return 1;
	/* bit 1 is off at @mode 0 and 1: refused, nothing changed */
	errno = 0;
	if (prctl(PR_SET_THP_EXEC, text | PR_THP_EXEC_ANON, 0, 0, 0) != -1 ||
	    errno != EPERM)
		return 2;
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) != PR_THP_EXEC_SYSTEM)
		return 3;
	/* bit 0: taken at @mode 1, refused at 0 */
	errno = 0;
	if (prctl(PR_SET_THP_EXEC, text, 0, 0, 0) != ((mode & 1) ? 0 : -1) ||
	    (!(mode & 1) && errno != EPERM))
		return 4;
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) !=
	    (int)((mode & 1) ? text : PR_THP_EXEC_SYSTEM))
		return 5;
	/* off, and back to the knob: always */
	if (prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SET, 0, 0, 0) ||
	    prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) != (int)PR_THP_EXEC_SET)
		return 6;
	if (prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SYSTEM, 0, 0, 0))
		return 7;
	return 0;
}

/*
 * The knobs are the ceiling of what a process without CAP_SYS_RESOURCE
 * may set: a child of the test that dropped to uid 65534 is refused
 * (EPERM, nothing changed) a kind whose knob is at "prctl", and takes one
 * at "always", turns hugetext off and follows the knobs again; the test
 * itself (privileged) takes a kind at "prctl".  The knobs are read when
 * the value is set: a value taken at mode 1 stays when the mode goes to
 * 0.  The knobs are saved and restored.
 */
FIXTURE(prctl_ceiling)
{
	long saved;
};

FIXTURE_SETUP(prctl_ceiling)
{
	self->saved = -1;
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	if (geteuid())
		SKIP(return, "not root: no privilege to drop\n");
	self->saved = mode_read();
}

FIXTURE_TEARDOWN(prctl_ceiling)
{
	if (self->saved >= 0)
		mode_write(self->saved);
}

TEST_F(prctl_ceiling, knob)
{
	const unsigned long text = PR_THP_EXEC_SET | PR_THP_EXEC_FILE;
	int p[2], q[2], status;
	unsigned int mode;
	char c = 0;
	ssize_t n;
	pid_t pid;

	for (mode = 0; mode < 2; mode++) {
		ASSERT_EQ(mode_write(mode), 0);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid)
			_exit(ceiling_steps(mode));
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("knob %u: step %d", mode, WEXITSTATUS(status));
		}
	}
	/* privileged: above the knob */
	ASSERT_EQ(mode_write(0), 0);
	EXPECT_EQ(prctl(PR_SET_THP_EXEC, text | PR_THP_EXEC_ANON, 0, 0, 0), 0);
	EXPECT_EQ(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0), (int)(text | PR_THP_EXEC_ANON));
	EXPECT_EQ(prctl(PR_SET_THP_EXEC, PR_THP_EXEC_SYSTEM, 0, 0, 0), 0);
	/* taken with the knob at 1, kept when it goes to 0 */
	ASSERT_EQ(mode_write(1), 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(pipe(q), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(p[0]);
		close(q[1]);
		if (drop_to(NOBODY) || prctl(PR_SET_THP_EXEC, text, 0, 0, 0) ||
		    write(p[1], &c, 1) != 1 || read(q[0], &c, 1) != 1)
			_exit(1);
		_exit(prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) == (int)text ? 0 : 2);
	}
	close(p[1]);
	close(q[0]);
	/* EOF if the child failed before its write: then it has exited */
	n = read(p[0], &c, 1);
	EXPECT_EQ(n, 1);
	if (n == 1) {
		EXPECT_EQ(mode_write(0), 0);
		EXPECT_EQ(write(q[1], &c, 1), 1);
	}
	close(p[0]);
	close(q[1]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("step %d", WEXITSTATUS(status));
	}
}

#define RND_KNOB "/proc/sys/vm/mmap_rnd_bits"

/* vm.mmap_rnd_bits, saved and restored */
FIXTURE(aslr)
{
	long rnd_saved;
};

FIXTURE_SETUP(aslr)
{
	self->rnd_saved = -1;
	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	if (!self_is_pie())
		SKIP(return, "this program is not a PIE: nothing for the loader to place\n");
	if (access(RND_KNOB, F_OK))
		SKIP(return, "no %s (CONFIG_HAVE_ARCH_MMAP_RND_BITS)\n", RND_KNOB);
	self->rnd_saved = read_num(RND_KNOB);
}

FIXTURE_TEARDOWN(aslr)
{
	if (self->rnd_saved < 0)
		return;
	path_write_num(RND_KNOB, self->rnd_saved);
}

/*
 * @n execs of this PIE with hugetext on for it: false if one was not
 * congruent; *@bits, the bits of randomness its placement keeps, in PMD
 * steps, estimated from the spread: the range of n uniform samples covers
 * (n - 1) / (n + 1) of the space.
 */
static bool aslr_sample(struct __test_metadata *_metadata, int n, double *bits)
{
	unsigned long lo = ~0UL, hi = 0, pmd = read_pmd_pagesize();
	bool congruent = true;
	struct report r;
	int i;

	for (i = 0; i < n; i++) {
		if (run_report("/proc/self/exe", PR_THP_EXEC_SET | PR_THP_EXEC_FILE, 0, &r))
			return false;
		congruent &= r.congruent == 1;
		lo = MIN(lo, r.base);
		hi = MAX(hi, r.base);
	}
	*bits = hi > lo ? log2((double)(hi - lo) / pmd * (n + 1) / (n - 1)) : 0;
	return congruent;
}

#define ASLR_EXECS 64

/*
 * Placing a PIE congruent costs it the address bits below the PMD size,
 * no more: ASLR_EXECS execs are all congruent and spread over
 * mmap_rnd_bits - 9 bits (4K pages, 2M PMDs; +-0.5: the range of ASLR_EXECS
 * uniform samples falls short of 2^-0.5 of its expected span with a
 * probability under 1e-8).  At the largest mmap_rnd_bits the arch
 * takes, at least 19 bits are left, as many as x86-64's default gives
 * without hugetext.
 */
TEST_F_TIMEOUT(aslr, pie_entropy, 120)
{
	double bits, expect, step = log2(read_pmd_pagesize() / getpagesize());
	long max;
	char v[24];

	ASSERT_TRUE(aslr_sample(_metadata, ASLR_EXECS, &bits));
	expect = self->rnd_saved - step;
	ksft_print_msg("mmap_rnd_bits %ld: %d execs keep %.2f bits in PMD steps, %.0f expected\n",
		       self->rnd_saved, ASLR_EXECS, bits, expect);
	EXPECT_GT(bits, expect - 0.5);
	EXPECT_LT(bits, expect + 0.5);

	for (max = 40; max > self->rnd_saved; max--) {
		snprintf(v, sizeof(v), "%ld", max);
		if (!path_write(RND_KNOB, v))
			break;
	}
	ASSERT_TRUE(aslr_sample(_metadata, ASLR_EXECS, &bits));
	expect = max - step;
	ksft_print_msg("mmap_rnd_bits %ld (the largest): %d execs keep %.2f bits, %.0f expected\n",
		       max, ASLR_EXECS, bits, expect);
	EXPECT_GE(expect, 19);
	EXPECT_GT(bits, expect - 0.5);
	EXPECT_LT(bits, expect + 0.5);
}

#define SECURE_EXECS 12

/*
 * No unprivileged setting crosses a secure exec: a process of uid 65534
 * sets hugetext on for itself (the knob at 0) and executes a copy of this
 * program that is set-user-ID root.  The copy runs with AT_SECURE, with
 * PR_THP_EXEC_SYSTEM, and, as a PIE, is placed as with hugetext off:
 * congruent only by chance, 1 in the PMD size over the segments' p_align
 * (512 on x86-64; 32 on arm64, whose linker aligns them to 64K), so at
 * most 5 of SECURE_EXECS execs (more: under 1e-6 by chance).  The same
 * copy without its set-user-ID bit keeps the setting (an ordinary exec)
 * and, as a PIE, is placed congruent at every exec.  Placement is checked
 * where the PIE's blob holds a full PMD region.
 */
TEST(secure_exec)
{
	char dir[] = "hugetext-suid.XXXXXX", exe[64];
	unsigned long mode;
	const unsigned long own = PR_THP_EXEC_SET | PR_THP_EXEC_FILE;
	const uid_t nobody = 65534;
	int i, congruent = 0;
	bool pie = self_is_pie() && BLOB_SIZE >= 2 * read_pmd_pagesize();
	struct report r;

	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_THP_EXEC, 0, 0, 0, 0) < 0)
		SKIP(return, "no PR_SET_THP_EXEC in this kernel\n");
	if (geteuid())
		SKIP(return, "a set-user-ID root program needs root to make\n");
	mode = mode_read();
	ASSERT_NE(mkdtemp(dir), NULL);
	ASSERT_EQ(chmod(dir, 0755), 0);
	snprintf(exe, sizeof(exe), "%s/hugetext", dir);
	ASSERT_EQ(file_copy("/proc/self/exe", exe), 0);
	if (mode_write(0)) {
		unlink(exe);
		rmdir(dir);
		ASSERT_TRUE(0) {
			TH_LOG("cannot write prctl to %s and %s", FILE_KNOB, ANON_KNOB);
		}
	}

	/* an ordinary exec keeps the process's setting */
	if (run_report(exe, own, nobody, &r)) {
		unlink(exe);
		rmdir(dir);
		mode_write(mode);
		SKIP(return, "uid %u cannot execute %s (the directories' modes)\n", nobody, exe);
	}
	/* the knob is restored below whatever happens: no ASSERT before */
	for (i = 0; i < SECURE_EXECS; i++) {
		if (i && run_report(exe, own, nobody, &r))
			r.secure = -1;
		EXPECT_EQ(r.secure, 0);
		EXPECT_EQ(r.prctl, (int)own);
		congruent += r.congruent == 1;
	}
	if (pie)
		EXPECT_EQ(congruent, SECURE_EXECS);
	ksft_print_msg("uid %u, a plain copy: congruent at %d of %d execs\n",
		       nobody, congruent, SECURE_EXECS);

	congruent = 0;
	r.secure = -1;
	for (i = 0; !chmod(exe, 04755) && i < SECURE_EXECS; i++) {
		if (run_report(exe, own, nobody, &r)) {
			r.secure = -1;
			break;
		}
		if (!r.secure)
			break;
		EXPECT_EQ(r.prctl, PR_THP_EXEC_SYSTEM);
		congruent += r.congruent == 1;
	}
	unlink(exe);
	rmdir(dir);
	mode_write(mode);
	ASSERT_NE(r.secure, -1) {
		TH_LOG("the set-user-ID copy could not be made or executed");
	}
	if (!r.secure)
		SKIP(return, "no secure exec: the filesystem is mounted nosuid\n");
	ksft_print_msg("uid %u, its set-user-ID-root copy: congruent at %d of %d execs\n",
		       nobody, congruent, i);
	if (pie)
		EXPECT_LE(congruent, 5);
}

/*
 * The way back, as transhuge.rst gives it.  A program's text PMD-mapped
 * by hugetext 1 (the full region and the padded tail); hugetext 0 then
 * leaves a new program on small pages and counts no hugetext work;
 * split_huge_pages (debugfs) of the running program's text returns it to
 * small pages, its bytes the file's, the program still running, and
 * splits the page cache with it: a new run of the same file, which before
 * the split was PMD-mapped from the cached folios with hugetext 0, now
 * runs on small pages.  Once the programs are gone and the files evicted,
 * FileHugePages is back where it was.
 */
#define SPLIT_DEBUGFS "/sys/kernel/debug/split_huge_pages"
#define ROLLBACK_RUNS 4
#define ROLLBACK_SPLITS 50

FIXTURE(rollback)
{
	struct thp_settings settings;
	struct pad_saved saved;
	size_t pmdsize, base, tail;
	char path[2][64];
	pid_t pid[ROLLBACK_RUNS];
};

/* the vmstat counters of hugetext's work on text, summed */
static long hugetext_work(void)
{
	static const char * const names[] = {
		"thp_exec_fault_alloc", "thp_exec_collapse_alloc", "hugetext_map_ok",
		"thp_exec_pad_tail", "thp_exec_pad_head", NULL
	};
	long sum = 0, v;
	int i;

	for (i = 0; names[i]; i++) {
		v = read_vmstat(names[i]);
		if (v > 0)
			sum += v;
	}
	return sum;
}

FIXTURE_SETUP(rollback)
{
	const char *why;
	int i;

	memset(self->pid, 0, sizeof(self->pid));
	memset(self->path, 0, sizeof(self->path));
	why = pad_unsupported(&self->pmdsize);
	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (why)
		SKIP(return, "%s\n", why);
	if (access(SPLIT_DEBUGFS, W_OK))
		SKIP(return, "no %s (debugfs not mounted, or no CONFIG_DEBUG_FS)\n",
		     SPLIT_DEBUGFS);
	/* the test's file and its child's collapse on one CPU (run_on_one_cpu()) */
	ASSERT_EQ(run_on_one_cpu(), 0);
	self->base = 2 * self->pmdsize;
	self->tail = self->pmdsize / 4 * 3;
	for (i = 0; i < 2; i++) {
		snprintf(self->path[i], sizeof(self->path[i]), "hugetext-rollback%d.%d",
			 i, getpid());
		ASSERT_EQ(pad_write_elf(self->path[i], self->pmdsize, self->base,
					self->tail, PAD_GAP), 0);
		pad_evict(self->path[i]);
	}
	pad_save(&self->saved, &self->settings, THP_NEVER);
	self->settings.exec_enabled = 1;
	thp_write_settings(&self->settings);
	ASSERT_EQ(path_write(PAD_KNOB, "4096"), 0);
	ASSERT_EQ(path_write(RODATA_KNOB, "0"), 0);
	ASSERT_EQ(mode_write(PR_THP_EXEC_FILE), 0);
	khugepaged_settle();
}

FIXTURE_TEARDOWN(rollback)
{
	int i;

	for (i = 0; i < ROLLBACK_RUNS; i++)
		pad_reap(&self->pid[i]);
	pad_restore(&self->saved);
	for (i = 0; i < 2; i++)
		if (self->path[i][0])
			unlink(self->path[i]);
}

TEST_F(rollback, split)
{
	unsigned long pmd = self->pmdsize, base = self->base, data = base + 3 * pmd;
	unsigned long start = 0, end = 0;
	long huge0 = meminfo_kb("FileHugePages"), work0, cached;
	char val[80];
	int i;

	/* hugetext 1: the full region and the padded tail */
	ASSERT_EQ(pad_start(&self->pid[0], self->path[0], PAD_PR_KNOB, data), 0) {
		TH_LOG("%s did not start or reach its store", self->path[0]);
	}
	EXPECT_EQ(pad_smaps(self->pid[0], self->path[0], &start, &end), 2 * pmd);
	EXPECT_EQ(end, base + 3 * pmd);

	/* hugetext 0: a new program on small pages, no hugetext work */
	ASSERT_EQ(mode_write(0), 0);
	work0 = hugetext_work();
	ASSERT_EQ(pad_start(&self->pid[1], self->path[1], PAD_PR_KNOB, data), 0) {
		TH_LOG("%s did not start or reach its store", self->path[1]);
	}
	EXPECT_EQ(pad_smaps(self->pid[1], self->path[1], &start, &end), 0);
	EXPECT_EQ(end, base + 2 * pmd + self->tail);
	EXPECT_EQ(hugetext_work(), work0);
	/* the huge page cache stays: a new run of the first file maps it */
	ASSERT_EQ(pad_start(&self->pid[2], self->path[0], PAD_PR_KNOB, data), 0) {
		TH_LOG("%s did not start or reach its store", self->path[0]);
	}
	cached = pad_smaps(self->pid[2], self->path[0], &start, &end);
	ksft_print_msg("hugetext 0, the first file again: %ld kB PMD-mapped\n", cached >> 10);
	EXPECT_EQ(cached, pmd);
	pad_reap(&self->pid[2]);

	/*
	 * split_huge_pages of the running program's text.  A folio the
	 * program is executing in can be busy (its fault on the migration
	 * entry holds it) and is then left whole: written again, up to
	 * ROLLBACK_SPLITS times, as an admin would repeat it
	 */
	pad_smaps(self->pid[0], self->path[0], &start, &end);
	snprintf(val, sizeof(val), "%d,0x%lx,0x%lx", self->pid[0], start, end);
	for (i = 1; i <= ROLLBACK_SPLITS; i++) {
		ASSERT_EQ(path_write(SPLIT_DEBUGFS, val), 0);
		if (!pad_smaps(self->pid[0], self->path[0], &start, &end))
			break;
		usleep(20000);
	}
	ksft_print_msg("split_huge_pages written %d times\n", MIN(i, ROLLBACK_SPLITS));
	EXPECT_EQ(pad_smaps(self->pid[0], self->path[0], &start, &end), 0);
	EXPECT_EQ(end, base + 3 * pmd);
	EXPECT_TRUE(pad_same(self->pid[0], start, self->path[0], start - base, end - start));
	EXPECT_EQ(waitpid(self->pid[0], NULL, WNOHANG), 0);
	/* and the page cache with it */
	ASSERT_EQ(pad_start(&self->pid[3], self->path[0], PAD_PR_KNOB, data), 0) {
		TH_LOG("%s did not start or reach its store", self->path[0]);
	}
	EXPECT_EQ(pad_smaps(self->pid[3], self->path[0], &start, &end), 0);

	for (i = 0; i < ROLLBACK_RUNS; i++)
		pad_reap(&self->pid[i]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(pad_evict(self->path[i]), 0);
	ksft_print_msg("FileHugePages %ld kB before, %ld kB after\n", huge0,
		       meminfo_kb("FileHugePages"));
	EXPECT_LE(meminfo_kb("FileHugePages"), huge0);
}

/*
 * How many of 16 anonymous mappings of @len in a row start on a PMD
 * boundary; -1 if one could not be made
 */
static int anon_aligned(size_t len, int prot, int flags, size_t pmdsize)
{
	void *maps[16], *gaps[16];
	int i, n = 0, aligned = 0;

	for (i = 0; i < 16; i++, n++) {
		maps[i] = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
		if (maps[i] == MAP_FAILED)
			break;
		/* a page between: a mapping would keep its neighbour's alignment */
		gaps[i] = mmap(NULL, getpagesize(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (gaps[i] == MAP_FAILED) {
			munmap(maps[i], len);
			break;
		}
		aligned += !((unsigned long)maps[i] & (pmdsize - 1));
	}
	for (i = 0; i < n; i++) {
		munmap(maps[i], len);
		munmap(gaps[i], getpagesize());
	}
	return n == 16 ? aligned : -1;
}

/*
 * Anonymous memory is placed as without hugetext, ld.so's reservations for
 * libraries too (ld.so aligns them, not hugetext): a PROT_NONE reservation
 * of 4 PMDs and 64K (a library's span as ld.so would reserve it) and of 32
 * PMDs (a Go or V8 heap's), a thread stack, a MAP_NORESERVE reservation
 * and a readable mapping.  16 in a row are as often on a PMD boundary with
 * hugetext 1 as with 0 (one or two by chance, or all where THP places a
 * mapping whose length is a multiple of the PMD size).
 */
TEST(anon_placement)
{
	static const struct {
		const char *what;
		size_t pmds, extra;
		int prot, flags;
	} cases[] = {
		{ "PROT_NONE reservation", 4, 64 << 10, PROT_NONE, 0 },
		{ "PROT_NONE reservation", 32, 0, PROT_NONE, 0 },
		{ "thread stack (MAP_STACK)", 4, 64 << 10, PROT_NONE, MAP_STACK },
		{ "MAP_NORESERVE reservation", 4, 64 << 10, PROT_NONE, MAP_NORESERVE },
		{ "readable mapping", 4, 64 << 10, PROT_READ, 0 },
	};
	size_t pmdsize = read_pmd_pagesize(), len;
	unsigned long saved;
	unsigned int i;
	int base, n;

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	saved = mode_read();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		len = cases[i].pmds * pmdsize + cases[i].extra;
		ASSERT_EQ(mode_write(0), 0);
		base = anon_aligned(len, cases[i].prot, cases[i].flags, pmdsize);
		ASSERT_EQ(mode_write(PR_THP_EXEC_FILE), 0);
		n = anon_aligned(len, cases[i].prot, cases[i].flags, pmdsize);
		TH_LOG("%zuK %s: %d of 16 on a PMD boundary, %d with hugetext 0",
		       len >> 10, cases[i].what, n, base);
		EXPECT_TRUE(n >= 0 && base >= 0 && (n == base || (n <= 2 && base <= 2)));
	}
	mode_write(saved);
}

/* of 16 read-only mappings of @fd, @len long, in a row: how many on a PMD boundary */
static int file_aligned(int fd, size_t len, size_t pmdsize)
{
	void *maps[16];
	int i, n = 0, aligned = 0;

	for (i = 0; i < 16; i++) {
		maps[n] = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (maps[n] == MAP_FAILED)
			continue;
		aligned += !((unsigned long)maps[n] & (pmdsize - 1));
		n++;
	}
	for (i = 0; i < n; i++)
		munmap(maps[i], len);
	return n == 16 ? aligned : -1;
}

/*
 * A data file on overlayfs is placed as the same file on the filesystem
 * under it (overlayfs asks the real file's filesystem), with hugetext 1 as
 * with 0: 16 read-only mappings of 3 PMDs and a page in a row, of the
 * upper file and of the overlay's, are all on a PMD boundary where that
 * filesystem places mappings through thp_get_unmapped_area() (ext4, xfs,
 * btrfs), and one or two by chance where it places them page-granular.
 * The overlay is mounted in a directory of the current one.
 */
TEST(overlay_data_file)
{
	char dir[] = "hugetext-ovl.XXXXXX", path[6][64], opts[256];
	static const char * const sub[] = { "lower", "upper", "work", "merged" };
	size_t pmdsize = read_pmd_pagesize(), len = 3 * pmdsize + getpagesize();
	int fd, real_fd = -1, i, real = -1, off = -1, on = -1;
	unsigned long saved;

	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	ASSERT_NE(mkdtemp(dir), NULL);
	for (i = 0; i < 4; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, sub[i]);
		ASSERT_EQ(mkdir(path[i], 0755), 0);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 path[0], path[1], path[2]);
	if (mount("overlay", path[3], "overlay", 0, opts)) {
		int err = errno;

		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
		if (err == ENODEV)
			SKIP(return, "no overlayfs in this kernel\n");
		ASSERT_EQ(err, 0);
	}
	snprintf(path[4], sizeof(path[4]), "%s/merged/data", dir);
	snprintf(path[5], sizeof(path[5]), "%s/upper/data", dir);
	fd = open(path[4], O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(ftruncate(fd, len), 0);
	saved = mode_read();
	if (fd >= 0) {
		real_fd = open(path[5], O_RDONLY);
		EXPECT_GE(real_fd, 0);
	}
	if (real_fd >= 0) {
		EXPECT_EQ(mode_write(0), 0);
		real = file_aligned(real_fd, len, pmdsize);
		off = file_aligned(fd, len, pmdsize);
		EXPECT_EQ(mode_write(PR_THP_EXEC_FILE), 0);
		on = file_aligned(fd, len, pmdsize);
		close(real_fd);
	}
	mode_write(saved);
	if (fd >= 0)
		close(fd);
	unlink(path[4]);
	umount(path[3]);
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	TH_LOG("of 16 mappings of a data file, on a PMD boundary: %d of the upper file,",
	       real);
	TH_LOG("%d of the overlay's with hugetext 0, %d with hugetext 1", off, on);
	ASSERT_TRUE(real == 16 || (real >= 0 && real <= 2));
	if (real == 16) {
		EXPECT_EQ(off, 16);
		EXPECT_EQ(on, 16);
	} else {
		EXPECT_TRUE(off >= 0 && off <= 2);
		EXPECT_TRUE(on >= 0 && on <= 2);
	}
}

/*
 * Shared libraries loaded by ld.so: hugetext_lib.so (hugetext_lib.c, 8M
 * of functions, one a 4K page, at least three full PMD-sized regions
 * wherever the linker puts them), found next to this test, is dlopen()ed
 * by a child, which calls every function once, checks what each returns,
 * and waits.  Its page cache is dropped first, as for a program started
 * cold.  With mode 1 the library's load address is a PMD
 * boundary (its text congruent with its file: the linker makes p_vaddr
 * p_offset), every full region of its text is PMD-mapped within 1 s of
 * the calls without the child touching it again, the mapped text equals
 * the file; with 0 no region is PMD-mapped 1 s later.
 * THP is "madvise": no advice, so THP alone maps nothing here.  Variants:
 * the library in the test's directory (ext4, xfs or btrfs place it
 * through thp_get_unmapped_area()); hugetext_lib64k.so, the same linked
 * for 64K pages, which ld.so maps by reserving its span with an anonymous
 * PROT_NONE mapping and mapping the file MAP_FIXED at a 64K boundary
 * inside (how every arm64 library is loaded): placement is ld.so's, so
 * with mode 1 its text is PMD-mapped exactly when that boundary is a PMD
 * one (one load in 32 on 4K pages; so is hugetext_lib.so on arm64, whose
 * linker aligns to 64K by default); and the library copied to an overlayfs
 * mount over a directory of the current one (overlayfs places it as the
 * filesystem under it).
 */
#define LIB_FNS 2048	/* hugetext_lib.c's functions */

/*
 * dl_iterate_phdr() callback: into @data's r[2], the largest p_align of the
 * PT_LOAD segments of the object loaded at r[1] (the page size the linker
 * built it for: 64K for hugetext_lib64k.so, and for every library by
 * default on arm64)
 */
static int lib_align(struct dl_phdr_info *info, size_t size, void *data)
{
	long *r = data;
	int i;

	if (info->dlpi_addr != (unsigned long)r[1])
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    (long)info->dlpi_phdr[i].p_align > r[2])
			r[2] = info->dlpi_phdr[i].p_align;
	return 1;
}

FIXTURE(lib) {
	struct thp_settings settings;
	unsigned long mode_saved;
	size_t pmdsize;
	pid_t pid;
	int pipe;
	char dir[32];		/* overlay's, "" without one */
	char path[PATH_MAX];	/* the library loaded */
};

FIXTURE_VARIANT(lib) {
	const char *so;
	bool overlay;
	int mode;
};

FIXTURE_VARIANT_ADD(lib, on) { .so = "hugetext_lib.so", .mode = 1 };
FIXTURE_VARIANT_ADD(lib, off) { .so = "hugetext_lib.so", .mode = 0 };
FIXTURE_VARIANT_ADD(lib, p64k_on) { .so = "hugetext_lib64k.so", .mode = 1 };
FIXTURE_VARIANT_ADD(lib, p64k_off) { .so = "hugetext_lib64k.so", .mode = 0 };
FIXTURE_VARIANT_ADD(lib, overlay_on) { .so = "hugetext_lib.so", .overlay = true, .mode = 1 };
FIXTURE_VARIANT_ADD(lib, overlay_off) { .so = "hugetext_lib.so", .overlay = true, .mode = 0 };

FIXTURE_SETUP(lib)
{
	static const char * const sub[] = { "lower", "upper", "work", "merged" };
	char so[PATH_MAX], d[4][64], opts[256];
	int i;

	self->pid = 0;
	self->pipe = -1;
	self->dir[0] = 0;
	if (geteuid())
		SKIP(return, "not root: the THP and hugetext settings are root's to write\n");
	if (access(FILE_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	self->pmdsize = read_pmd_pagesize();
	if (self->pmdsize != 2 << 20)
		SKIP(return, "PMD size %zu: the library is laid out for 2M\n", self->pmdsize);
#if !defined(__x86_64__) && !defined(__aarch64__)
	/* the Makefile builds hugetext_lib.so where hugetext_lib.c has code */
	SKIP(return, "no hugetext_lib.so: hugetext_lib.c has no functions for this arch\n");
#endif
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	/* ld.so's read of the library and the child's collapse on one CPU */
	ASSERT_EQ(run_on_one_cpu(), 0);
	ASSERT_EQ(lib_beside_self(variant->so, so, sizeof(so)), 0);
	ASSERT_EQ(access(so, R_OK), 0) {
		TH_LOG("%s: built with this test (the Makefile's TEST_GEN_FILES)", so);
	}
	snprintf(self->path, sizeof(self->path), "%s", so);
	if (variant->overlay) {
		snprintf(self->dir, sizeof(self->dir), "hugetext-lib.XXXXXX");
		ASSERT_NE(mkdtemp(self->dir), NULL);
		for (i = 0; i < 4; i++) {
			snprintf(d[i], sizeof(d[i]), "%s/%s", self->dir, sub[i]);
			ASSERT_EQ(mkdir(d[i], 0755), 0);
		}
		snprintf(self->path, sizeof(self->path), "%s/%s", d[0], variant->so);
		ASSERT_EQ(file_copy(so, self->path), 0);
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
			 d[0], d[1], d[2]);
		if (mount("overlay", d[3], "overlay", 0, opts)) {
			int err = errno;

			/* no teardown after a failed or skipped setup */
			nftw(self->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
			self->dir[0] = 0;
			if (err == ENODEV)
				SKIP(return, "no overlayfs in this kernel\n");
			ASSERT_EQ(err, 0);
		}
		snprintf(self->path, sizeof(self->path), "%s/%s", d[3], variant->so);
	}
	self->mode_saved = mode_read();
	thp_save_settings();
	thp_read_settings(&self->settings);
	self->settings.thp_enabled = THP_MADVISE;
	self->settings.exec_enabled = variant->mode;
	thp_write_settings(&self->settings);
	ASSERT_EQ(mode_write(variant->mode), 0);
}

FIXTURE_TEARDOWN(lib)
{
	char merged[64];

	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->pipe >= 0)
		close(self->pipe);
	if (self->dir[0]) {
		snprintf(merged, sizeof(merged), "%s/merged", self->dir);
		umount(merged);
		nftw(self->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	}
	mode_write(self->mode_saved);
	thp_restore_settings();
}

/*
 * The child: dlopen() @path, call every function, report on @fd the
 * functions that returned a wrong value (-1: not loaded) and the load
 * address, then wait to be killed
 */
static void lib_child(const char *path, int fd)
{
	long r[3] = { -1, 0, 0 };
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	char *fn = h ? dlsym(h, "hugetext_lib_fn") : NULL;
	struct link_map *lm;

	if (fn && !dlinfo(h, RTLD_DI_LINKMAP, &lm)) {
		r[0] = jit_run(fn, LIB_FNS * 4096L);	/* function i returns i */
		r[1] = (long)lm->l_addr;
		dl_iterate_phdr(lib_align, r);
	}
	if (write(fd, r, sizeof(r)) != sizeof(r))
		_exit(1);
	for (;;)
		pause();
}

TEST_F(lib, load)
{
	unsigned long start, end, lo, hi, full;
	bool congruent = true;
	long r[3], pmd = -1;
	int fds[2], ms;

	ASSERT_EQ(pad_evict(self->path), 0);
	ASSERT_EQ(pipe(fds), 0);
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (!self->pid) {
		close(fds[0]);
		lib_child(self->path, fds[1]);
	}
	close(fds[1]);
	self->pipe = fds[0];
	ASSERT_EQ(read(fds[0], r, sizeof(r)), sizeof(r));
	ASSERT_EQ(r[0], 0) {
		TH_LOG("%s: %s", self->path, r[0] < 0 ? "not loaded" : "wrong results");
	}
	/*
	 * ld.so places a library aligned beyond the page size (in a
	 * reservation of its own): hugetext_lib64k.so, and on arm64, whose
	 * linker aligns to 64K by default, hugetext_lib.so too
	 */
	ASSERT_GT(r[2], 0);
	if (r[2] > getpagesize())
		congruent = !(r[1] & (self->pmdsize - 1));
	/* wait up to 1 s for every full region of the text (none if off) */
	for (ms = 0; ms <= 1000; ms += 10) {
		pmd = pad_smaps(self->pid, self->path, &start, &end);
		lo = (start + self->pmdsize - 1) & ~(self->pmdsize - 1);
		hi = end & ~(self->pmdsize - 1);
		full = hi > lo ? hi - lo : 0;
		if (variant->mode && congruent && pmd == (long)full)
			break;
		usleep(10000);
	}
	ksft_print_msg("%s at %#lx, text %#lx-%#lx: %ld of %lu kB PMD-mapped after %d ms\n",
		       variant->so, (unsigned long)r[1], start, end, pmd >> 10, full >> 10,
		       MIN(ms, 1000));
	ASSERT_GE(full, 3 * self->pmdsize);
	if (!variant->mode || !congruent) {
		EXPECT_EQ(pmd, 0);
		return;
	}
	EXPECT_EQ(r[1] & (self->pmdsize - 1), 0);
	EXPECT_EQ(pmd, (long)full);
	EXPECT_TRUE(pad_same(self->pid, start, self->path, start - r[1], end - start));
}

TEST_HARNESS_MAIN
