// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: anonymous executable memory, JIT code, on PMD-sized pages
 * whatever the THP mode (hugetext bit 1), against each mode of the knobs
 * and of THP (fixture jit), and its exclusions (fixture jit_excl).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/*
 * hugetext bit 1: anonymous executable memory, JIT code.  NR_REGIONS 2M
 * regions of anonymous memory, a function in every page, written the way
 * a JIT writes its code cache (read-write, then mprotect() read-execute)
 * or mapped read-write-execute from the start, under hugetext 0..3 and
 * THP "never", "madvise" and "always"; khugepaged is asleep, so what is
 * PMD-mapped came from the fault or from the collapse the process does on
 * its return from mprotect(), except where a test wakes it for three
 * passes over this mm (khugepaged).  Expected: PMD-mapped
 * iff bit 1 is set or THP is "always" (which maps the memory huge at its
 * first write whatever hugetext says); memory never made executable and
 * executable stacks (MAP_GROWSDOWN) are not JIT code.  Bit 1's
 * exclusions, where THP's own rules alone decide (PMD-mapped only under
 * THP "always", as data at its first write): a process whose personality
 * has READ_IMPLIES_EXEC, MADV_NOHUGEPAGE, PR_SET_THP_DISABLE, and code
 * written into half of each region with khugepaged's max_ptes_none at 0.
 * Code a forked child still shares is never copied by a collapse.  Every
 * function is called and its result checked before and after, so the
 * code executed is the code written.
 */
struct jit_case {
	struct thp_settings settings;
	unsigned long mode_saved;
	size_t pmdsize, len;
	char *reserve, *code;
};

FIXTURE(jit)
{
	struct jit_case c;
};

FIXTURE_VARIANT(jit)
{
	int mode;
	enum thp_enabled thp;
};

