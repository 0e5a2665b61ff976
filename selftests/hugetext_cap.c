// SPDX-License-Identifier: GPL-2.0
/*
 * khugepaged/max_nr_hugetext, the adaptive cap: with N set, each process
 * keeps at most N text regions PMD-mapped, the hottest ones, chosen by
 * sampling accessed bits every khugepaged/hugetext_sample_millisecs.
 *
 * hugetext_hotcold has ten full 2 MB regions of code and keeps the ones it
 * is told hot; each region is its own mapping, so smaps tells which are
 * PMD-mapped.  Checked, polling every 50 ms:
 *  - both knobs: their range round-trips, their bad writes (tools/lib/hugetext/knobs.list)
 *    fail with EINVAL and change nothing;
 *  - cap 0: all ten regions become PMD-mapped (6.12: the series collapses
 *    new text at exec); where text is read huge at its first fault
 *    instead (7.3: hugetext_fault_read in /proc/vmstat), the regions the
 *    program runs, its hot ones;
 *  - cap 1 lifted to 0 on a running process: khugepaged PMD-maps all ten,
 *    the never-touched ones too (6.12: it maps hugetext text whose page
 *    cache is huge, as the prompt collapse does); 7.3: with two hot
 *    regions, cap 1 maps the first only, and with the cap lifted
 *    khugepaged maps the other one, which the cap held back (its page
 *    cache was read huge, its mapping made of PTEs);
 *  - cap 2, regions 2 and 5 hot: exactly those two, within a bounded number
 *    of sampling periods, and never more than two on the way;
 *  - phase change (7 and 8 hot): the slots move to them, never more than
 *    two, and the counters show the demotions;
 *  - two processes of the same binary, different hot sets: each gets its
 *    own two;
 *  - lowering the cap from 3 to 1 demotes down to one;
 *  - one budget for code: with hugetext bit 1 (hugetext_enabled=3) and
 *    hugetext_hotcold --jit 2, its two JIT regions (anonymous memory it
 *    wrote and made executable) are PMD-mapped with no cap; with cap 2
 *    and one text and one JIT region hot, exactly those two, never more
 *    than two of text and JIT together; a phase change moves the slots
 *    between text and JIT; the anon counters count it; two processes
 *    each get their own; with JIT code alone (hugetext_enabled=2) and
 *    cap 2, both JIT regions get slots; a process that opted in alone
 *    (PR_SET_HUGETEXT, hugetext_enabled=0) gets its hot two under cap 2;
 *    with hugetext off for every process the sampler counts no period;
 *  - steady state (cap 2, the same two regions hot): the sampler flushes
 *    TLB entries at most once in two periods (hugetext_cap_flushed; a
 *    region busy all along is sampled, and flushed, once in 8 periods),
 *    demotes nothing, and the set stays;
 *  - anonymous data THP is not capped;
 *  - THP's defrag=never (khugepaged/defrag 0) with memory fragmented so
 *    that no free 2 MB block is left: hugetext tries for huge pages (the
 *    first-fault read, its collapses, the cap's collapses) and fails, and
 *    causes no direct compaction (compact_stall unmoved).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define SAMPLE_MS 100
/*
 * Bound, in sampling periods, for the hot set to be PMD-mapped: the design
 * needs two to three, plus the collapse (measured under TCG: 3 to 7, and 17
 * on a loaded host when both regions were read and copied from disk).
 */
#define MAX_PERIODS 60
#define REGION (2UL << 20)

struct proc {
	pid_t pid;
	int n;			/* text regions: 0..n-1 */
	unsigned long first;
	int k;			/* JIT regions: n..n+k-1 */
	unsigned long jit_first, stride;
};

/* the regions wait_sets() compares (the others may be anything) */
static unsigned int care = ~0u;

/*
 * MADV_COLLAPSE of region @i of @p from outside (process_madvise): 0, or
 * the errno.  A region without a slot must fail with EBUSY: the slots are
 * taken by hotter regions, and retrying (EAGAIN) would not help.
 */
