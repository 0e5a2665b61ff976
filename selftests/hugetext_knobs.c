// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext_knobs: the knob table (tools/lib/hugetext/knobs.list), which
 * the hugetext tool, the storms and these tests take every knob's range
 * and bad inputs from, is true of the running kernel: for each knob of
 * the table, its minimum, maximum and default (PMD-relative ones on this
 * machine's PMD size) written with and without a newline read back, and
 * each of its bad values, written over the minimum and over the maximum,
 * fails with EINVAL and changes nothing.  A knob of the table the kernel
 * lacks fails.  The kernel's own selftest (tools/testing/selftests/mm/
 * hugetext_settings.c: knob, pad_knobs, cap_knobs) checks the knobs with values of
 * its own; this one checks the project's table against the kernel.  On
 * the 7.3 series, whose knobs are named as THP's, each line's knob73 file
 * is checked instead; exec_file_enabled and exec_anon_enabled as the
 * table's hugetext_enabled, the number their "always"/"prctl" make
 * (hugetext_util.c), and each bad value must be refused by both.
 */
#include "kselftest.h"
#include "hugetext_util.h"

int main(void)
{
	const char *k;
	int i, n;

	ksft_print_header();
	if (!knob_exists(KNOB_ENABLED))
		ksft_exit_skip("no hugetext in this kernel (no %s%s)\n", THP_DIR, KNOB_ENABLED);
	for (n = 0; knob_table_file(n); n++)
		;
	ksft_set_plan(n * KNOB_TABLE_RESULTS);
	knobs_save();
	for (i = 0; (k = knob_table_file(i)); i++) {
		if (strcmp(knob_kernel_file(k), k))
			ksft_print_msg("%s is %s in this kernel (the 7.3 series' names)\n",
				       k, knob_kernel_file(k));
		if (knob_exists(k)) {
			knob_test_table(k);
			continue;
		}
		ksft_test_result_fail("%s: in the knob table, not in this kernel\n", k);
		ksft_test_result_fail("%s: bad writes not tried\n", k);
	}
	ksft_finished();
}
