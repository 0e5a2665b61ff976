// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: the cap on a process's PMD-mapped code and its sampler, on
 * children of the test that keep some of their text and JIT regions hot
 * (fixture sampler).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/*
 * The cap: with khugepaged's cap (CAP_KNOB) at N, a process keeps at most
 * N regions of code PMD-mapped, text and JIT code together, the hottest
 * ones, chosen by sampling accessed bits every SAMPLE_KNOB
 * (100 here).  A child of the test maps SAMPLER_REGIONS full regions of a
 * file of functions, each its own mapping (a region apart, so that
 * /proc/PID/smaps tells them apart), and, for the JIT cases,
 * SAMPLER_JIT regions of anonymous memory it writes functions into and
 * makes executable; then it calls every function of the regions it is
 * told are hot, every 2 ms, checking each result (the bytes executed are
 * the file's), and switches to its second hot set when told.  The test
 * polls the child's smaps every 50 ms: the PMD-mapped set must become
 * the expected one and hold for a second, within MAX_PERIODS sampling
 * periods, and never exceed the cap on the way.
 *
 * Regions are numbered as in hot sets: text 0..SAMPLER_REGIONS - 1, then
 * the JIT regions.  Where text is read huge at its first fault
 * (HT_FAULT_ALLOC in /proc/vmstat) an uncapped process gets the
 * regions it runs; where new text is collapsed at mmap() (a kernel
 * without that counter) it gets all of them.
 */
#define SAMPLER_REGIONS	10
#define SAMPLER_JIT	2
#define SAMPLE_MS	100
/*
 * Sampling periods for a hot set to be PMD-mapped: the design needs two
 * or three and the collapse; 3 to 7 measured under QEMU TCG, 17 on a
 * loaded host with both regions read from disk.
 */
#define MAX_PERIODS	60
#define SAMPLER_WAIT	(MAX_PERIODS * SAMPLE_MS / 1000.0 + 5)
#define BIT(i)		(1u << (i))
#define JIT0		SAMPLER_REGIONS

/* the file, the children, and where they map their regions */
struct hotset {
	size_t pmdsize, span;
	char path[64];
	int fd;
	char *reserve, *base;
	int *phase;		/* shared: 1 switches the children to hot2 */
	bool first_fault;
	pid_t pid[2];
};

FIXTURE(sampler)
{
	struct thp_settings settings;
	unsigned long mode_saved;
	long cap_saved, sample_saved;
	struct hotset h;
};

/* region @i (text, then JIT): every other PMD of the reservation */
static char *sampler_region(struct hotset *h, int i)
{
	return h->base + 2 * (size_t)i * h->pmdsize;
}