static int collapse_in(struct proc *p, int i)
{
	int pidfd = syscall(SYS_pidfd_open, p->pid, 0), err;

	if (pidfd < 0)
		return errno;
	err = collapse_retry(pidfd, (void *)(p->first + i * REGION), REGION, 10, NULL);
	close(pidfd);
	return err;
}

static int spawn_jit(struct proc *p, const char *jit, const char *hot,
		     const char *hot2);

static int spawn(struct proc *p, const char *hot, const char *hot2)
{
	return spawn_jit(p, NULL, hot, hot2);
}

/* hugetext_hotcold [--jit @jit] @hot @hot2 */
static int spawn_jit(struct proc *p, const char *jit, const char *hot,
		     const char *hot2)
{
	char path[512], line[128];
	int fds[2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/hugetext_hotcold", self_dir());
	if (pipe(fds))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (jit)
			execl(path, path, "--jit", jit, hot, hot2, (char *)NULL);
		else
			execl(path, path, hot, hot2, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	p->k = 0;
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "regions %d %lx jit %d %lx %lx", &p->n, &p->first, &p->k,
		   &p->jit_first, &p->stride) < 2 || p->n < 8 ||
	    (jit && p->k != atoi(jit))) {
		ksft_print_msg("hugetext_hotcold did not start: %s\n", path);
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static void stop(struct proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	p->pid = 0;
}

/* bit i: region i of @p (text, then JIT) is PMD-mapped (one smaps read) */
static unsigned int pmd_mask(struct proc *p)
{
	char line[512];
	unsigned long s = 0, e = 0;
	unsigned int mask = 0;
	FILE *f;
	int i;

	snprintf(line, sizeof(line), "/proc/%d/smaps", p->pid);
	f = fopen(line, "r");
	if (!f)
		return ~0u;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		long kb;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			s = a;
			e = b;
			continue;
		}
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1 && kb > 0) {
			for (i = 0; i < p->k; i++) {
				unsigned long r = p->jit_first + i * p->stride;

				if (r >= s && r + REGION <= e && kb * 1024 >= (long)REGION)
					mask |= 1u << (p->n + i);
			}
			continue;
		}
		if (sscanf(line, "FilePmdMapped: %ld kB", &kb) != 1 || kb <= 0)
			continue;
		/* each mapping holds at most one full region */
		for (i = 0; i < p->n; i++) {
			unsigned long r = p->first + i * REGION;

			if (r >= s && r + REGION <= e && kb * 1024 >= (long)REGION)
				mask |= 1u << i;
		}
	}
	fclose(f);
	return mask;
}

static char *mask_str(unsigned int m, char *buf)
{
	int i;
	char *o = buf;

	*o = 0;
	for (i = 0; i < 32; i++)
		if (m & (1u << i))
			o += sprintf(o, "%s%d", o == buf ? "" : ",", i);
	if (o == buf)
		strcpy(buf, "none");
	return buf;
}

/*
 * Poll until every process's PMD-mapped set equals want[i] for 1 s in a
 * row, or @timeout_s passes.  Fails at once if a process ever has more than
 * @cap regions PMD-mapped (cap 0: no limit).  Returns seconds taken, -1 on
 * timeout, -2 on a cap violation.
 */
static double wait_sets(struct proc *p, const unsigned int *want, int np,
			int cap, double timeout_s)
{
	double t0 = mono_now(), ok_since = -1;
	char a[64], b[64];
	int i;

	for (;;) {
		bool all = true;
		double t = mono_now();

		for (i = 0; i < np; i++) {
			unsigned int m = pmd_mask(&p[i]);

			if (m == ~0u) {
				ksft_print_msg("process %d is gone\n", p[i].pid);
				return -1;
			}
			if (cap && __builtin_popcount(m) > cap) {
				ksft_print_msg("process %d: %d regions PMD-mapped (%s), cap %d\n",
					       i, __builtin_popcount(m), mask_str(m, a), cap);
				return -2;
			}
			if ((m & care) != want[i])
				all = false;
			if (t - t0 > timeout_s) {
				ksft_print_msg("process %d: PMD-mapped %s, want %s\n", i,
					       mask_str(m, a), mask_str(want[i], b));
			}
		}
		if (all && ok_since < 0)
			ok_since = t;
		if (!all)
			ok_since = -1;
		if (ok_since >= 0 && t - ok_since >= 1.0)
			return ok_since - t0;
		if (t - t0 > timeout_s)
			return -1;
		usleep(50000);
	}
}

