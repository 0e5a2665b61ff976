// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: its settings, what an admin sets: the mode's knobs (values
 * round-trip, bad input refused, khugepaged following them, writers
 * racing), the padding and cap knobs, the boot parameter as booted and,
 * where the series limits the PMD size hugetext runs with (HT_PMD_MAX),
 * hugetext refused above it (big_pmd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"

/*
 * Write each of @bad (NULL-terminated; "" is a zero-length write, which
 * never reaches ->store() and returns 0) to @path over each of @keep:
 * EINVAL, and the value kept.
 */
static void knob_refuses(struct __test_metadata *_metadata, const char *path,
			 const char * const *bad, const unsigned long *keep, int nkeep)
{
	int i, k;

	for (k = 0; k < nkeep; k++) {
		ASSERT_EQ(path_write_num(path, keep[k]), 0);
		for (i = 0; bad[i]; i++) {
			EXPECT_EQ(path_write(path, bad[i]), bad[i][0] ? -EINVAL : 0) {
				TH_LOG("%s: write of \"%.24s\" (%zu bytes) over %lu", path,
				       bad[i], strlen(bad[i]), keep[k]);
			}
			EXPECT_EQ(read_num(path), keep[k]);
		}
	}
}

/* each of @good, written with a newline and without, reads back */
static void knob_takes(struct __test_metadata *_metadata, const char *path,
		       const unsigned long *good, int ngood)
{
	char val[32];
	int i, nl;

	for (i = 0; i < ngood; i++)
		for (nl = 0; nl < 2; nl++) {
			snprintf(val, sizeof(val), nl ? "%lu\n" : "%lu", good[i]);
			EXPECT_EQ(path_write(path, val), 0) {
				TH_LOG("%s: write of %lu refused", path, good[i]);
			}
			EXPECT_EQ(read_num(path), good[i]);
		}
}

/*
 * The boot parameter (HT_BOOT_PARAM): the mode holds what the kernel was
 * booted with (boot_mode(); no parameter is 0), a bad value leaves 0 and
 * one line in the kernel log (HT_BOOT_INVALID), a good one none; where a
 * PMD maps more than HT_PMD_MAX a non-zero one is refused: 0 and one line.
 * Meant to run in boots with good and bad values, before any test leaves
 * a knob changed.
 */
TEST(boot_param)
{
	const char *val;
	long kinds = 0;
	bool refused;
	int lines;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	val = cmdline_value(HT_BOOT_PARAM);
	if (val)
		kinds = boot_mode(val);
	/* where a PMD maps more than HT_PMD_MAX the value is refused, with a line */
	refused = HT_PMD_MAX && kinds > 0 && read_pmd_pagesize() > HT_PMD_MAX;
	EXPECT_EQ(mode_read(), kinds < 0 || refused ? 0 : (unsigned long)kinds) {
		TH_LOG("booted with %s=%s", HT_BOOT_PARAM, val ? val : "<none>");
	}
	lines = klog_count(HT_BOOT_INVALID);
	ASSERT_GE(lines, 0) {
		TH_LOG("cannot read the kernel log");
	}
	EXPECT_EQ(lines, kinds < 0 ? 1 : 0) {
		TH_LOG("booted with %s=%s: %d \"%s\" lines", HT_BOOT_PARAM,
		       val ? val : "<none>", lines, HT_BOOT_INVALID);
	}
	if (HT_PMD_MAX)
		EXPECT_EQ(klog_count("refused: a PMD maps"), refused);
}

#if HT_PMD_MAX
/*
 * PMD-mapped kB of a read-write-execute anonymous mapping of two PMDs
 * touched once, at its PMD boundary
 */
static long rwx_touched_huge(unsigned long pmdsize)
{
	char *m = mmap(NULL, 2 * pmdsize, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;
	long kb;

	if (m == MAP_FAILED)
		return -1;
	a = (char *)(((unsigned long)m + pmdsize - 1) & ~(pmdsize - 1));
	a[0] = (char)0xc3;
	kb = check_huge_anon(a, pmdsize, 1, pmdsize) ? (long)(pmdsize >> 10) :
	     check_huge_anon(a, pmdsize, 0, pmdsize) ? 0 : -1;
	munmap(m, 2 * pmdsize);
	return kb;
}

/*
 * hugetext stays off where a PMD maps more than 32M (arm64 with 64K pages:
 * 512M): turning text, JIT code or both on with the knobs fails with
 * EOPNOTSUPP and leaves them off, turning them on by prctl fails the same
 * way and leaves the process on the system setting, and with THP "never"
 * a read-write-execute mapping touched once gets no huge page whatever was
 * tried.  Where a PMD maps 32M or less (4K pages: 2M; arm64 with 16K
 * pages: 32M, the boundary) the same calls succeed and the touched region
 * is PMD-mapped.  Turning it off (the knobs off, PR_HT_SET alone) and
 * PR_HT_SYSTEM succeed on both sides.
 */
TEST(big_pmd)
{
	static const unsigned long pr_on[] = {
		PR_HT_SET | PR_HT_FILE, PR_HT_SET | PR_HT_ANON,
		PR_HT_SET | PR_HT_FILE | PR_HT_ANON,
	};
	unsigned long pmdsize = read_pmd_pagesize(), saved;
	bool big = pmdsize > HT_PMD_MAX;
	struct thp_settings settings;
	unsigned int i;
	long rc, kb;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	TH_LOG("a PMD maps %luM: hugetext %s", pmdsize >> 20, big ? "refused" : "allowed");
	saved = mode_read();
	/* each kind and both, on the series' knobs (mode_write()) */
	for (i = 1; i <= (PR_HT_FILE | PR_HT_ANON); i++) {
		rc = mode_write(i);
		EXPECT_EQ(rc, big ? -EOPNOTSUPP : 0) {
			TH_LOG("turning on kinds %#x", i);
		}
		EXPECT_EQ(mode_read(), big ? 0 : i);
	}
	EXPECT_EQ(mode_write(0), 0);

	for (i = 0; i < ARRAY_SIZE(pr_on); i++) {
		rc = prctl(PR_SET_HT, pr_on[i], 0, 0, 0);
		EXPECT_EQ(rc ? errno : 0, big ? EOPNOTSUPP : 0) {
			TH_LOG("%s %#lx", PR_SET_HT_NAME, pr_on[i]);
		}
		EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0),
			  big ? PR_HT_SYSTEM : (long)pr_on[i]);
		EXPECT_EQ(prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0), 0);
	}
	EXPECT_EQ(prctl(PR_SET_HT, PR_HT_SET, 0, 0, 0), 0);
	EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), (long)PR_HT_SET);
	EXPECT_EQ(prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0), 0);

	/* JIT code asked for every way, with THP "never" */
	thp_save_settings();
	thp_read_settings(&settings);
	settings.thp_enabled = THP_NEVER;
	thp_write_settings(&settings);
	mode_write(PR_HT_ANON);
	prctl(PR_SET_HT, PR_HT_SET | PR_HT_ANON, 0, 0, 0);
	kb = rwx_touched_huge(pmdsize);
	prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0);
	thp_restore_settings();
	mode_write(saved);
	EXPECT_EQ(kb, big ? 0 : (long)(pmdsize >> 10)) {
		TH_LOG("a touched %luM read-write-execute mapping: %ld kB PMD-mapped",
		       2 * pmdsize >> 20, kb);
	}
}
#endif