FIXTURE_SETUP(sampler)
{
	struct hotset *h = &self->h;
	unsigned char page[16];

	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (access(CAP_KNOB, F_OK) || access(SAMPLE_KNOB, F_OK))
		SKIP(return, "no %s in this kernel\n", CAP_KNOB);
	SKIP_UNLESS_ROOT(return);
	if (!emit_fn(page, 0))
		SKIP(return, "no code generator for this architecture\n");
	if (getpagesize() != 4096)
		SKIP(return, "page size %d: the functions are laid out for 4K\n",
		     getpagesize());
	h->pmdsize = read_pmd_pagesize();
	if (!h->pmdsize)
		SKIP(return, "Unable to read PMD size\n");
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	h->first_fault = read_vmstat(HT_FAULT_ALLOC) >= 0;

	snprintf(h->path, sizeof(h->path), "hugetext-sampler.%d", getpid());
	ASSERT_EQ(write_functions(h->path, SAMPLER_REGIONS * h->pmdsize), 0);
	h->fd = open(h->path, O_RDONLY);
	ASSERT_GE(h->fd, 0);
	/* each case reads the file from disk: its page cache as at boot */
	posix_fadvise(h->fd, 0, 0, POSIX_FADV_DONTNEED);
	h->span = (2 * (SAMPLER_REGIONS + SAMPLER_JIT) + 1) * h->pmdsize;
	h->reserve = mmap(NULL, h->span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(h->reserve, MAP_FAILED);
	h->base = (char *)(((unsigned long)h->reserve + h->pmdsize - 1) & ~(h->pmdsize - 1));
	h->phase = mmap(NULL, sizeof(*h->phase), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(h->phase, MAP_FAILED);

	self->mode_saved = mode_read();
	self->cap_saved = read_num(CAP_KNOB);
	self->sample_saved = read_num(SAMPLE_KNOB);
	thp_save_settings();
	thp_read_settings(&self->settings);
	self->settings.thp_enabled = THP_MADVISE;
	self->settings.hugepages[sz2ord(h->pmdsize, getpagesize())].enabled = THP_INHERIT;
	self->settings.khugepaged.scan_sleep_millisecs = 100;
	self->settings.khugepaged.alloc_sleep_millisecs = 100;
	self->settings.khugepaged.pages_to_scan = 16384;
	/* defrag_never writes these settings again: the mode with them */
	settings_set_mode(&self->settings, PR_HT_FILE);
	thp_write_settings(&self->settings);
	ASSERT_EQ(mode_write(PR_HT_FILE), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "0"), 0);
	ASSERT_EQ(path_write_num(SAMPLE_KNOB, SAMPLE_MS), 0);
}

FIXTURE_TEARDOWN(sampler)
{
	struct hotset *h = &self->h;
	int i;

	for (i = 0; i < 2; i++)
		if (h->pid[i] > 0) {
			kill(h->pid[i], SIGKILL);
			waitpid(h->pid[i], NULL, 0);
		}
	path_write_num(CAP_KNOB, self->cap_saved);
	path_write_num(SAMPLE_KNOB, self->sample_saved);
	mode_write(self->mode_saved);
	thp_restore_settings();
	munmap(h->phase, sizeof(*h->phase));
	munmap(h->reserve, h->span);
	close(h->fd);
	unlink(h->path);
}

/* MADV_COLLAPSE of @len at @p in the process of @pidfd: 0 or the errno */
static int sampler_collapse(int pidfd, char *p, size_t len)
{
	struct iovec iov = { p, len };
	int tries = 10, err;

	for (;;) {
		err = syscall(__NR_process_madvise, pidfd, &iov, 1, MADV_COLLAPSE, 0) < 0 ?
		      errno : 0;
		if (err != EAGAIN || !--tries)
			return err;
		usleep(20000);
	}
}

/*
 * MADV_NOHUGEPAGE over this program's own executable mappings (their span,
 * pad_smaps()): its text is code the cap counts too, and a binary whose
 * text segment begins with its ELF headers (arm64: 4.2-4.8 MB) has full
 * regions of it, one hot with the child's loop, which would take a slot
 * from the fixture's regions.  0, or -1 if it could not be opted out.
 */
static int sampler_own_text_out(void)
{
	unsigned long start, end;
	char exe[PATH_MAX];

	if (self_exe(exe, sizeof(exe)))
		return -1;
	if (pad_smaps(getpid(), exe, &start, &end) < 0 || start >= end)
		return -1;
	return madvise((void *)start, end - start, MADV_NOHUGEPAGE);
}

/* the child: map, write the JIT code, say so on @ready, run @hot */
static void sampler_child(struct hotset *h, int jit, unsigned long pr,
			  unsigned int hot, unsigned int hot2, int ready, pid_t parent)
{
	size_t pmd = h->pmdsize, off;
	unsigned int set;
	int i;

	/* gone with the test, even one the harness kills */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(3);
	if (pr && prctl(PR_SET_HT, pr, 0, 0, 0))
		_exit(3);
	if (sampler_own_text_out())
		_exit(3);
	for (i = 0; i < SAMPLER_REGIONS; i++)
		if (mmap(sampler_region(h, i), pmd, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_FIXED, h->fd, i * pmd) == MAP_FAILED)
			_exit(3);
	for (i = 0; i < jit; i++) {
		char *p = jit_map(sampler_region(h, JIT0 + i), pmd,
				  PROT_READ | PROT_WRITE, 0);

		if (p == MAP_FAILED)
			_exit(3);
		jit_emit(p, pmd);
		if (mprotect(p, pmd, PROT_READ | PROT_EXEC))
			_exit(3);
	}
	if (write(ready, "r", 1) != 1)
		_exit(3);
	close(ready);
	for (;;) {
		set = __atomic_load_n(h->phase, __ATOMIC_RELAXED) ? hot2 : hot;
		for (i = 0; i < JIT0 + jit; i++) {
			char *r = sampler_region(h, i);
			/* a text region's functions return their file page */
			unsigned int first = i < JIT0 ? i * pmd / 4096 : 0;

			if (!(set & BIT(i)))
				continue;
			for (off = 0; off < pmd; off += 4096)
				if (((fn_t)(r + off))() != first + off / 4096)
					_exit(2);
		}
		usleep(2000);
	}
}

/*
 * Child @n: its @jit JIT regions, its prctl @pr (0: none), hot sets @hot
 * and, once h->phase is set, @hot2.  0 once it runs, -1 if it did not.
 */
static int sampler_spawn(struct hotset *h, int n, int jit,
			 unsigned long pr, unsigned int hot, unsigned int hot2)
{
	pid_t parent = getpid();
	int fds[2];
	char c;

	if (pipe(fds))
		return -1;
	h->pid[n] = fork();
	if (h->pid[n] < 0)
		return -1;
	if (!h->pid[n]) {
		close(fds[0]);
		sampler_child(h, jit, pr, hot, hot2, fds[1], parent);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], &c, 1) == 1 ? 0 : -1;
	close(fds[0]);
	return n;
}

