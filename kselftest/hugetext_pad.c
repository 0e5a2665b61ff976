// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: a program's text padded to the PMD boundaries at both ends
 * (fixture pad).  The test writes a static program whose text has a
 * partial region at each end and runs it against the padding knobs, the
 * program's own prctl, every hugetext mode against THP's and a warm
 * start; the program and what runs it are hugetext_helpers.c's.  The way
 * back from hugetext (fixture rollback) runs the same program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/*
 * Padding: the test writes a static ET_EXEC of three PT_LOADs (four in
 * two layouts, below) -- the ELF
 * headers' page (read-only) at a PMD boundary, the text from the next
 * page to 3/4 of a region past the second boundary above it, then a
 * writable page at the third boundary, the file bytes before it (after
 * the text) mapped by no segment, as a linker's padding is -- and runs
 * it.  Its code, entered in the middle of the head region (its first
 * fault there is a miss: a fault on the pages the ELF loader read, cached
 * in small folios, would leave the region to khugepaged), jumps to the
 * full region, to the tail, stores 1 to its data page and spins, so
 * reaching the store means every jump ran the file's bytes.  Against the
 * padding threshold (PAD_KNOB) and RODATA_KNOB (FIXTURE_VARIANT): the
 * text mapping extends to the boundary above when the tail is at least
 * the threshold (over bytes no segment maps: by default), and down to
 * the boundary below when the
 * text's part of the head region is (over the headers' segment: only with
 * RODATA_KNOB at 1); every padded region is PMD-mapped like the full
 * one, under THP "never"; the mapped text equals the file byte for byte;
 * HT_PAD_TAIL and HT_PAD_HEAD count each padded end.  Hugetext 0
 * and threshold 0 pad nothing.  The same program exec'd with the child's
 * own prctl(PR_SET_HT) setting: bit 0 on with the knob at 0 pads and
 * maps as the knob at 1 does, off with the knob at 1 as the knob at 0, and
 * PR_HT_SYSTEM after an override follows the knob again.
 *
 * The program's text under every hugetext mode and THP mode, unpadded
 * (threshold at its maximum), with khugepaged awake for three full
 * passes: its full region is PMD-mapped when hugetext bit 0 is on (on
 * first fault) or THP is "always" (collapsed by khugepaged, as without
 * hugetext, and mapped at the next touch),
 * and stays on small pages otherwise -- bit 1 is for anonymous memory
 * and never takes file text; PR_SET_THP_DISABLE before the exec keeps it
 * small under hugetext 1 (counted in HT_SKIP_OPTED_OUT where the series
 * has that counter).  Started again with its text still cached from a
 * first run, the program's full region is PMD-mapped from the cached huge
 * folio.  Where the series collapses new text on the way out of exec
 * (HT_COLLAPSES_AT_EXEC: the variants at_exec*), the program stopped by
 * its exec (ptrace), before its first instruction, has every region it
 * will have PMD-mapped already, cold and warm; a kernel that reads text
 * at the first fault (HT_FAULT_ALLOC) would have none.
 *
 * One failure, open and only where text is read at the first fault, runs
 * its program once more (pad_flake_report(), in TEST_F(pad, exec)).
 */
enum pad_thr { PAD_4K, PAD_ZERO, PAD_TAIL, PAD_TAIL_1, PAD_HEAD_1, PAD_ONE, PAD_HEAD,
	       PAD_MAX };

FIXTURE(pad)
{
	struct thp_settings settings;
	struct pad_saved saved;
	size_t pmdsize, base, tail;
	char path[64];
	pid_t pid;
};

FIXTURE_VARIANT(pad)
{
	int mode;		/* the knobs, mode_read()'s bits */
	enum pad_thr thr;	/* PAD_KNOB */
	int rodata;		/* RODATA_KNOB */
	int tail, head;		/* padded at the tail, at the head */
	enum pad_pr pr;		/* prctl(PR_SET_HT) before the exec */
	enum pad_layout layout;	/* after the text, in its tail's region */
	enum thp_enabled thp;	/* THP's mode; khugepaged wakes unless "never" */
	int warm;		/* run once before: its page cache kept */
	int stop;		/* looked at stopped by its exec, then let go */
};

