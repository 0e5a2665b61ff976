// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/transparent_hugepage/hugetext_enabled: every value 0..3
 * round-trips, every bad write (the knob table's, tools/lib/hugetext/knobs.list) fails
 * with EINVAL and changes nothing, and enabling hugetext starts khugepaged
 * even with THP "never" (disabling stops it again).  Finally, good and bad writers race on hugetext_enabled
 * and hugetext_pad_threshold: the bad writes still all fail and the value
 * ends as the last good write left it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"


static char longstr[8192];

/*
 * Concurrent writers: one process writes good values (the last one known),
 * another bad ones, @rounds each.  Every bad write must fail with EINVAL,
 * every good one succeed, and the knob must end at the last good value.
 */
static int concurrent_writers(const char *knob, const char *const *good,
			      int ngood, int rounds)
{
	char over[32];	/* the knob's maximum + 1 (the table's, on this PMD size) */
	const char *const junk[] = { "-1", "0x1", " 1", over, "abc", longstr };
	int status, i, errs = 0;
	pid_t w[2];

	snprintf(over, sizeof(over), "%ld", knob_max(knob) + 1);

	for (i = 0; i < 2; i++) {
		w[i] = fork();
		if (w[i] == 0) {
			int r, bad = 0;

			for (r = 0; r < rounds; r++) {
				int err = i ? knob_write(knob, junk[r % 6]) :
					      knob_write(knob, good[r % ngood]);

				if (i ? err != -EINVAL : err != 0)
					bad++;
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (i = 0; i < 2; i++)
		if (w[i] < 0 || waitpid(w[i], &status, 0) != w[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			errs++;
	if (errs)
		return -1;
	return knob_read_long(knob) == strtol(good[(rounds - 1) % ngood], NULL, 10) ? 0 : -2;
}

int main(void)
{
	char want[8];
	int v, err;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	memset(longstr, '1', sizeof(longstr) - 1);
	ksft_set_plan(8 + KNOB_TABLE_RESULTS + 4 + 2);
	knobs_save();

	for (v = 0; v <= 3; v++) {
		snprintf(want, sizeof(want), "%d\n", v);
		err = knob_write(KNOB_ENABLED, want);
		ksft_test_result(!err && knob_read_long(KNOB_ENABLED) == v,
				 "write \"%d\\n\" reads back %d\n", v, v);
		snprintf(want, sizeof(want), "%d", 3 - v);
		err = knob_write(KNOB_ENABLED, want);
		ksft_test_result(!err && knob_read_long(KNOB_ENABLED) == 3 - v,
				 "write \"%d\" reads back %d\n", 3 - v, 3 - v);
	}

	knob_test_table(KNOB_ENABLED);

	/* khugepaged follows hugetext even when THP does not need it */
	if (knob_write("enabled", "never") ||
	    (knob_exists("hugepages-2048kB/enabled") &&
	     knob_write("hugepages-2048kB/enabled", "inherit"))) {
		ksft_test_result_fail("cannot set THP enabled=never\n");
		ksft_test_result_skip("khugepaged start/stop needs THP=never\n");
		ksft_test_result_skip("khugepaged start/stop needs THP=never\n");
		ksft_test_result_skip("khugepaged start/stop needs THP=never\n");
	} else {
		knob_write(KNOB_ENABLED, "0");
		ksft_test_result(!khugepaged_running(),
				 "THP=never, hugetext=0: khugepaged is not running\n");
		knob_write(KNOB_ENABLED, "1");
		ksft_test_result(khugepaged_running(),
				 "THP=never, hugetext=1: khugepaged runs\n");
		knob_write(KNOB_ENABLED, "2");
		ksft_test_result(khugepaged_running(),
				 "THP=never, hugetext=2: khugepaged runs\n");
		knob_write(KNOB_ENABLED, "0");
		ksft_test_result(!khugepaged_running(),
				 "THP=never, hugetext=0 again: khugepaged stopped\n");
	}
	{
		static const char *const good_mode[] = { "1", "3", "0", "2" };
		char max[32];	/* the table's maximum: PMD size - 1 */
		const char *const good_pad[] = { "4096", "0", max, "65536" };
		int rc = concurrent_writers(KNOB_ENABLED, good_mode, 4, 2000);

		snprintf(max, sizeof(max), "%ld", knob_max(KNOB_PAD_THRESHOLD));

		ksft_test_result(rc == 0,
				 "%s: 2000 good and 2000 bad writes racing: bad ones all EINVAL, value is the last good one (%d)\n",
				 KNOB_ENABLED, rc);
		if (!knob_exists(KNOB_PAD_THRESHOLD))
			ksft_test_result_skip("no hugetext_pad_threshold\n");
		else {
			rc = concurrent_writers(KNOB_PAD_THRESHOLD, good_pad, 4, 2000);
			ksft_test_result(rc == 0,
					 "hugetext_pad_threshold: 2000 good and 2000 bad writes racing: bad ones all EINVAL, value is the last good one (%d)\n",
					 rc);
		}
	}
	knobs_restore();
	ksft_finished();
}