static void report(const char *what, double r)
{
	if (r >= 0)
		ksft_print_msg("%s after %.2f s (%.0f sampling periods)\n", what, r,
			       r * 1000 / SAMPLE_MS);
	ksft_test_result(r >= 0 && r * 1000 / SAMPLE_MS <= MAX_PERIODS,
			 "%s within %d sampling periods\n", what, MAX_PERIODS);
}

/*
 * Steady state: @p's hot set @want holds the slots.  Watch 20 periods:
 * the sampler flushes TLB entries at most once in two periods (before
 * its sampling backed off: each hot region each period, 2 a period), it
 * demotes nothing, and the set stays.
 */
static void steady(struct proc *p, unsigned int want)
{
	long f0 = vmstat_read("hugetext_cap_flushed");
	long d0 = vmstat_read("hugetext_cap_demoted");
	long p0 = vmstat_read("hugetext_cap_periods");
	long f = -1, d = -1, np = 0;
	unsigned int lost = 0, m;
	double t0 = mono_now();

	if (f0 >= 0) {
		do {
			usleep(SAMPLE_MS * 1000 / 2);
			m = pmd_mask(p);
			if (m != want)
				lost = m | 1u << 31;
			np = vmstat_read("hugetext_cap_periods") - p0;
		} while (np < 20 && mono_now() - t0 < 30);
		f = vmstat_read("hugetext_cap_flushed") - f0;
		d = vmstat_read("hugetext_cap_demoted") - d0;
	}
	if (lost)
		ksft_print_msg("the set changed to %#x\n", lost & ~(1u << 31));
	ksft_test_result(f0 >= 0 && np >= 20 && f <= np / 2 && d == 0 && !lost,
			 "cap 2, steady hot set: %ld TLB flushes by the sampler in %ld periods (at most one in two), %ld demotions, the set kept\n",
			 f, np, d);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* free blocks of a PMD's order or more, all zones (/proc/buddyinfo) */
static long unusable_blocks;

static long free_pmd_blocks(void)
{
	unsigned int order = __builtin_ctzl(pmd_size()) -
			     __builtin_ctzl(sysconf(_SC_PAGESIZE));
	FILE *f = fopen("/proc/buddyinfo", "r");
	char line[512];
	long sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *q = strstr(line, "zone");
		unsigned int o = 0;
		long n;
		int k;

		if (!q)
			continue;
		q += 4;
		while (*q == ' ')
			q++;
		while (*q && *q != ' ')
			q++;
		while (sscanf(q, "%ld%n", &n, &k) == 1) {
			if (o++ >= order)
				sum += n;
			q += k;
		}
	}
	fclose(f);
	return sum;
}

/*
 * Fragment free memory: fill all but 64 MB of it with small pages, free
 * all of them but one in each physical PMD-sized block (pagemap), and take
 * the whole free blocks left with THPs (defrag=never: no compaction).
 * Returns the free PMD-order blocks left, -1 on error; *@mem, *@len and
 * @thp[4], @thp_len[4]: the mappings to unmap afterwards.  Blocks THPs
 * could not take (a zone they cannot use) are left in unusable_blocks.
 */