static void sampler_stop(struct hotset *h, int n)
{
	if (h->pid[n] > 0) {
		kill(h->pid[n], SIGKILL);
		waitpid(h->pid[n], NULL, 0);
	}
	h->pid[n] = 0;
}

/* bit i: region i of child @n is PMD-mapped (one read of its smaps); -1: gone */
static long sampler_mask(struct hotset *h, int n)
{
	char line[512], perms[8];
	unsigned long s, e;
	long kb, mask = 0;
	int i, cur = -1;
	FILE *f;

	snprintf(line, sizeof(line), "/proc/%d/smaps", h->pid[n]);
	f = fopen(line, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &s, &e, perms) == 3) {
			cur = -1;
			for (i = 0; i < JIT0 + SAMPLER_JIT; i++)
				if (s == (unsigned long)sampler_region(h, i) &&
				    e - s == h->pmdsize)
					cur = i;
			continue;
		}
		if (cur >= 0 &&
		    (sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1 ||
		     sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) &&
		    (size_t)kb << 10 >= h->pmdsize)
			mask |= BIT(cur);
	}
	fclose(f);
	/* a child that died (a wrong result) leaves an empty smaps */
	if (waitpid(h->pid[n], NULL, WNOHANG) == h->pid[n]) {
		h->pid[n] = 0;
		return -1;
	}
	return mask;
}

static const char *sampler_str(unsigned int m, char *buf)
{
	char *o = buf;
	int i;

	*o = 0;
	for (i = 0; i < 32; i++)
		if (m & BIT(i))
			o += sprintf(o, "%s%s%d", o == buf ? "" : ",",
				     i >= JIT0 ? "jit" : "", i >= JIT0 ? i - JIT0 : i);
	return o == buf ? "none" : buf;
}

/*
 * Poll until child i's PMD-mapped regions among @care are want[i], for
 * 1 s in a row, or @timeout seconds pass; a child with more than @cap
 * regions PMD-mapped (0: no cap) in two reads in a row fails at once.
 * One read of smaps is no snapshot: it takes and drops the mmap lock
 * every few mappings, and the sampler splits and collapses under the read
 * lock, so a read slower than a sampling period (TCG on a busy host) can
 * see a region revoked in that period before its split and one granted
 * after it: cap + 1 regions, never PMD-mapped at once.  That read is
 * logged and the next one decides.  The seconds it took, or -1.
 */
