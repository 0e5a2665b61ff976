// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: the process's own setting, prctl(PR_SET_HT).
 *
 * The prctl itself (prctl_args: its default, bad arguments, /proc/PID/status,
 * inherited by a child and kept over exec), the knobs as the ceiling of what
 * an unprivileged process may set (fixture prctl_ceiling, where the series
 * has that rule: HT_PRCTL_CEILING), and no unprivileged setting across a
 * secure exec (secure_exec).  The test program runs itself again and
 * reports what its exec gave it (hugetext_report.c).  What the setting does
 * to a process's text is hugetext_fault.c's (hugetext.*.prctl), to its JIT
 * code hugetext_jit.c's, to its padding hugetext_pad.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"
#include "hugetext_report.h"

/* /proc/self/status's HT_STATUS_FIELD, -1 when absent */
static long status_hugetext(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, HT_STATUS_FIELD ": %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * prctl(PR_SET_HT) itself: a process starts with PR_HT_SYSTEM;
 * bad values and non-zero unused arguments fail with EINVAL and change
 * nothing; /proc/PID/status shows the setting; a forked child inherits it
 * and keeps it over exec.
 */
TEST(prctl_args)
{
	static const struct {
		unsigned long a2, a3, a4, a5;
	} bad[] = {
		{ PR_HT_FILE }, { PR_HT_ANON },
		{ PR_HT_FILE | PR_HT_ANON }, { 8 },
		{ PR_HT_SET | 8 }, { PR_HT_SET | 0x100 }, { ~0UL },
		{ 1UL << 63 }, { PR_HT_SET | PR_HT_FILE, 1 },
		{ PR_HT_SET | PR_HT_FILE, 0, 1 },
		{ PR_HT_SET | PR_HT_FILE, 0, 0, 1 },
	};
	const unsigned long own = PR_HT_SET | PR_HT_ANON;
	struct report r;
	unsigned int i;
	int status;
	pid_t pid;

	SKIP_UNLESS_ROOT(return);
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	/* the harness never sets it: its children start with the default */
	EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), PR_HT_SYSTEM);
	EXPECT_EQ(status_hugetext(), PR_HT_SYSTEM);

	ASSERT_EQ(prctl(PR_SET_HT, own, 0, 0, 0), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(prctl(PR_SET_HT, bad[i].a2, bad[i].a3, bad[i].a4,
				bad[i].a5), -1) {
			TH_LOG("%s %#lx %lu %lu %lu taken", PR_SET_HT_NAME, bad[i].a2,
			       bad[i].a3, bad[i].a4, bad[i].a5);
		}
		EXPECT_EQ(errno, EINVAL);
		EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), (int)own);
	}
	errno = 0;
	EXPECT_EQ(prctl(PR_GET_HT, 1, 0, 0, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(status_hugetext(), (long)own);

	/* inherited over fork ... */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(prctl(PR_GET_HT, 0, 0, 0, 0) == (int)own &&
		      status_hugetext() == (long)own ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* ... and kept over exec */
	ASSERT_EQ(run_report("/proc/self/exe", PR_KEEP, 0, &r), 0);
	EXPECT_EQ(r.prctl, (int)own);
	EXPECT_EQ(prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0), 0);
	EXPECT_EQ(status_hugetext(), PR_HT_SYSTEM);
}

#if HT_PRCTL_CEILING
/*
 * In a child of the test: drop to uid @NOBODY (and with it every
 * capability), then set what the knob at @mode allows and what it does
 * not.  0, or the number of the step that went wrong.
 */
static int ceiling_steps(unsigned int mode)
{
	const unsigned long text = PR_HT_SET | PR_HT_FILE;

	if (drop_to(NOBODY))
		return 1;
	/* bit 1 is off at @mode 0 and 1: refused, nothing changed */
	errno = 0;
	if (prctl(PR_SET_HT, text | PR_HT_ANON, 0, 0, 0) != -1 ||
	    errno != EPERM)
		return 2;
	if (prctl(PR_GET_HT, 0, 0, 0, 0) != PR_HT_SYSTEM)
		return 3;
	/* bit 0: taken at @mode 1, refused at 0 */
	errno = 0;
	if (prctl(PR_SET_HT, text, 0, 0, 0) != ((mode & 1) ? 0 : -1) ||
	    (!(mode & 1) && errno != EPERM))
		return 4;
	if (prctl(PR_GET_HT, 0, 0, 0, 0) !=
	    (int)((mode & 1) ? text : PR_HT_SYSTEM))
		return 5;
	/* off, and back to the knob: always */
	if (prctl(PR_SET_HT, PR_HT_SET, 0, 0, 0) ||
	    prctl(PR_GET_HT, 0, 0, 0, 0) != (int)PR_HT_SET)
		return 6;
	if (prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0))
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
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
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
	const unsigned long text = PR_HT_SET | PR_HT_FILE;
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
	EXPECT_EQ(prctl(PR_SET_HT, text | PR_HT_ANON, 0, 0, 0), 0);
	EXPECT_EQ(prctl(PR_GET_HT, 0, 0, 0, 0), (int)(text | PR_HT_ANON));
	EXPECT_EQ(prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0), 0);
	/* taken with the knob at 1, kept when it goes to 0 */
	ASSERT_EQ(mode_write(1), 0);
	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(pipe(q), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(p[0]);
		close(q[1]);
		if (drop_to(NOBODY) || prctl(PR_SET_HT, text, 0, 0, 0) ||
		    write(p[1], &c, 1) != 1 || read(q[0], &c, 1) != 1)
			_exit(1);
		_exit(prctl(PR_GET_HT, 0, 0, 0, 0) == (int)text ? 0 : 2);
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
#endif

#define SECURE_EXECS 12

/*
 * No unprivileged setting crosses a secure exec: a process of uid 65534
 * sets hugetext on for itself (the knob at 0) and executes a copy of this
 * program that is set-user-ID root.  The copy runs with AT_SECURE, with
 * PR_HT_SYSTEM, and, as a PIE, is placed as with hugetext off:
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
	const unsigned long own = PR_HT_SET | PR_HT_FILE;
	const uid_t nobody = NOBODY;
	int i, congruent = 0;
	bool pie = self_is_pie() && BLOB_SIZE >= 2 * read_pmd_pagesize();
	struct report r;

	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
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
			TH_LOG("cannot set mode 0 (%s)", HT_KNOB);
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
		EXPECT_EQ(r.prctl, PR_HT_SYSTEM);
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

TEST_HARNESS_MAIN