/*
 * The mode's knobs (mode_knobs[]): each of mode_values[] round-trips,
 * written with a newline and without; anything else (mode_bad[] and 8191
 * bytes of HT_MODE_LONG), written over each of mode_ends[], is EINVAL and
 * changes nothing (a zero-length write never reaches ->store() and
 * returns 0); where the mode is two knobs, each is its own.
 */
TEST(knob)
{
	static char longval[8192];
	unsigned int k, g, e, nl, i;
	const char *bad, *knob;
	unsigned long saved;
	char val[16];

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	memset(longval, HT_MODE_LONG, sizeof(longval) - 1);
	saved = mode_read();
	for (k = 0; mode_knobs[k]; k++) {
		knob = mode_knobs[k];
		for (g = 0; mode_values[g]; g++)
			for (nl = 0; nl < 2; nl++) {
				snprintf(val, sizeof(val), nl ? "%s\n" : "%s", mode_values[g]);
				EXPECT_EQ(path_write(knob, val), 0) {
					TH_LOG("%s: write of %s refused", knob, mode_values[g]);
				}
				EXPECT_TRUE(mode_knob_holds(knob, mode_values[g]));
			}
		for (e = 0; mode_ends[e]; e++) {
			ASSERT_EQ(path_write(knob, mode_ends[e]), 0);
			for (i = 0; i == 0 || mode_bad[i - 1]; i++) {
				/* the list, then the long value */
				bad = mode_bad[i] ? mode_bad[i] : longval;
				EXPECT_EQ(path_write(knob, bad), bad[0] ? -EINVAL : 0) {
					TH_LOG("%s: write of \"%.24s\" (%zu bytes) over %s",
					       knob, bad, strlen(bad), mode_ends[e]);
				}
				EXPECT_TRUE(mode_knob_holds(knob, mode_ends[e]));
			}
		}
	}
	if (k > 1) {
		ASSERT_EQ(mode_write(PR_HT_FILE), 0);
		EXPECT_EQ(mode_read(), PR_HT_FILE);
		ASSERT_EQ(mode_write(PR_HT_ANON), 0);
		EXPECT_EQ(mode_read(), PR_HT_ANON);
	}
	mode_write(saved);
}