static double sampler_wait(struct __test_metadata *_metadata,
			   struct hotset *h, int np,
			   const unsigned int *want, unsigned int care,
			   int cap, double timeout)
{
	double t0 = storm_now(), ok_since = -1, t;
	char a[96], b[96];
	bool all;
	long m;
	int i;

	for (;;) {
		all = true;
		t = storm_now();
		for (i = 0; i < np; i++) {
			m = sampler_mask(h, i);
			if (m < 0) {
				TH_LOG("child %d is gone (a function returned a wrong value?)", i);
				return -1;
			}
			if (cap && __builtin_popcount(m) > cap) {
				TH_LOG("child %d: %s PMD-mapped, cap %d", i,
				       sampler_str(m, a), cap);
				m = sampler_mask(h, i);
				TH_LOG("child %d, read again: %s", i, sampler_str(m, a));
				if (m < 0 || __builtin_popcount(m) > cap)
					return -1;
			}
			if ((m & care) != want[i])
				all = false;
			if (t - t0 > timeout)
				TH_LOG("child %d: %s PMD-mapped, want %s", i,
				       sampler_str(m & care, a), sampler_str(want[i], b));
		}
		if (!all)
			ok_since = -1;
		else if (ok_since < 0)
			ok_since = t;
		if (ok_since >= 0 && t - ok_since >= 1.0) {
			TH_LOG("%.2f s, %.0f sampling periods", ok_since - t0,
			       (ok_since - t0) * 1000 / SAMPLE_MS);
			return ok_since - t0;
		}
		if (t - t0 > timeout)
			return -1;
		usleep(50000);
	}
}

static double sampler_wait1(struct __test_metadata *_metadata,
			    struct hotset *h, unsigned int want, int cap)
{
	return sampler_wait(_metadata, h, 1, &want, ~0u, cap, SAMPLER_WAIT);
}

/*
 * No cap: the regions the child runs, 2 and 5 (all ten where new text is
 * collapsed at mmap()).  Then, with the cap at 1, a new child gets one
 * slot, for region 2; lifting the cap on it, khugepaged maps what the cap
 * held back (region 5, whose page cache the first child had read huge;
 * where new text is collapsed at mmap(), all ten, the never-run ones
 * too).
 */
TEST_F_TIMEOUT(sampler, lift, 180)
{
	unsigned int all = BIT(SAMPLER_REGIONS) - 1;
	unsigned int want = self->h.first_fault ? BIT(2) | BIT(5) : all;

	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, BIT(2) | BIT(5), BIT(7) | BIT(8)), 0);
	ASSERT_GE(sampler_wait(_metadata, &self->h, 1, &want, ~0u, 0, 60), 0);
	sampler_stop(&self->h, 0);

	ASSERT_EQ(path_write(CAP_KNOB, "1"), 0);
	want = self->h.first_fault ? BIT(2) | BIT(5) : BIT(2);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, want, want), 0);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, BIT(2), 1), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "0"), 0);
	want = self->h.first_fault ? BIT(2) | BIT(5) : all;
	EXPECT_GE(sampler_wait(_metadata, &self->h, 1, &want, ~0u, 0, 30), 0);
}

/*
 * Cap 2, regions 2 and 5 hot: exactly those two, never more on the way,
 * the cap's own collapses doing the copying.  MADV_COLLAPSE of a cold
 * region fails with EBUSY (its slots are taken by hotter regions;
 * retrying would not help), of a granted one succeeds.  Then the steady
 * state, 20 periods: the sampler flushes TLB entries at most once in two
 * periods (a region busy all along is sampled, and flushed, once in 8),
 * demotes nothing, and the set stays.
 */
