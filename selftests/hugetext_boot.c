// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetext= boot parameter: the knob shows the value the kernel was
 * booted with, a bad value leaves 0 and exactly one clear line in the kernel
 * log, a good one none.  Run once per boot (hugetext=0, 1, 3, garbage...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "kselftest.h"
#include "hugetext_util.h"

int main(void)
{
	char cmdline[4096], *arg, *val = NULL, *log, *p;
	long expect = 0, got;
	bool valid = true;
	int len, lines = 0;
	FILE *f;

	ksft_begin_needing("hugetext_enabled", "CONFIG_HUGETEXT");
	f = fopen("/proc/cmdline", "r");
	if (!f || !fgets(cmdline, sizeof(cmdline), f))
		ksft_exit_fail_msg("cannot read /proc/cmdline\n");
	fclose(f);
	for (arg = strtok(cmdline, " \n"); arg; arg = strtok(NULL, " \n"))
		if (!strncmp(arg, "hugetext=", 9))
			val = arg + 9;
	ksft_set_plan(2);
	if (val) {
		valid = strlen(val) == 1 && val[0] >= '0' && val[0] <= '3';
		expect = valid ? val[0] - '0' : 0;
	}
	got = knob_read_long("hugetext_enabled");
	ksft_test_result(got == expect, "booted with hugetext=%s: knob reads %ld (expected %ld)\n",
			 val ? val : "<none>", got, expect);

	len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	log = malloc(len + 1);
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, len);
	if (len < 0)
		ksft_exit_fail_msg("klogctl failed\n");
	log[len] = '\0';
	for (p = log; (p = strstr(p, "hugetext: invalid hugetext=")); p++)
		lines++;
	ksft_test_result(lines == (valid ? 0 : 1),
			 "%d \"hugetext: invalid hugetext=\" line(s) in the kernel log (expected %d)\n",
			 lines, valid ? 0 : 1);
	ksft_finished();
}