FIXTURE_VARIANT_ADD(pad, gap) { .mode = 1, .thr = PAD_4K, .rodata = 0, .tail = 1, .head = 0 };
FIXTURE_VARIANT_ADD(pad, rodata) { .mode = 1, .thr = PAD_4K, .rodata = 1, .tail = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, zero) { .mode = 1, .thr = PAD_ZERO, .rodata = 1 };
FIXTURE_VARIANT_ADD(pad, tail) { .mode = 1, .thr = PAD_TAIL, .rodata = 1, .tail = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, tail_1) { .mode = 1, .thr = PAD_TAIL_1, .rodata = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, head_1) { .mode = 1, .thr = PAD_HEAD_1, .rodata = 1 };
FIXTURE_VARIANT_ADD(pad, off) { .mode = 0, .thr = PAD_4K, .rodata = 1 };
/* the process's setting, kept over exec, decides instead of the knob */
FIXTURE_VARIANT_ADD(pad, prctl_text) {
	.mode = 0, .pr = PAD_PR_TEXT, .thr = PAD_4K, .rodata = 1, .tail = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, prctl_off) { .mode = 1, .pr = PAD_PR_OFF, .thr = PAD_4K, .rodata = 1 };
FIXTURE_VARIANT_ADD(pad, prctl_back) {
	.mode = 1, .pr = PAD_PR_BACK, .thr = PAD_4K, .rodata = 1, .tail = 1, .head = 1 };
/* thresholds: 1 byte pads both; the head's text the head alone; the maximum none */
FIXTURE_VARIANT_ADD(pad, one) { .mode = 1, .thr = PAD_ONE, .rodata = 1, .tail = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, head) { .mode = 1, .thr = PAD_HEAD, .rodata = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, max) { .mode = 1, .thr = PAD_MAX, .rodata = 1 };
FIXTURE_VARIANT_ADD(pad, both) { .mode = 3, .thr = PAD_4K, .rodata = 1, .tail = 1, .head = 1 };
/* what follows the text decides whether its tail may be padded */
FIXTURE_VARIANT_ADD(pad, seg) { .mode = 1, .thr = PAD_4K, .layout = PAD_SEG };
FIXTURE_VARIANT_ADD(pad, seg_rodata) {
	.mode = 1, .thr = PAD_4K, .rodata = 1, .layout = PAD_SEG, .tail = 1, .head = 1 };
FIXTURE_VARIANT_ADD(pad, rw) { .mode = 1, .thr = PAD_4K, .rodata = 1, .layout = PAD_RW, .head = 1 };
FIXTURE_VARIANT_ADD(pad, near) {
	.mode = 1, .thr = PAD_4K, .rodata = 1, .layout = PAD_NEAR, .head = 1 };
FIXTURE_VARIANT_ADD(pad, eof) {
	.mode = 1, .thr = PAD_4K, .rodata = 1, .layout = PAD_EOF, .head = 1 };