TEST_F_TIMEOUT(sampler, hot, 120)
{
	long f0, d0, p0, c0, np = 0;
	unsigned int want = BIT(2) | BIT(5);
	int pidfd, cold, granted;
	bool kept = true;
	double t0;

	c0 = read_vmstat(HT_CAP_VMSTAT("collapsed"));
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, want, want), 0);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, want, 2), 0);
	TH_LOG("%s +%ld", HT_CAP_VMSTAT("collapsed"), read_vmstat(HT_CAP_VMSTAT("collapsed")) - c0);

	pidfd = syscall(__NR_pidfd_open, self->h.pid[0], 0);
	ASSERT_GE(pidfd, 0);
	cold = sampler_collapse(pidfd, sampler_region(&self->h, 0), self->h.pmdsize);
	granted = sampler_collapse(pidfd, sampler_region(&self->h, 2), self->h.pmdsize);
	close(pidfd);
	EXPECT_EQ(cold, EBUSY);
	EXPECT_EQ(granted, 0);

	f0 = read_vmstat(HT_CAP_VMSTAT("flushed"));
	d0 = read_vmstat(HT_CAP_VMSTAT("demoted"));
	p0 = read_vmstat(HT_CAP_VMSTAT("periods"));
	t0 = storm_now();
	do {
		usleep(SAMPLE_MS * 1000 / 2);
		if (sampler_mask(&self->h, 0) != want)
			kept = false;
		np = read_vmstat(HT_CAP_VMSTAT("periods")) - p0;
	} while (np < 20 && storm_now() - t0 < 30);
	f0 = read_vmstat(HT_CAP_VMSTAT("flushed")) - f0;
	d0 = read_vmstat(HT_CAP_VMSTAT("demoted")) - d0;
	TH_LOG("steady: %ld TLB flushes by the sampler in %ld periods, %ld demotions",
	       f0, np, d0);
	EXPECT_GE(np, 20);
	EXPECT_LE(f0, np / 2);
	EXPECT_EQ(d0, 0);
	EXPECT_TRUE(kept);
}

/* a phase change (7 and 8 hot): the slots move, never more than two */
TEST_F_TIMEOUT(sampler, phase, 120)
{
	long demoted;

	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, BIT(2) | BIT(5), BIT(7) | BIT(8)), 0);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, BIT(2) | BIT(5), 2), 0);
	demoted = read_vmstat(HT_CAP_VMSTAT("demoted"));
	__atomic_store_n(self->h.phase, 1, __ATOMIC_RELAXED);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, BIT(7) | BIT(8), 2), 0);
	EXPECT_GE(read_vmstat(HT_CAP_VMSTAT("demoted")) - demoted, 2);
}

/* two children of the same file, different hot sets: each its own two */
TEST_F_TIMEOUT(sampler, per_process, 120)
{
	unsigned int want[2] = { BIT(1) | BIT(3), BIT(4) | BIT(6) };

	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, want[0], want[0]), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 1, 0, 0, want[1], want[1]), 0);
	EXPECT_GE(sampler_wait(_metadata, &self->h, 2, want, ~0u, 2, SAMPLER_WAIT), 0);
}

/* lowering the cap from 3 to 1 demotes down to one of the hot regions */
TEST_F_TIMEOUT(sampler, lower, 120)
{
	unsigned int want = BIT(0) | BIT(4) | BIT(9);
	long m = 0;
	double t0;

	ASSERT_EQ(path_write(CAP_KNOB, "3"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, 0, want, want), 0);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, want, 3), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "1"), 0);
	t0 = storm_now();
	do {
		m = sampler_mask(&self->h, 0);
		if (m >= 0 && __builtin_popcount(m) == 1 && (m & want))
			break;
		usleep(50000);
	} while (storm_now() - t0 < 10);
	EXPECT_EQ(__builtin_popcount(m), 1);
	EXPECT_TRUE(m & want);
}

/*
 * One budget for code: with mode 3 two JIT regions are
 * PMD-mapped with no cap; with cap 2 and text region 2 and JIT region 0
 * hot, exactly those two, never more than two of text and JIT together;
 * a phase change to text region 7 and JIT region 1 moves the slots
 * between text and JIT code, and the anon counters count it.
 */