/*
 * khugepaged follows hugetext even where THP does not need it: with THP
 * "never" (every size and shmem too), hugetext 1 or 2 starts the thread and
 * 0 stops it again (seen within 2 s).
 */
TEST(knob_khugepaged)
{
	struct thp_settings settings;
	unsigned long saved, pmdsize = read_pmd_pagesize();

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	ASSERT_NE(pmdsize, 0);
	saved = mode_read();
	thp_save_settings();
	thp_read_settings(&settings);
	settings.thp_enabled = THP_NEVER;
	memset(settings.hugepages, 0, sizeof(settings.hugepages));
	settings.shmem_enabled = SHMEM_NEVER;
	thp_write_settings(&settings);

	EXPECT_EQ(mode_write(0), 0);
	EXPECT_FALSE(khugepaged_running(false));
	EXPECT_EQ(mode_write(PR_HT_FILE), 0);
	EXPECT_TRUE(khugepaged_running(true));
	EXPECT_EQ(mode_write(PR_HT_ANON), 0);
	EXPECT_TRUE(khugepaged_running(true));
	EXPECT_EQ(mode_write(0), 0);
	EXPECT_FALSE(khugepaged_running(false));

	mode_write(saved);
	thp_restore_settings();
}

/*
 * Two writers race on @path, @rounds writes each: one cycles through
 * @good (each must succeed), the other through @bad (each must fail with
 * EINVAL).  The caller checks that the knob holds the last good value.
 */
static void race_writers(struct __test_metadata *_metadata, const char *path,
			 const char * const *good, unsigned int ngood,
			 const char * const *bad, unsigned int nbad,
			 unsigned int rounds)
{
	unsigned int r, w, wrong;
	int status;
	pid_t pid[2];

	for (w = 0; w < 2; w++) {
		pid[w] = fork();
		ASSERT_GE(pid[w], 0);
		if (pid[w])
			continue;
		for (wrong = 0, r = 0; r < rounds; r++)
			if (w ? path_write(path, bad[r % nbad]) != -EINVAL :
				path_write(path, good[r % ngood]) != 0)
				wrong++;
		_exit(wrong ? 1 : 0);
	}
	for (w = 0; w < 2; w++) {
		ASSERT_EQ(waitpid(pid[w], &status, 0), pid[w]);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
			TH_LOG("%s: the %s writer saw wrong results", path,
			       w ? "bad" : "good");
		}
	}
}

/*
 * Good and bad writes racing on HT_KNOB and the padding threshold: no bad
 * one is taken, no good one refused, and each knob holds the last good
 * value.
 */
TEST(knob_race)
{
	static const char * const bad[] = {
		"-1", "0x1", " 1", "abc", "18446744073709551617",
	};
	unsigned long pmdsize = read_pmd_pagesize(), mode, thr;
	char max[32], over[32];
	const char * const good_pad[] = { "4096", "0", max, "65536" };
	const char * const bad_mode[] = {
		HT_RACE_BAD_MODE, bad[0], bad[1], bad[2], bad[3], bad[4],
	};
	const char * const bad_pad[] = { over, bad[0], bad[1], bad[2], bad[3], bad[4] };
	unsigned int nr_race = 0;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	ASSERT_NE(pmdsize, 0);
	while (mode_race[nr_race])
		nr_race++;
	mode = mode_read();
	race_writers(_metadata, HT_KNOB, mode_race, nr_race,
		     bad_mode, ARRAY_SIZE(bad_mode), 2000);
	EXPECT_TRUE(mode_knob_holds(HT_KNOB, mode_race[(2000 - 1) % nr_race]));
	mode_write(mode);

	if (access(PAD_KNOB, F_OK))
		return;
	thr = read_num(PAD_KNOB);
	snprintf(max, sizeof(max), "%lu", pmdsize - 1);
	snprintf(over, sizeof(over), "%lu", pmdsize);
	race_writers(_metadata, PAD_KNOB, good_pad, ARRAY_SIZE(good_pad),
		     bad_pad, ARRAY_SIZE(bad_pad), 2000);
	EXPECT_EQ(read_num(PAD_KNOB), 65536);
	path_write_num(PAD_KNOB, thr);
}