/* unpadded, every mode against THP's, khugepaged awake */
FIXTURE_VARIANT_ADD(pad, off_madvise) { .mode = 0, .thr = PAD_MAX, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(pad, off_always) { .mode = 0, .thr = PAD_MAX, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(pad, text_madvise) { .mode = 1, .thr = PAD_MAX, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(pad, text_always) { .mode = 1, .thr = PAD_MAX, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(pad, jit_never) { .mode = 2, .thr = PAD_MAX };
FIXTURE_VARIANT_ADD(pad, jit_madvise) { .mode = 2, .thr = PAD_MAX, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(pad, jit_always) { .mode = 2, .thr = PAD_MAX, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(pad, both_never) { .mode = 3, .thr = PAD_MAX };
FIXTURE_VARIANT_ADD(pad, both_madvise) { .mode = 3, .thr = PAD_MAX, .thp = THP_MADVISE };
FIXTURE_VARIANT_ADD(pad, both_always) { .mode = 3, .thr = PAD_MAX, .thp = THP_ALWAYS };
FIXTURE_VARIANT_ADD(pad, thp_disable) {
	.mode = 1, .pr = PAD_PR_THP_DISABLE, .thr = PAD_MAX, .thp = THP_MADVISE };
/* started again with its text still cached: the cached huge folio mapped */
FIXTURE_VARIANT_ADD(pad, warm) { .mode = 1, .thr = PAD_MAX, .warm = 1 };
#if HT_COLLAPSES_AT_EXEC
/* what its exec mapped before the program ran an instruction: cold, warm, off */
FIXTURE_VARIANT_ADD(pad, at_exec) {
	.mode = 1, .thr = PAD_4K, .rodata = 1, .tail = 1, .head = 1, .stop = 1 };
FIXTURE_VARIANT_ADD(pad, at_exec_warm) { .mode = 1, .thr = PAD_MAX, .warm = 1, .stop = 1 };
FIXTURE_VARIANT_ADD(pad, at_exec_off) { .mode = 0, .thr = PAD_4K, .rodata = 1, .stop = 1 };
#endif

FIXTURE_SETUP(pad)
{
	const char *why;
	unsigned long thr;
	int ret;

	self->pid = 0;
	self->path[0] = 0;
	why = pad_unsupported(&self->pmdsize);
	SKIP_UNLESS_ROOT(return);
	if (why)
		SKIP(return, "%s\n", why);
	if (variant->pr != PAD_PR_KNOB && variant->pr != PAD_PR_THP_DISABLE &&
	    prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	/* the test's file and its child's collapse on one CPU (run_on_one_cpu()) */
	ASSERT_EQ(run_on_one_cpu(), 0);
	self->base = 2 * self->pmdsize;
	self->tail = self->pmdsize / 4 * 3;
	snprintf(self->path, sizeof(self->path), "hugetext-pad.%d", getpid());
	ret = pad_write_elf(self->path, self->pmdsize, self->base, self->tail, variant->layout);
	ASSERT_EQ(ret, 0);

	pad_save(&self->saved, &self->settings, variant->thp);
	self->settings.khugepaged.max_ptes_none = self->pmdsize / 4096 - 1;
	/* khugepaged_awake() writes these settings again: the mode with them */
	settings_set_mode(&self->settings, variant->mode);
	thp_write_settings(&self->settings);
	thr = variant->thr == PAD_4K ? 4096 : variant->thr == PAD_ZERO ? 0 :
	      variant->thr == PAD_TAIL ? self->tail :
	      variant->thr == PAD_TAIL_1 ? self->tail + 1 :
	      variant->thr == PAD_HEAD_1 ? self->pmdsize - 4096 + 1 :
	      variant->thr == PAD_ONE ? 1 :
	      variant->thr == PAD_HEAD ? self->pmdsize - 4096 : self->pmdsize - 1;
	ASSERT_EQ(path_write_num(PAD_KNOB, thr), 0);
	ASSERT_EQ(path_write(RODATA_KNOB, variant->rodata ? "1" : "0"), 0);
	ASSERT_EQ(mode_write(variant->mode), 0);
	if (HT_PAD_SETTLES_KHUGEPAGED)
		khugepaged_settle();
}

FIXTURE_TEARDOWN(pad)
{
	pad_reap(&self->pid);
	pad_restore(&self->saved);
	if (self->path[0])
		unlink(self->path);
}

/*
 * The state of a padded program whose text stayed on small pages with no
 * first-fault read counted (Documentation/testing.md of the hugetext
 * repository, "Known open issues"): the file's cached ranges now, the
 * disk's readahead and the program's major faults
 */
static void pad_flake_report(const char *path, pid_t pid)
{
	unsigned long majflt = 0;
	struct stat st;
	char buf[512], val[24], *p;
	size_t i, n;
	int fd, ok;

	fd = open(path, O_RDONLY);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size) {
		unsigned char *vec = malloc(st.st_size / 4096 + 1);
		void *m = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);

		n = (st.st_size + 4095) / 4096;
		ok = vec && m != MAP_FAILED && !mincore(m, st.st_size, vec);
		for (i = 0; ok && i < n; i++) {
			size_t j = i;

			if (!(vec[i] & 1))
				continue;
			while (j + 1 < n && (vec[j + 1] & 1))
				j++;
			ksft_print_msg("pad: file pages %#zx-%#zx cached\n", i, j);
			i = j;
		}
		if (m != MAP_FAILED)
			munmap(m, st.st_size);
		free(vec);
		/* the disk's (a partition's is its parent's) */
		snprintf(buf, sizeof(buf), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		if (access(buf, R_OK))
			snprintf(buf, sizeof(buf), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
				 major(st.st_dev), minor(st.st_dev));
		if (!read_file(buf, val, sizeof(val)))
			snprintf(val, sizeof(val), "unread");
		val[strcspn(val, "\n")] = 0;
		ksft_print_msg("pad: read_ahead_kb %s\n", val);
	}
	if (fd >= 0)
		close(fd);
	snprintf(buf, sizeof(buf), "/proc/%d/stat", pid);
	fd = open(buf, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
	if (fd >= 0)
		close(fd);
	buf[n > 0 && n < sizeof(buf) ? n : 0] = 0;
	/* field 12, majflt: the 10th after the command's closing ')' */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 10; i++)
		p = strchr(p + 1, ' ');
	if (p)
		majflt = strtoul(p + 1, NULL, 10);
	ksft_print_msg("pad: program %d: %lu major faults\n", pid, majflt);
}

TEST_F(pad, exec)
{
	unsigned long pmd = self->pmdsize, base = self->base, start = 0, end = 0;
	unsigned long want_start = variant->head ? base : base + 4096;
	unsigned long want_end = variant->tail ? base + 3 * pmd : base + 2 * pmd + self->tail;
	bool on = variant->pr == PAD_PR_KNOB || variant->pr == PAD_PR_BACK ?
		  variant->mode & 1 : variant->pr == PAD_PR_TEXT;
	bool thp = variant->thp == THP_ALWAYS && variant->pr != PAD_PR_THP_DISABLE;
	long want_pmd = on ? (1 + variant->tail + variant->head) * pmd : thp ? pmd : 0;
	size_t data = pad_data(variant->layout, pmd, self->tail);
	long pad0, head0, rd0, fb0, sc0, ca0, cf0, rd, fb, opted0, ok0 = -1, map0 = -1;
	long pmdmapped = -1, at_exec = -1;
	int i, passes, run, status;

	for (run = 0; run < 2; run++) {
		pad0 = read_vmstat(HT_PAD_TAIL);
		head0 = read_vmstat(HT_PAD_HEAD);
		/* first-fault reads, huge or not (kernels that read text at faults) */
		rd0 = read_vmstat(HT_FAULT_ALLOC);
		fb0 = read_vmstat(HT_FAULT_FALLBACK);
		opted0 = read_vmstat(HT_SKIP_OPTED_OUT);
		/* khugepaged's work meanwhile, reported on a failure */
		sc0 = read_num(FULL_SCANS);
		ca0 = read_vmstat("thp_collapse_alloc");
		cf0 = read_vmstat("thp_collapse_alloc_failed");
		ASSERT_EQ(pad_evict(self->path), 0);
		if (variant->warm) {
			/* a first run reads the text in; the second starts warm */
			ASSERT_EQ(pad_start(&self->pid, self->path, PAD_PR_KNOB, base + data), 0) {
				TH_LOG("%s did not start or reach its store", self->path);
			}
			pad_reap(&self->pid);
		}
		ok0 = read_vmstat(HT_EXEC_COLLAPSED);
		map0 = read_vmstat(HT_EXEC_MAPPED);
		if (variant->stop) {
			/* stopped by its exec, before its first instruction: its PMDs */
			self->pid = pad_spawn(self->path, variant->pr, true);
			ASSERT_GT(self->pid, 0);
			ASSERT_EQ(waitpid(self->pid, &status, 0), self->pid);
			ASSERT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP);
			at_exec = pad_smaps(self->pid, self->path, &start, &end);
			ASSERT_EQ(ptrace(PTRACE_DETACH, self->pid, 0, 0), 0);
			ASSERT_TRUE(pad_wait_store(self->pid, base + data));
		} else {
			/* the store, then the PMDs: up to 3 s each */
			ASSERT_EQ(pad_start(&self->pid, self->path, variant->pr, base + data), 0) {
				TH_LOG("%s did not start or reach its store", self->path);
			}
		}
		if (variant->thp != THP_NEVER) {
			passes = khugepaged_awake(&self->settings, pmd, 3, 30);
			ksft_print_msg("khugepaged: %d full passes\n", passes);
			EXPECT_GE(passes, 3);
			/*
			 * khugepaged's collapse retracts the region's page
			 * table: its next touch (the program's next call into
			 * it) maps the PMD
			 */
			EXPECT_TRUE(pad_same(self->pid, base + pmd, self->path, pmd, 4096));
		}
		for (i = 0; i < 300; i++) {
			pmdmapped = pad_smaps(self->pid, self->path, &start, &end);
			if (pmdmapped >= want_pmd)
				break;
			usleep(10000);
		}
		ksft_print_msg("text mapped %#lx-%#lx, %ld kB PMD-mapped\n", start, end,
			       pmdmapped >> 10);
		/* a kernel that collapses new text at exec has no first-fault read */
		if (pmdmapped == want_pmd || rd0 < 0 || fb0 < 0)
			break;
		rd = read_vmstat(HT_FAULT_ALLOC) - rd0;
		fb = read_vmstat(HT_FAULT_FALLBACK) - fb0;
		ksft_print_msg("%s +%ld, %s +%ld\n", HT_FAULT_ALLOC, rd, HT_FAULT_FALLBACK, fb);
		ksft_print_msg("khugepaged: full_scans +%ld, collapse_alloc +%ld, _failed +%ld\n",
			       (long)read_num(FULL_SCANS) - sc0,
			       read_vmstat("thp_collapse_alloc") - ca0,
			       read_vmstat("thp_collapse_alloc_failed") - cf0);
		/*
		 * The known open failure, and only it, runs once more:
		 * nothing PMD-mapped where the first faults should have read
		 * huge folios, and no first-fault read counted, huge or not
		 * (make check counts the rerun)
		 */
		if (run || pmdmapped || !on || variant->warm || variant->thp != THP_NEVER ||
		    rd || fb)
			break;
		pad_flake_report(self->path, self->pid);
		ksft_print_msg("KNOWN OPEN ISSUE: small pages, no first fault counted; rerun\n");
		pad_reap(&self->pid);
	}
	EXPECT_EQ(start, want_start);
	EXPECT_EQ(end, want_end);
	EXPECT_EQ(pmdmapped, want_pmd);
	/* what is mapped executable, padding included, is the file's */
	ASSERT_LT(start, end);
	EXPECT_TRUE(pad_same(self->pid, start, self->path, start - base, end - start));
	if (pad0 >= 0 && head0 >= 0) {
		EXPECT_EQ(read_vmstat(HT_PAD_TAIL) - pad0, variant->tail);
		EXPECT_EQ(read_vmstat(HT_PAD_HEAD) - head0, variant->head);
	}
	if (variant->pr == PAD_PR_THP_DISABLE && opted0 >= 0)
		EXPECT_GT(read_vmstat(HT_SKIP_OPTED_OUT), opted0);
	if (!variant->stop)
		return;
	/*
	 * A kernel that collapses new text on the way out of exec (no
	 * HT_FAULT_ALLOC) has every region PMD-mapped before the first
	 * instruction: collapsed from a cold page cache, mapped from a warm
	 * one, each counted once; one that reads at the first fault, none.
	 */
	ksft_print_msg("stopped by its exec: %ld kB PMD-mapped\n", at_exec >> 10);
	EXPECT_EQ(at_exec, rd0 < 0 ? want_pmd : 0);
	if (rd0 < 0 && ok0 >= 0 && map0 >= 0) {
		ok0 = read_vmstat(HT_EXEC_COLLAPSED) - ok0;
		map0 = read_vmstat(HT_EXEC_MAPPED) - map0;
		ksft_print_msg("at exec: collapsed +%ld, mapped from huge page cache +%ld\n",
			       ok0, map0);
		EXPECT_EQ(ok0 + map0, want_pmd / (long)pmd);
		EXPECT_EQ(variant->warm ? ok0 : map0, 0);
	}
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
		HT_FAULT_ALLOC, HT_COLLAPSE_ALLOC, HT_EXEC_MAPPED,
		HT_PAD_TAIL, HT_PAD_HEAD, NULL
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
	SKIP_UNLESS_ROOT(return);
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
	settings_set_mode(&self->settings, PR_HT_FILE);
	thp_write_settings(&self->settings);
	ASSERT_EQ(path_write(PAD_KNOB, "4096"), 0);
	ASSERT_EQ(path_write(RODATA_KNOB, "0"), 0);
	ASSERT_EQ(mode_write(PR_HT_FILE), 0);
	if (HT_PAD_SETTLES_KHUGEPAGED)
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

TEST_HARNESS_MAIN