TEST_F_TIMEOUT(sampler, jit_budget, 180)
{
	unsigned int jit = BIT(JIT0) | BIT(JIT0 + 1);
	long ac, ad;

	if (read_vmstat(HT_CAP_VMSTAT("anon_collapsed")) < 0)
		SKIP(return, "no hugetext for anonymous executable memory\n");
	ASSERT_EQ(mode_write(PR_HT_FILE | PR_HT_ANON), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, SAMPLER_JIT, 0, 0, 0), 0);
	ASSERT_GE(sampler_wait(_metadata, &self->h, 1, &jit, jit, 0, 30), 0);
	sampler_stop(&self->h, 0);

	ac = read_vmstat(HT_CAP_VMSTAT("anon_collapsed"));
	ad = read_vmstat(HT_CAP_VMSTAT("anon_demoted"));
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, SAMPLER_JIT, 0, BIT(2) | BIT(JIT0),
				BIT(7) | BIT(JIT0 + 1)), 0);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, BIT(2) | BIT(JIT0), 2), 0);
	__atomic_store_n(self->h.phase, 1, __ATOMIC_RELAXED);
	ASSERT_GE(sampler_wait1(_metadata, &self->h, BIT(7) | BIT(JIT0 + 1), 2), 0);
	sampler_stop(&self->h, 0);
	ac = read_vmstat(HT_CAP_VMSTAT("anon_collapsed")) - ac;
	ad = read_vmstat(HT_CAP_VMSTAT("anon_demoted")) - ad;
	TH_LOG("%s +%ld, %s +%ld", HT_CAP_VMSTAT("anon_collapsed"), ac,
	       HT_CAP_VMSTAT("anon_demoted"), ad);
	EXPECT_GE(ac, 2);
	EXPECT_GE(ad, 1);
}

/* two children with text and JIT code, cap 2: each its own hot two */
TEST_F_TIMEOUT(sampler, jit_per_process, 120)
{
	unsigned int want[2] = { BIT(1) | BIT(JIT0), BIT(4) | BIT(JIT0 + 1) };

	if (read_vmstat(HT_CAP_VMSTAT("anon_collapsed")) < 0)
		SKIP(return, "no hugetext for anonymous executable memory\n");
	ASSERT_EQ(mode_write(PR_HT_FILE | PR_HT_ANON), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, SAMPLER_JIT, 0, want[0], want[0]), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 1, SAMPLER_JIT, 0, want[1], want[1]), 0);
	EXPECT_GE(sampler_wait(_metadata, &self->h, 2, want, ~0u, 2, SAMPLER_WAIT), 0);
}

/*
 * JIT code alone (mode 2) under cap 2: both hot JIT regions
 * get slots (with nothing granting them, the cap would keep JIT code on
 * small pages altogether)
 */
TEST_F_TIMEOUT(sampler, jit_only, 120)
{
	unsigned int jit = BIT(JIT0) | BIT(JIT0 + 1);

	if (read_vmstat(HT_CAP_VMSTAT("anon_collapsed")) < 0)
		SKIP(return, "no hugetext for anonymous executable memory\n");
	ASSERT_EQ(mode_write(PR_HT_ANON), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, SAMPLER_JIT, 0, jit, jit), 0);
	EXPECT_GE(sampler_wait(_metadata, &self->h, 1, &jit, jit, 2, SAMPLER_WAIT), 0);
}

/*
 * A process that opted in alone (its prctl, mode 0) is
 * capped too, and gets its slots: the sampler visits its mm
 */