FIXTURE_VARIANT_ADD(jit, off_never) { .mode = 0, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit, off_madvise) { .mode = 0, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit, off_always) { .mode = 0, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(jit, text_never) { .mode = 1, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit, text_madvise) { .mode = 1, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit, text_always) { .mode = 1, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(jit, jit_never) { .mode = 2, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit, jit_madvise) { .mode = 2, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit, jit_always) { .mode = 2, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(jit, both_never) { .mode = 3, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit, both_madvise) { .mode = 3, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit, both_always) { .mode = 3, .thp = THP_ALWAYS };

/* the jit and jit_excl fixtures' setup: hugetext @mode, THP @thp */
static void jit_case_setup(struct __test_metadata *_metadata, struct jit_case *c,
			   int mode, enum thp_enabled thp)
{
	unsigned char page[16];
	cpu_set_t one;

	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (read_vmstat(HT_ANON_ALLOC) < 0)
		SKIP(return, "no hugetext for anonymous executable memory\n");
	SKIP_UNLESS_ROOT(return);
	if (!emit_fn(page, 0))
		SKIP(return, "no code generator for this architecture\n");
	c->pmdsize = read_pmd_pagesize();
	if (!c->pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	c->len = NR_REGIONS * c->pmdsize;
	/*
	 * One CPU for the case: code written on one CPU and made executable
	 * on another can leave its last folios in the first CPU's LRU batch,
	 * which the collapse on the return from mprotect() does not drain
	 * (khugepaged's next pass does); the cases test the collapse.
	 */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
	c->reserve = mmap(NULL, c->len + c->pmdsize, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(c->reserve, MAP_FAILED);
	c->code = (char *)(((unsigned long)c->reserve + c->pmdsize - 1) &
			   ~(c->pmdsize - 1));

	c->mode_saved = mode_read();
	thp_save_settings();
	thp_read_settings(&c->settings);
	c->settings.thp_enabled = thp;
	c->settings.hugepages[sz2ord(c->pmdsize, getpagesize())].enabled = THP_INHERIT;
	c->settings.khugepaged.scan_sleep_millisecs = 600000;
	c->settings.khugepaged.alloc_sleep_millisecs = 600000;
	/* khugepaged_awake() writes these settings again: the mode with them */
	settings_set_mode(&c->settings, mode);
	thp_write_settings(&c->settings);
	ASSERT_EQ(mode_write(mode), 0);
}

static void jit_case_teardown(struct jit_case *c)
{
	mode_write(c->mode_saved);
	thp_restore_settings();
	munmap(c->reserve, c->len + c->pmdsize);
}

/*
 * The cases where no bit of hugetext decides (memory never made
 * executable, bit 1's exclusions): under hugetext 0 and 2 and each THP
 * mode.  Bit 0 is file text only, so hugetext 1 and 3 would repeat them
 * case for case (the cases where bit 1 decides run under all 12).
 */
FIXTURE(jit_excl)
{
	struct jit_case c;
};

FIXTURE_VARIANT(jit_excl)
{
	int mode;
	enum thp_enabled thp;
};

FIXTURE_VARIANT_ADD(jit_excl, off_never) { .mode = 0, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit_excl, off_madvise) { .mode = 0, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit_excl, off_always) { .mode = 0, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(jit_excl, jit_never) { .mode = 2, .thp = THP_NEVER };
FIXTURE_VARIANT_ADD(jit_excl, jit_madvise) { .mode = 2, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(jit_excl, jit_always) { .mode = 2, .thp = THP_ALWAYS };

FIXTURE_SETUP(jit)
{
	jit_case_setup(_metadata, &self->c, variant->mode, variant->thp);
}

FIXTURE_TEARDOWN(jit)
{
	jit_case_teardown(&self->c);
}

FIXTURE_SETUP(jit_excl)
{
	jit_case_setup(_metadata, &self->c, variant->mode, variant->thp);
}

FIXTURE_TEARDOWN(jit_excl)
{
	jit_case_teardown(&self->c);
}

/*
 * PMD-mapped regions of the code range @code, @len, polled for up to @secs
 * seconds until they are @want
 */
static int jit_huge(char *code, size_t len, size_t pmdsize, int want, int secs)
{
	int n, tries = secs * 10;

	for (;;) {
		for (n = NR_REGIONS; n >= 0; n--)
			if (check_huge_anon(code, len, n, pmdsize))
				break;
		if (n == want || tries-- <= 0)
			return n;
		usleep(100000);
	}
}

/*
 * The code regions that are PMD-mapped where @jit (hugetext bit 1, the
 * knob's or the process's) and THP's @thp decide: all where bit 1 takes
 * JIT code or THP "always" takes any anonymous memory, else none
 */
static int jit_want(bool jit, enum thp_enabled thp)
{
	return jit || thp == THP_ALWAYS ? NR_REGIONS : 0;
}

/* written read-write, then made executable: the JIT's way */
TEST_F(jit, mprotect)
{
	int want = jit_want(variant->mode & 2, variant->thp);
	long ev, ev0 = read_vmstat(HT_ANON_ALLOC);
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	ASSERT_EQ(mprotect(code, self->c.len, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	/* 3 s: a kernel may collapse after mprotect() asynchronously */
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, want ? 3 : 0), want);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	/* both regions under bit 1 (THP "always" made them huge as data) */
	ev = read_vmstat(HT_ANON_ALLOC) - ev0;
	EXPECT_TRUE(!(variant->mode & 2) ? ev == 0 :
		    variant->thp == THP_ALWAYS || ev >= NR_REGIONS) {
		TH_LOG("%s +%ld", HT_ANON_ALLOC, ev);
	}
}

/* read-write-execute from the start: huge at the first (write) fault */
TEST_F(jit, rwx_fault)
{
	int want = jit_want(variant->mode & 2, variant->thp);
	long ev, ev0 = read_vmstat(HT_ANON_ALLOC);
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE | PROT_EXEC, 0), code);
	jit_emit(code, self->c.len);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, 0), want);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	/* each region counted under bit 1 alone: THP "always" maps it as data */
	ev = read_vmstat(HT_ANON_ALLOC) - ev0;
	EXPECT_TRUE(!(variant->mode & 2) ? ev == 0 :
		    variant->thp == THP_ALWAYS || ev >= NR_REGIONS) {
		TH_LOG("%s +%ld", HT_ANON_ALLOC, ev);
	}
}

/* written, made read-only, never executable: not JIT code */
TEST_F(jit_excl, noexec)
{
	int want = jit_want(false, variant->thp);
	long ev0 = read_vmstat(HT_ANON_ALLOC);
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	ASSERT_EQ(mprotect(code, self->c.len, PROT_READ), 0);
	usleep(1000000);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, 0), want);
	EXPECT_EQ(read_vmstat(HT_ANON_ALLOC) - ev0, 0);
}

/*
 * khugepaged_awake() for the jit fixture's code: three full passes within
 * 30 s, reported after @when.  Under THP "never" only hugetext bit 1 (at
 * mprotect() to executable) registers this mm's anonymous memory with
 * khugepaged, which otherwise may not scan this mm or not run at all:
 * there 5 s and no passes required.
 */
static void jit_wake_khugepaged(struct __test_metadata *_metadata,
				struct thp_settings *settings, size_t pmdsize,
				int mode, enum thp_enabled thp, const char *when)
{
	bool registered = thp != THP_NEVER || (mode & 2);
	int passes = khugepaged_awake(settings, pmdsize, 3, registered ? 30 : 5);

	ksft_print_msg("%skhugepaged: %d full passes\n", when, passes);
	if (registered)
		EXPECT_GE(passes, 3);
}

/*
 * khugepaged awake for three full passes over this mm: the JIT code it
 * may not take stays on small pages, what the fault or mprotect() made
 * huge stays huge.
 */
TEST_F_TIMEOUT(jit, khugepaged, 60)
{
	int want = jit_want(variant->mode & 2, variant->thp);
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	ASSERT_EQ(mprotect(code, self->c.len, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	jit_wake_khugepaged(_metadata, &self->c.settings, self->c.pmdsize,
			    variant->mode, variant->thp, "");
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, want ? 3 : 0), want);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
}

/*
 * prctl(PR_SET_HT): the process's own bit 1, the opposite of the
 * knob's, decides for memory mapped read-write-execute; after
 * PR_HT_SYSTEM a new mapping follows the knob again
 */
TEST_F(jit, prctl)
{
	unsigned long own = variant->mode & 2 ? PR_HT_SET :
			    PR_HT_SET | PR_HT_ANON;
	int want = jit_want(own & PR_HT_ANON, variant->thp);
	char *code = self->c.code;

	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no " PR_SET_HT_NAME " in this kernel\n");
	ASSERT_EQ(prctl(PR_SET_HT, own, 0, 0, 0), 0);
	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE | PROT_EXEC, 0), code);
	jit_emit(code, self->c.len);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, 0), want);
	EXPECT_EQ(jit_run(code, self->c.len), 0);

	ASSERT_EQ(prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0), 0);
	want = jit_want(variant->mode & 2, variant->thp);
	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE | PROT_EXEC, 0), code);
	jit_emit(code, self->c.len);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, 0), want);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
}

