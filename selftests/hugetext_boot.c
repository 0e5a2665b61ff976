// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetext= boot parameter: the knob shows the value the kernel was
 * booted with, a bad value leaves 0 and exactly one clear line in the kernel
 * log, a good one none.  Run once per boot (hugetext=0, 1, 3, garbage...).
 */
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "hugetext_util.h"

int main(void)
{
	const char *val;
	long expect = 0, got;
	bool valid = true;
	int lines;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	val = kernel_param("hugetext");
	ksft_set_plan(2);
	if (val) {
		valid = strlen(val) == 1 && val[0] >= '0' && val[0] <= '3';
		expect = valid ? val[0] - '0' : 0;
	}
	got = knob_read_long(KNOB_ENABLED);
	ksft_test_result(got == expect, "booted with hugetext=%s: knob reads %ld (expected %ld)\n",
			 val ? val : "<none>", got, expect);

	lines = klog_count("hugetext: invalid hugetext=");
	ksft_test_result(lines == (valid ? 0 : 1),
			 "%d \"hugetext: invalid hugetext=\" line(s) in the kernel log (expected %d)\n",
			 lines, valid ? 0 : 1);
	ksft_finished();
}
