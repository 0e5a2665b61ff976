// SPDX-License-Identifier: GPL-2.0
/*
 * File text collapse: run hugetext_bigtext (16 MB of congruent ET_EXEC text
 * on ext4) under hugetext modes 0..3 x THP always/madvise/never and with
 * opt-outs, and check that its text is PMD-mapped exactly when it should be
 * (bit 0 or THP=always, and no opt-out), that it still computes the right
 * results and that its mapped text equals its file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

static char bigtext[512];

struct tcase {
	const char *hugetext;
	const char *thp;
	const char *expect;	/* "huge" or "none" */
	int optout;		/* 0, OPT_MADV, OPT_PRCTL */
	const char *why;
};

#define OPT_MADV	1
#define OPT_PRCTL	2

static const struct tcase cases[] = {
	{ "1", "madvise", "huge", 0, "hugetext=1 collapses text with THP=madvise" },
	{ "1", "never", "huge", 0, "hugetext=1 collapses text with THP=never" },
	{ "3", "never", "huge", 0, "hugetext=3 collapses text with THP=never" },
	{ "0", "madvise", "none", 0, "hugetext=0 leaves text alone with THP=madvise" },
	{ "0", "never", "none", 0, "hugetext=0 leaves text alone with THP=never" },
	{ "2", "madvise", "none", 0, "hugetext=2 (anon only) leaves file text alone" },
	{ "2", "never", "none", 0, "hugetext=2 (anon only) leaves file text alone with THP=never" },
	{ "3", "madvise", "huge", 0, "hugetext=3 collapses text with THP=madvise" },
	{ "0", "always", "huge", 0, "hugetext=0, THP=always: khugepaged collapses text as upstream does" },
	{ "1", "always", "huge", 0, "hugetext=1 collapses text with THP=always" },
	{ "2", "always", "huge", 0, "hugetext=2, THP=always: text collapsed by THP alone" },
	{ "3", "always", "huge", 0, "hugetext=3 collapses text with THP=always" },
	{ "1", "madvise", "none", OPT_MADV, "MADV_NOHUGEPAGE keeps text at 4K under hugetext=1" },
	{ "1", "madvise", "none", OPT_PRCTL, "PR_SET_THP_DISABLE keeps text at 4K under hugetext=1" },
};

static int run_case(const struct tcase *c)
{
	pid_t pid;
	int status;

	if (knob_write(KNOB_ENABLED, c->hugetext) ||
	    knob_write("enabled", c->thp)) {
		ksft_print_msg("cannot set hugetext_enabled=%s enabled=%s\n",
			       c->hugetext, c->thp);
		return -1;
	}
	khugepaged_fast();
	/* start from a cold page cache so earlier cases leave no huge pages */
	drop_caches();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (c->optout == OPT_PRCTL && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			_exit(3);
		if (c->optout == OPT_MADV)
			execl(bigtext, bigtext, c->expect, "--madv-nohuge", NULL);
		else
			execl(bigtext, bigtext, c->expect, NULL);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
	size_t i;
	char *slash;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	snprintf(bigtext, sizeof(bigtext), "%s", argv[0]);
	slash = strrchr(bigtext, '/');
	snprintf(slash ? slash + 1 : bigtext, sizeof(bigtext) - (slash ? slash + 1 - bigtext : 0),
		 "hugetext_bigtext");
	if (access(bigtext, X_OK))
		ksft_exit_fail_msg("%s: %s\n", bigtext, strerror(errno));

	knobs_save();
	ksft_set_plan(sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_case(&cases[i]);

		ksft_test_result(rc == 0, "%s\n", cases[i].why);
	}
	knobs_restore();
	ksft_finished();
}