/* an executable stack is not JIT code: THP's own rules only */
TEST_F(jit, stack)
{
	bool huge = variant->thp == THP_ALWAYS;
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_GROWSDOWN), code);
	jit_emit(code, self->c.len);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	EXPECT_TRUE(huge || !jit_huge(code, self->c.len, self->c.pmdsize, 0, 0));
}

/*
 * bit 1's exclusions: write the code read-write, make it executable, run
 * it, and find it PMD-mapped only where THP "always" made it huge at its
 * first write; 1 s for a collapse that would come after mprotect()
 */
static void jit_excluded(struct __test_metadata *_metadata, char *code,
			 size_t len, size_t pmdsize, enum thp_enabled thp)
{
	int want = jit_want(false, thp);

	ASSERT_EQ(mprotect(code, len, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(jit_run(code, len), 0);
	usleep(1000000);
	EXPECT_EQ(jit_huge(code, len, pmdsize, want, 0), want);
	EXPECT_EQ(jit_run(code, len), 0);
}

/* READ_IMPLIES_EXEC: all the process's readable memory is executable */
TEST_F(jit_excl, read_implies_exec)
{
	char *code = self->c.code;

	ASSERT_NE(personality(READ_IMPLIES_EXEC), -1);
	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	jit_excluded(_metadata, code, self->c.len, self->c.pmdsize, variant->thp);
}

/* MADV_NOHUGEPAGE on the code: refused whatever THP and hugetext say */
TEST_F(jit_excl, nohugepage)
{
	char *code = self->c.code;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	ASSERT_EQ(madvise(code, self->c.len, MADV_NOHUGEPAGE), 0);
	jit_emit(code, self->c.len);
	jit_excluded(_metadata, code, self->c.len, self->c.pmdsize, THP_NEVER);
}

/* PR_SET_THP_DISABLE: the process refuses huge pages altogether */
TEST_F(jit_excl, thp_disable)
{
	char *code = self->c.code;

	ASSERT_EQ(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), 0);
	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	jit_excluded(_metadata, code, self->c.len, self->c.pmdsize, THP_NEVER);
}

/* max_ptes_none 0: half a region of code is not collapsed into a 2M page */
TEST_F(jit_excl, sparse)
{
	char *code = self->c.code;
	size_t off;
	int want;

	thp_write_num("khugepaged/max_ptes_none", 0);
	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	for (off = 0; off < self->c.len; off += self->c.pmdsize)
		jit_emit(code + off, self->c.pmdsize / 2);
	/* only the written halves are run (the rest is not code) */
	ASSERT_EQ(mprotect(code, self->c.len, PROT_READ | PROT_EXEC), 0);
	for (off = 0; off < self->c.len; off += self->c.pmdsize)
		EXPECT_EQ(jit_run(code + off, self->c.pmdsize / 2), 0);
	usleep(1000000);
	want = jit_want(false, variant->thp);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, 0), want);
}