TEST_F_TIMEOUT(sampler, prctl, 120)
{
	unsigned int want = BIT(2) | BIT(5);

	ASSERT_EQ(mode_write(0), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(sampler_spawn(&self->h, 0, 0, PR_HT_SET | PR_HT_FILE,
				want, want), 0);
	EXPECT_GE(sampler_wait1(_metadata, &self->h, want, 2), 0);
}

/*
 * hugetext off for every process (the knob 0, no prctl), cap 2, and an
 * mm khugepaged knows (MADV_HUGEPAGE data): the sampler visits no mm,
 * so no period is counted.  The cap is about code: data faulted in a
 * process with hugetext on (3) and cap 2 is PMD-mapped all the same.
 */
TEST_F(sampler, off)
{
	size_t pmd = self->h.pmdsize;
	char *d = mmap(NULL, 2 * pmd, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;
	long p0;

	ASSERT_NE(d, MAP_FAILED);
	ASSERT_EQ(mode_write(0), 0);
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	ASSERT_EQ(madvise(d, 2 * pmd, MADV_HUGEPAGE), 0);
	memset(d, 1, 2 * pmd);
	p0 = read_vmstat(HT_CAP_VMSTAT("periods"));
	usleep(5 * SAMPLE_MS * 1000);
	EXPECT_EQ(read_vmstat(HT_CAP_VMSTAT("periods")), p0);
	munmap(d, 2 * pmd);

	/* a mapping of one PMD of its own (the JIT region 0's place) */
	ASSERT_EQ(mode_write(PR_HT_FILE | PR_HT_ANON), 0);
	a = jit_map(sampler_region(&self->h, JIT0), pmd, PROT_READ | PROT_WRITE, 0);
	ASSERT_NE(a, MAP_FAILED);
	ASSERT_EQ(madvise(a, pmd, MADV_HUGEPAGE), 0);
	memset(a, 2, pmd);
	EXPECT_TRUE(check_huge_anon(a, pmd, 1, pmd));
}

/* free blocks of a PMD's order or more, all zones (/proc/buddyinfo) */
static long free_pmd_blocks(size_t pmd)
{
	unsigned int order = __builtin_ctzl(pmd) - __builtin_ctzl(getpagesize());
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[512], *q;
	unsigned int o;
	long sum = 0, n;
	int k;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		q = strstr(line, "zone");
		if (!q)
			continue;
		q += 4;
		while (*q == ' ')
			q++;
		while (*q && *q != ' ')
			q++;
		for (o = 0; sscanf(q, "%ld%n", &n, &k) == 1; o++, q += k)
			if (o >= order)
				sum += n;
	}
	fclose(f);
	return sum;
}

struct fragments {
	char *mem, *thp[4];
	size_t len, thp_len[4];
	long unusable;		/* free blocks THPs could not take */
};

/*
 * Fragment free memory: fill all but 64 MB of it with small pages, free
 * all of them but one in each physical PMD-sized block (pagemap), and take
 * the whole free blocks left with THPs (defrag "never": no compaction).
 * The free PMD-order blocks left, -1 on error.
 */
static long fragment(struct fragments *fr, size_t pmd)
{
	size_t page = getpagesize(), n, i, run = 0, nseen = 0, want, m;
	unsigned int shift = __builtin_ctzl(pmd) - __builtin_ctzl(page);
	long free_kb = meminfo_kb("MemFree"), blocks, prev = 0;
	unsigned char *seen = NULL;
	uint64_t *pm;
	int round, fd;
	char *a;

	memset(fr, 0, sizeof(*fr));
	if (free_kb < 256 * 1024)
		return -1;
	fr->len = ((free_kb - 64 * 1024) * 1024UL) & ~(pmd - 1);
	fr->mem = mmap(NULL, fr->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fr->mem == MAP_FAILED) {
		fr->mem = NULL;
		return -1;
	}
	/* MADV_DONTFORK: the children fork cheaply and share none of it */
	if (madvise(fr->mem, fr->len, MADV_DONTFORK) ||
	    madvise(fr->mem, fr->len, MADV_NOHUGEPAGE) ||
	    madvise(fr->mem, fr->len, MADV_POPULATE_WRITE))
		return -1;
	n = fr->len / page;
	want = n * sizeof(*pm);
	pm = malloc(want);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (!pm || fd < 0 ||
	    pread(fd, pm, want, (unsigned long)fr->mem / page * sizeof(*pm)) != (ssize_t)want) {
		free(pm);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* keep the first page found in each physical block */
	for (i = 0; i <= n; i++) {
		bool keep = false;

		if (i < n && (pm[i] >> 63)) {
			size_t b = (pm[i] & ((1ULL << 55) - 1)) >> shift;

			if (b >= nseen) {
				m = (b + 1) * 2;
				seen = realloc(seen, m);
				if (!seen) {
					free(pm);
					return -1;
				}
				memset(seen + nseen, 0, m - nseen);
				nseen = m;
			}
			keep = !seen[b];
			seen[b] = 1;
		}
		if (i < n && !keep) {
			run++;
			continue;
		}
		if (run)
			madvise(fr->mem + (i - run) * page, run * page, MADV_DONTNEED);
		run = 0;
	}
	free(seen);
	free(pm);

	/* the whole blocks left: THPs take them, a few rounds */
	for (round = 0; round < 4; round++) {
		blocks = free_pmd_blocks(pmd);
		if (blocks <= 0)
			return blocks;
		if (round && blocks >= prev) {
			fr->unusable = blocks;	/* a zone THPs cannot use */
			return 0;
		}
		prev = blocks;
		a = mmap(NULL, (blocks + 9) * pmd, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (a == MAP_FAILED)
			return -1;
		fr->thp[round] = a;
		fr->thp_len[round] = (blocks + 9) * pmd;
		a = (char *)(((unsigned long)a + pmd - 1) & ~(pmd - 1));
		madvise(fr->thp[round], fr->thp_len[round], MADV_DONTFORK);
		madvise(a, (blocks + 8) * pmd, MADV_HUGEPAGE);
		for (i = 0; i < (size_t)blocks + 8; i++)
			a[i * pmd] = 1;
	}
	return free_pmd_blocks(pmd);
}

static void unfragment(struct fragments *fr)
{
	int k;

	if (fr->mem)
		munmap(fr->mem, fr->len);
	for (k = 0; k < 4; k++)
		if (fr->thp[k])
			munmap(fr->thp[k], fr->thp_len[k]);
}

#define PROACTIVE "/proc/sys/vm/compaction_proactiveness"

/*
 * THP's defrag "never" (and khugepaged/defrag 0), memory fragmented so
 * that no free PMD-sized block is left, cap 2: hugetext's huge page
 * allocations (the first-fault read, the collapse on return from a
 * fault, the cap's collapses) reclaim and compact only as THP's defrag
 * allows a fault in the mapping, so they fail, or take a block kcompactd
 * made meanwhile, with no direct compaction (compact_stall unmoved).
 */
TEST_F_TIMEOUT(sampler, defrag_never, 180)
{
	long stall, failed, got, fallback, blocks, tried = 0;
	struct fragments fr;
	long proactive = access(PROACTIVE, F_OK) ? -1 : (long)read_num(PROACTIVE);
	double t0;

	self->settings.thp_defrag = THP_DEFRAG_NEVER;
	self->settings.khugepaged.defrag = 0;
	thp_write_settings(&self->settings);
	ASSERT_EQ(path_write(CAP_KNOB, "2"), 0);
	if (proactive >= 0)
		path_write(PROACTIVE, "0");
	blocks = fragment(&fr, self->h.pmdsize);
	stall = read_vmstat("compact_stall");
	failed = read_vmstat("thp_collapse_alloc_failed");
	got = read_vmstat("thp_collapse_alloc");
	fallback = read_vmstat(HT_FAULT_FALLBACK);
	if (!blocks && !sampler_spawn(&self->h, 0, 0, 0, BIT(2) | BIT(5), BIT(2) | BIT(5))) {
		/*
		 * 40 periods, and on until hugetext has asked for a huge
		 * page, then 10 periods more
		 */
		t0 = storm_now();
		do {
			usleep(SAMPLE_MS * 1000);
			tried = read_vmstat("thp_collapse_alloc_failed") - failed +
				read_vmstat("thp_collapse_alloc") - got;
			if (fallback >= 0)
				tried += read_vmstat(HT_FAULT_FALLBACK) - fallback;
		} while ((!tried || storm_now() - t0 < 40 * SAMPLE_MS / 1000.0) &&
			 storm_now() - t0 < 30);
		usleep(10 * SAMPLE_MS * 1000);
		sampler_stop(&self->h, 0);
	}
	stall = read_vmstat("compact_stall") - stall;
	got = read_vmstat("thp_collapse_alloc") - got;
	failed = read_vmstat("thp_collapse_alloc_failed") - failed;
	if (fallback >= 0)
		failed += read_vmstat(HT_FAULT_FALLBACK) - fallback;
	unfragment(&fr);
	if (proactive >= 0)
		path_write_num(PROACTIVE, proactive);
	TH_LOG("%ld free PMD-sized blocks left (%ld THPs cannot use), %zu MB filled",
	       blocks, fr.unusable, fr.len >> 20);
	TH_LOG("huge page allocations failed +%ld, succeeded +%ld; compact_stall +%ld",
	       failed, got, stall);
	ASSERT_EQ(blocks, 0);
	EXPECT_GT(failed + got, 0);
	EXPECT_EQ(stall, 0);
}

TEST_HARNESS_MAIN