static long fragment(char **mem, size_t *len, char **thp, size_t *thp_len)
{
	long prev = 0;
	int round;
	size_t page = sysconf(_SC_PAGESIZE), pmd = pmd_size(), n, i, run = 0;
	unsigned int shift = __builtin_ctzl(pmd) - __builtin_ctzl(page);
	long free_kb = meminfo_kb("MemFree"), blocks;
	unsigned char *seen = NULL;
	size_t nseen = 0;
	uint64_t *pm;
	char *a;
	int fd;

	*mem = NULL;
	for (round = 0; round < 4; round++) {
		thp[round] = NULL;
		thp_len[round] = 0;
	}
	if (free_kb < 256 * 1024)
		return -1;
	*len = ((free_kb - 64 * 1024) * 1024UL) & ~(pmd - 1);
	*mem = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (*mem == MAP_FAILED) {
		*mem = NULL;
		return -1;
	}
	if (madvise(*mem, *len, MADV_NOHUGEPAGE) ||
	    madvise(*mem, *len, MADV_POPULATE_WRITE))
		return -1;
	n = *len / page;
	pm = malloc(n * sizeof(*pm));
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (!pm || fd < 0 ||
	    pread(fd, pm, n * sizeof(*pm),
		  (unsigned long)*mem / page * sizeof(*pm)) != (ssize_t)(n * sizeof(*pm))) {
		free(pm);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i <= n; i++) {
		bool keep = false;

		if (i < n && (pm[i] >> 63)) {
			size_t b = (pm[i] & ((1ULL << 55) - 1)) >> shift;

			if (b >= nseen) {
				size_t m = (b + 1) * 2;

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
			madvise(*mem + (i - run) * page, run * page, MADV_DONTNEED);
		run = 0;
	}
	free(seen);
	free(pm);

	/*
	 * the whole free blocks left (the 64 MB, blocks freed meanwhile):
	 * THPs take them, a few rounds while any is left
	 */
	for (round = 0; round < 4; round++) {
		blocks = free_pmd_blocks();
		if (blocks <= 0)
			return blocks;
		/* THPs did not take these: a zone they cannot use (DMA) */
		if (round && blocks >= prev) {
			unusable_blocks = blocks;
			return 0;
		}
		prev = blocks;
		a = mmap(NULL, (blocks + 9) * pmd, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (a == MAP_FAILED)
			return -1;
		thp[round] = a;
		thp_len[round] = (blocks + 9) * pmd;
		a = (char *)(((unsigned long)a + pmd - 1) & ~(pmd - 1));
		madvise(a, (blocks + 8) * pmd, MADV_HUGEPAGE);
		for (i = 0; i < (size_t)blocks + 8; i++)
			a[i * pmd] = 1;
	}
	return free_pmd_blocks();
}

/*
 * THP's defrag=never: hugetext's huge page allocations (the first-fault
 * read, the collapse on return from a fault, the cap's collapse) reclaim
 * and compact only as THP's defrag allows a fault in the mapping, so with
 * memory fragmented they fail, or take a free block, with no direct
 * compaction.  (Before: the cap's collapse allocated with GFP_TRANSHUGE,
 * and 7.3's first-fault read with the page cache's own mask.)
 */
static void defrag_never(struct proc *p)
{
	long stall, failed, fallback, blocks, wake, got, tried = 0;
	char *mem, *thp[4], pro[16] = "";
	size_t len = 0, thp_len[4];
	int fd, k;

	knob_write(KNOB_ENABLED, "1");
	knob_write(KNOB_MAX_NR_HUGETEXT, "2");
	knob_write("defrag", "never");
	knob_write("khugepaged/defrag", "0");
	fd = open("/proc/sys/vm/compaction_proactiveness", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, pro, sizeof(pro) - 1) < 0)
			pro[0] = 0;
		close(fd);
		sysctl_write("/proc/sys/vm/compaction_proactiveness", "0");
	}
	/* hotcold's text is read again, into fragmented memory */
	drop_caches();
	blocks = fragment(&mem, &len, thp, thp_len);
	wake = vmstat_read("compact_daemon_wake");
	stall = vmstat_read("compact_stall");
	failed = vmstat_read("thp_collapse_alloc_failed");
	got = vmstat_read("thp_collapse_alloc");
	fallback = vmstat_read("hugetext_fault_fallback");
	if (blocks == 0 && !spawn(p, "2,5", "2,5")) {
		double t0 = mono_now();

		/*
		 * 40 periods, and on until hugetext has asked for a huge page
		 * (the cap grants the hot regions within a few periods; slower
		 * on arm64's TCG), then 10 periods more
		 */
		do {
			usleep(SAMPLE_MS * 1000);
			tried = vmstat_read("thp_collapse_alloc_failed") - failed +
				vmstat_read("thp_collapse_alloc") - got;
			if (fallback >= 0)
				tried += vmstat_read("hugetext_fault_fallback") - fallback;
		} while ((!tried || mono_now() - t0 < 40 * SAMPLE_MS / 1000.0) &&
			 mono_now() - t0 < 30);
		usleep(10 * SAMPLE_MS * 1000);
		stop(p);
	}
	stall = vmstat_read("compact_stall") - stall;
	got = vmstat_read("thp_collapse_alloc") - got;
	failed = vmstat_read("thp_collapse_alloc_failed") - failed;
	if (fallback >= 0)
		failed += vmstat_read("hugetext_fault_fallback") - fallback;
	if (mem)
		munmap(mem, len);
	wake = vmstat_read("compact_daemon_wake") - wake;
	for (k = 0; k < 4; k++)
		if (thp[k])
			munmap(thp[k], thp_len[k]);
	if (pro[0])
		sysctl_write("/proc/sys/vm/compaction_proactiveness", pro);
	/*
	 * Its tries fail (no free block); one may succeed where kcompactd
	 * (woken by others) made a block meanwhile: that is no direct
	 * compaction either.
	 */
	ksft_print_msg("fragmented: %ld free 2 MB blocks left (and %ld THPs cannot use), %zu MB filled; huge page allocations that failed +%ld, that succeeded +%ld, compact_daemon_wake +%ld\n",
		       blocks, unusable_blocks, len >> 20, failed, got, wake);
	ksft_test_result(blocks == 0 && failed + got > 0 && stall == 0,
			 "defrag=never, fragmented memory, cap 2: hugetext tried (+%ld failed, +%ld got a block) and caused no direct compaction (compact_stall +%ld)\n",
			 failed, got, stall);
}

int main(void)
{
	struct proc p[2] = {};
	unsigned int want[2];
	long demoted, collapsed, sampled;
	bool first_fault;
	double r;
	void *anon;

	ksft_print_header();
	if (!knob_exists(KNOB_MAX_NR_HUGETEXT) || !knob_exists(KNOB_SAMPLE_MILLISECS))
		ksft_exit_skip("kernel without max_nr_hugetext (no %s%s)\n", THP_DIR, KNOB_MAX_NR_HUGETEXT);
	ksft_set_plan(2 * KNOB_TABLE_RESULTS + 9 + 10);
	knobs_save();

	knob_test_table(KNOB_MAX_NR_HUGETEXT);
	knob_test_table(KNOB_SAMPLE_MILLISECS);

	if (knob_write(KNOB_ENABLED, "1") || knob_write(KNOB_MAX_NR_HUGETEXT, "0") ||
	    knob_write("enabled", "madvise"))
		ksft_exit_fail_msg("cannot set hugetext_enabled=1, enabled=madvise\n");
	khugepaged_fast();
	knob_write(KNOB_SAMPLE_MILLISECS, "100");
	first_fault = vmstat_read("hugetext_fault_read") >= 0;

	/* no cap: every region (7.3: every region the program runs) */
	if (spawn(&p[0], "2,5", "7,8"))
		ksft_exit_fail_msg("cannot run hugetext_hotcold\n");
	want[0] = first_fault ? 1u << 2 | 1u << 5 : (1u << p[0].n) - 1;
	r = wait_sets(p, want, 1, 0, 60);
	/*
	 * Seen on 2 vCPUs under series v2 (one region of ten 4K-mapped after
	 * 60 s, about one run in three), when the prompt collapse was one
	 * global work item; not since v3's collapse by the process itself,
	 * so a hard failure again.  If a region is missing, say whether it
	 * was ever touched (Rss 0: only the prompt collapse maps an empty
	 * range, khugepaged does not) and whether a collapse failed.
	 */
	if (r == -1 && pmd_mask(&p[0]) != want[0]) {
		int miss = __builtin_ctz(pmd_mask(&p[0]) ^ want[0]);
		unsigned long rs = p[0].first + miss * REGION;

		ksft_print_msg("region %d: Rss %ld kB, FilePmdMapped %ld kB, hugetext_collapse_fail %ld\n",
			       miss, smaps_field(p[0].pid, rs, rs + REGION, "Rss") / 1024,
			       smaps_field(p[0].pid, rs, rs + REGION, "FilePmdMapped") / 1024,
			       vmstat_read("hugetext_collapse_fail"));
	}
	ksft_test_result(r >= 0, "cap 0: %s PMD-mapped (%.2f s; %d of %d at the end)\n",
			 first_fault ? "the regions it runs, 2 and 5," : "all regions",
			 r, __builtin_popcount(pmd_mask(&p[0])), p[0].n);
	stop(&p[0]);

	/*
	 * Lifting the cap on a running process: started under cap 1, it has
	 * only its hot region PMD-mapped and has never touched the others.
	 * With the cap gone khugepaged maps them all from the page cache the
	 * case above made huge -- the same path that maps a region whose
	 * prompt collapse lost a race with khugepaged collapsing it.
	 */
	knob_write(KNOB_MAX_NR_HUGETEXT, "1");
	if (spawn(&p[0], first_fault ? "2,5" : "2", first_fault ? "2,5" : "2"))
		ksft_exit_fail_msg("cannot run hugetext_hotcold\n");
	want[0] = 1u << 2;
	r = wait_sets(p, want, 1, 1, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
	if (r < 0) {
		ksft_print_msg("cap 1: region 2 alone was not PMD-mapped\n");
	} else {
		knob_write(KNOB_MAX_NR_HUGETEXT, "0");
		want[0] = first_fault ? 1u << 2 | 1u << 5 : (1u << p[0].n) - 1;
		r = wait_sets(p, want, 1, 0, 30);
	}
	if (first_fault)
		ksft_test_result(r >= 0, "cap 1 -> 0, running process, regions 2 and 5 hot: khugepaged PMD-maps region 5, which the cap held back (%.2f s)\n",
				 r);
	else
		ksft_test_result(r >= 0, "cap 1 -> 0, running process: khugepaged PMD-maps all %d regions, the never-touched ones too (%.2f s)\n",
				 p[0].n, r);
	stop(&p[0]);

	/* from small pages again: the cap's own collapse does the copying */
	drop_caches();
	collapsed = vmstat_read("hugetext_cap_collapsed");
	sampled = vmstat_read("hugetext_cap_sampled");
	knob_write(KNOB_MAX_NR_HUGETEXT, "2");
	if (spawn(&p[0], "2,5", "7,8"))
		ksft_exit_fail_msg("cannot run hugetext_hotcold\n");
	want[0] = 1u << 2 | 1u << 5;
	r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
	report("cap 2: exactly the hot regions 2,5 PMD-mapped", r);
	{
		int e0 = collapse_in(&p[0], 0), e2 = collapse_in(&p[0], 2);

		ksft_test_result(e0 == EBUSY && e2 == 0,
				 "cap 2: MADV_COLLAPSE of cold region 0 fails with EBUSY (%s), of granted region 2 succeeds (%s)\n",
				 e0 ? strerror(e0) : "success", e2 ? strerror(e2) : "success");
	}
	ksft_print_msg("hugetext_cap_collapsed +%ld, hugetext_cap_sampled +%ld\n",
		       vmstat_read("hugetext_cap_collapsed") - collapsed,
		       vmstat_read("hugetext_cap_sampled") - sampled);
	steady(&p[0], want[0]);

	/* phase change */
	demoted = vmstat_read("hugetext_cap_demoted");
	kill(p[0].pid, SIGUSR1);
	want[0] = 1u << 7 | 1u << 8;
	r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
	report("phase change: the slots move to 7,8, never more than 2", r);
	demoted = vmstat_read("hugetext_cap_demoted") - demoted;
	ksft_test_result(demoted >= 2,
			 "hugetext_cap_demoted counts the two demotions (+%ld)\n", demoted);
	stop(&p[0]);

	/* per process */
	if (spawn(&p[0], "1,3", "1,3") || spawn(&p[1], "4,6", "4,6"))
		ksft_exit_fail_msg("cannot run hugetext_hotcold twice\n");
	want[0] = 1u << 1 | 1u << 3;
	want[1] = 1u << 4 | 1u << 6;
	r = wait_sets(p, want, 2, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
	report("two processes, same binary: each its own hot 2", r);
	stop(&p[0]);
	stop(&p[1]);

	/* lowering the cap */
	knob_write(KNOB_MAX_NR_HUGETEXT, "3");
	if (spawn(&p[0], "0,4,9", "0,4,9"))
		ksft_exit_fail_msg("cannot run hugetext_hotcold\n");
	want[0] = 1u << 0 | 1u << 4 | 1u << 9;
	r = wait_sets(p, want, 1, 3, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
	knob_write(KNOB_MAX_NR_HUGETEXT, "1");
	if (r >= 0) {
		double t0 = mono_now();
		unsigned int m;

		do {
			m = pmd_mask(&p[0]);
			if (__builtin_popcount(m) == 1 && (m & want[0]))
				break;
			usleep(50000);
		} while (mono_now() - t0 < 10);
		r = __builtin_popcount(m) == 1 && (m & want[0]) ? mono_now() - t0 : -1;
	}
	ksft_test_result(r >= 0, "cap 3 -> 1: down to one of the hot regions (%.2f s)\n", r);
	stop(&p[0]);

	/* one budget for text and JIT code */
	{
		int n = p[0].n, j0 = n, j1 = n + 1;
		long ac = vmstat_read("hugetext_cap_anon_collapsed");
		long ad = vmstat_read("hugetext_cap_anon_demoted");
		char h1[32], h2[32], h3[32], h4[32];

		knob_write(KNOB_ENABLED, "3");
		knob_write(KNOB_MAX_NR_HUGETEXT, "0");
		if (spawn_jit(&p[0], "2", "-", "-"))
			ksft_exit_fail_msg("cannot run hugetext_hotcold --jit 2\n");
		care = 3u << n;
		want[0] = 3u << n;
		r = wait_sets(p, want, 1, 0, 30);
		care = ~0u;
		ksft_test_result(r >= 0, "hugetext=3, cap 0: both JIT regions PMD-mapped (%.2f s)\n", r);
		stop(&p[0]);

		knob_write(KNOB_MAX_NR_HUGETEXT, "2");
		snprintf(h1, sizeof(h1), "2,%d", j0);
		snprintf(h2, sizeof(h2), "%d,7", j1);
		if (spawn_jit(&p[0], "2", h1, h2))
			ksft_exit_fail_msg("cannot run hugetext_hotcold --jit 2\n");
		want[0] = 1u << 2 | 1u << j0;
		r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
		report("cap 2, text region 2 and JIT region 0 hot: exactly those, never more than 2 of text and JIT", r);
		kill(p[0].pid, SIGUSR1);
		want[0] = 1u << 7 | 1u << j1;
		r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
		report("phase change to JIT region 1 and text region 7: the slots follow, never more than 2", r);
		stop(&p[0]);
		ac = vmstat_read("hugetext_cap_anon_collapsed") - ac;
		ad = vmstat_read("hugetext_cap_anon_demoted") - ad;
		ksft_test_result(ac >= 2 && ad >= 1,
				 "hugetext_cap_anon_collapsed +%ld (>= 2), hugetext_cap_anon_demoted +%ld (>= 1)\n",
				 ac, ad);

		snprintf(h3, sizeof(h3), "1,%d", j0);
		snprintf(h4, sizeof(h4), "%d,4", j1);
		if (spawn_jit(&p[0], "2", h3, h3) || spawn_jit(&p[1], "2", h4, h4))
			ksft_exit_fail_msg("cannot run hugetext_hotcold --jit 2 twice\n");
		want[0] = 1u << 1 | 1u << j0;
		want[1] = 1u << 4 | 1u << j1;
		r = wait_sets(p, want, 2, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
		/*
		 * A poll over the cap here (process 1: text regions 0 and 4
		 * and its JIT region under cap 2) was seen in 2 boot1b
		 * guests on 2 vCPUs; the series now asks the cap under the
		 * PMD lock (a fault could install a PMD with slots the
		 * sampler had just replaced).  A hard failure again.
		 */
		report("two processes with text and JIT: each its own hot 2", r);
		stop(&p[0]);
		stop(&p[1]);

		/*
		 * JIT code alone (hugetext_enabled=2) under the cap: it gets
		 * slots too (the 6.12 sampler once ran only with bit 0 set,
		 * and with nothing granting slots the cap kept JIT code on
		 * small pages altogether)
		 */
		knob_write(KNOB_ENABLED, "2");
		/* text the earlier cases left huge in the page cache would be
		 * PMD-mapped at fault by THP's own rules (bit 0 is off) */
		drop_caches();
		snprintf(h1, sizeof(h1), "%d,%d", j0, j1);
		if (spawn_jit(&p[0], "2", h1, h1))
			ksft_exit_fail_msg("cannot run hugetext_hotcold --jit 2\n");
		care = 3u << n;
		want[0] = 3u << n;
		r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
		care = ~0u;
		report("hugetext=2 (JIT code only), cap 2, both JIT regions hot: both PMD-mapped", r);
		stop(&p[0]);

		/*
		 * a process that opted in alone (its prctl, hugetext_enabled
		 * 0) is capped too and gets its slots: its mm is one the
		 * sampler visits
		 */
		knob_write(KNOB_ENABLED, "0");
		if (prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_TEXT, 0, 0, 0))
			ksft_exit_fail_msg("PR_SET_HUGETEXT: %s\n", strerror(errno));
		if (spawn(&p[0], "2,5", "2,5"))
			ksft_exit_fail_msg("cannot run hugetext_hotcold\n");
		prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0);
		want[0] = 1u << 2 | 1u << 5;
		r = wait_sets(p, want, 1, 2, MAX_PERIODS * SAMPLE_MS / 1000.0 + 5);
		report("hugetext_enabled=0, PR_SET_HUGETEXT text only, cap 2, regions 2 and 5 hot: exactly those", r);
		stop(&p[0]);

		/*
		 * hugetext off for every process (the knob 0, no prctl), an
		 * mm khugepaged knows (this one, MADV_HUGEPAGE data): the
		 * sampler visits no mm, so no period is counted
		 */
		{
			char *d = mmap(NULL, 2 * REGION, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			long p0, p1;

			if (d == MAP_FAILED || madvise(d, 2 * REGION, MADV_HUGEPAGE))
				ksft_exit_fail_msg("MADV_HUGEPAGE data: %s\n", strerror(errno));
			d[0] = 1;
			p0 = vmstat_read("hugetext_cap_periods");
			usleep(5 * SAMPLE_MS * 1000);
			p1 = vmstat_read("hugetext_cap_periods");
			munmap(d, 2 * REGION);
			ksft_test_result(p1 == p0,
					 "hugetext_enabled=0, no process opted in, cap 2: no sampling period in %d ms (hugetext_cap_periods +%ld)\n",
					 5 * SAMPLE_MS, p1 - p0);
		}
		knob_write(KNOB_ENABLED, "3");
	}

	/* the cap is about code: anonymous data THP in a capped process is not */
	anon = mmap(NULL, 2 * REGION, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon != MAP_FAILED) {
		char *a = (char *)(((unsigned long)anon + REGION - 1) & ~(REGION - 1));

		madvise(a, REGION, MADV_HUGEPAGE);
		memset(a, 1, REGION);
		r = smaps_field(0, (unsigned long)a, (unsigned long)a + REGION, "AnonHugePages");
	} else {
		r = -1;
	}
	ksft_test_result(r >= (double)REGION,
			 "cap 2, hugetext=3: anonymous data THP still PMD-mapped (%.0f kB)\n",
			 r / 1024);
	if (anon != MAP_FAILED)
		munmap(anon, 2 * REGION);
	defrag_never(&p[0]);
	ksft_finished();
}