/*
 * The padding knobs: PAD_KNOB takes 0 to the PMD size - 1, RODATA_KNOB
 * 0 and 1, each written with a newline and without;
 * anything else, over either end of the range, is EINVAL and changes
 * nothing.
 */
TEST(pad_knobs)
{
	static char digits[4096];
	static const char * const bad_thr[] = {
		"", "\n", "-1", "-0", "+1", "abc", "1x", "4096 ", " 4096", "0x1000",
		"4096.0", "1\n2", "4096\n\n", "\t1", "99999999999999999999999",
		"18446744073709551617", digits, NULL,
	};
	static const char * const bad_rodata[] = {
		"", "\n", "2", "-1", "+1", " 1", "1 ", "01x", "0x1", "1\n2", "true",
		"18446744073709551617", NULL,
	};
	unsigned long pmdsize = read_pmd_pagesize(), thr, rodata;
	char pmd[32], pmd_1[32];
	const char *over[3];		/* the PMD size, the PMD size + 1 */

	SKIP_UNLESS_ROOT(return);
	if (access(PAD_KNOB, F_OK) || access(RODATA_KNOB, F_OK))
		SKIP(return, "no hugetext padding in this kernel\n");
	ASSERT_NE(pmdsize, 0);
	memset(digits, '1', sizeof(digits) - 1);
	snprintf(pmd, sizeof(pmd), "%lu", pmdsize);		/* one too many */
	snprintf(pmd_1, sizeof(pmd_1), "%lu\n", pmdsize + 1);
	over[0] = pmd;
	over[1] = pmd_1;
	over[2] = NULL;
	thr = read_num(PAD_KNOB);
	rodata = read_num(RODATA_KNOB);
	{
		const unsigned long good_thr[] = { 0, 7, 4096, pmdsize - 1 };
		const unsigned long ends_thr[] = { 0, pmdsize - 1 };
		const unsigned long good_rodata[] = { 0, 1 };

		knob_takes(_metadata, PAD_KNOB, good_thr, ARRAY_SIZE(good_thr));
		knob_refuses(_metadata, PAD_KNOB, bad_thr, ends_thr, ARRAY_SIZE(ends_thr));
		knob_refuses(_metadata, PAD_KNOB, over, ends_thr, ARRAY_SIZE(ends_thr));
		knob_takes(_metadata, RODATA_KNOB, good_rodata, ARRAY_SIZE(good_rodata));
		knob_refuses(_metadata, RODATA_KNOB, bad_rodata, good_rodata,
			     ARRAY_SIZE(good_rodata));
	}
	path_write_num(PAD_KNOB, thr);
	path_write_num(RODATA_KNOB, rodata);
}

/*
 * The cap's knobs: CAP_KNOB takes 0..65536, SAMPLE_KNOB 10..600000, each
 * written with a newline and without; anything else,
 * written over both ends of the range, is EINVAL and changes nothing.
 */
TEST(cap_knobs)
{
	static const char * const bad_cap[] = {
		"-1", "+1", "0x1", " 1", "1 ", "\n", "1\n\n", "abc", "1.0",
		"18446744073709551617", "65537", NULL,
	};
	static const char * const bad_sample[] = {
		"-1", "+1", "0x1", " 1", "1 ", "\n", "1\n\n", "abc", "1.0",
		"18446744073709551617", "9", "0", "600001", NULL,
	};
	static const unsigned long good_cap[] = { 0, 8, 65536 };
	static const unsigned long ends_cap[] = { 0, 65536 };
	static const unsigned long good_sample[] = { 10, 1000, 600000 };
	static const unsigned long ends_sample[] = { 10, 600000 };
	unsigned long cap, sample;

	SKIP_UNLESS_ROOT(return);
	if (access(CAP_KNOB, F_OK) || access(SAMPLE_KNOB, F_OK))
		SKIP(return, "no %s in this kernel\n", strrchr(CAP_KNOB, '/') + 1);
	cap = read_num(CAP_KNOB);
	sample = read_num(SAMPLE_KNOB);
	knob_takes(_metadata, CAP_KNOB, good_cap, ARRAY_SIZE(good_cap));
	knob_refuses(_metadata, CAP_KNOB, bad_cap, ends_cap, ARRAY_SIZE(ends_cap));
	knob_takes(_metadata, SAMPLE_KNOB, good_sample, ARRAY_SIZE(good_sample));
	knob_refuses(_metadata, SAMPLE_KNOB, bad_sample, ends_sample, ARRAY_SIZE(ends_sample));
	path_write_num(SAMPLE_KNOB, sample);
	path_write_num(CAP_KNOB, cap);
}

TEST_HARNESS_MAIN