/* pages of [@p, @p + @len) present and mapped by this process alone */
static long exclusive_pages(const char *p, size_t len)
{
	long n = 0, psize = getpagesize();
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t e;
	size_t off;

	if (fd < 0)
		return -1;
	for (off = 0; off < len; off += psize) {
		if (pread(fd, &e, sizeof(e), ((unsigned long)p + off) / psize * sizeof(e)) !=
		    sizeof(e)) {
			n = -1;
			break;
		}
		n += (e >> 63) & (e >> 56) & 1;	/* present, exclusively mapped */
	}
	close(fd);
	return n;
}

/*
 * A pre-forking server: the code is written, a forked child keeps it
 * mapped, the parent rewrites three quarters of each region (those pages
 * become its own) and makes the range executable.  The quarter still
 * shared, fewer pages than khugepaged's max_ptes_shared, is not copied by
 * a collapse while the child lives: nothing is PMD-mapped and as many
 * pages stay shared.  Once the child has exited the range is this
 * process's alone, and khugepaged, awake for three full passes, collapses
 * it where it takes JIT code: under hugetext bit 1, and under THP "always"
 * where the series' khugepaged takes a range no PTE of which is writable
 * (HT_THP_COLLAPSES_SHARED_CODE).
 */
TEST_F_TIMEOUT(jit, fork_shared, 60)
{
	int want = jit_want(variant->mode & 2,
			    HT_THP_COLLAPSES_SHARED_CODE ? variant->thp : THP_NEVER);
	long psize = getpagesize(), npages = self->c.len / psize, shared;
	char *code = self->c.code;
	size_t r, off;
	int fds[2];
	pid_t pid;
	char c;

	ASSERT_EQ(jit_map(code, self->c.len, PROT_READ | PROT_WRITE, 0), code);
	jit_emit(code, self->c.len);
	ASSERT_EQ(pipe(fds), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		/* shares the code until the parent is done */
		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	close(fds[0]);
	/* a store to each page's last byte, the 0xcc after its function */
	for (r = 0; r < self->c.len; r += self->c.pmdsize)
		for (off = 0; off < self->c.pmdsize / 4 * 3; off += psize)
			code[r + off + psize - 1] = 0xcc;
	shared = npages - exclusive_pages(code, self->c.len);
	ksft_print_msg("%ld of %ld pages shared with the child\n", shared, npages);
	ASSERT_EQ(shared, npages / 4);	/* what the case is about */
	ASSERT_EQ(mprotect(code, self->c.len, PROT_READ | PROT_EXEC), 0);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
	usleep(1000000);
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, 0, 0), 0);
	EXPECT_EQ(npages - exclusive_pages(code, self->c.len), shared);
	close(fds[1]);
	ASSERT_EQ(waitpid(pid, NULL, 0), pid);

	EXPECT_EQ(jit_run(code, self->c.len), 0);
	jit_wake_khugepaged(_metadata, &self->c.settings, self->c.pmdsize,
			    variant->mode, variant->thp, "child gone; ");
	EXPECT_EQ(jit_huge(code, self->c.len, self->c.pmdsize, want, want ? 3 : 0), want);
	EXPECT_EQ(exclusive_pages(code, self->c.len), npages);
	EXPECT_EQ(jit_run(code, self->c.len), 0);
}

TEST_HARNESS_MAIN
