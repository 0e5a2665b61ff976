// SPDX-License-Identifier: GPL-2.0
/*
 * The tool where a PMD is too large for hugetext.  The kernel's side (the
 * knob, the prctl and the boot parameter refused where a PMD maps more
 * than 32 MB, allowed up to 32 MB) is the kselftest's (big_pmd,
 * boot_param, tools/testing/selftests/mm/hugetext_settings.c); this checks
 * what a user is told: "hugetext enable 1" (/opt/hugetext/hugetext in the
 * guest's rootfs)
 *  - where a PMD maps more than 32 MB (the arm64-64k boot of
 *    scripts/boots.list), exits 3 naming EOPNOTSUPP and the PMD size, and
 *    the knob stays 0;
 *  - where it maps 32 MB or less (4 KB pages; arm64's 16 KB pages), exits
 *    0 and the knob reads 1.
 * The knob is saved and restored.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

/* the tool, where scripts/mkrootfs.sh installs it */
#define TOOL "/opt/hugetext/hugetext"
/* the largest PMD the series runs hugetext with (mm/hugetext.c) */
#define PMD_MAX (32UL << 20)

int main(void)
{
	char out[1024], size[32], *argv[] = { "/bin/sh", "-c",
		"python3 " TOOL " enable 1 2>&1", NULL };
	unsigned long pmd;
	long got;
	int rc;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	ksft_need_program("/usr/bin/python3", TOOL);
	pmd = pmd_size();
	ksft_set_plan(1);
	knobs_save();
	knob_write_or_fail(KNOB_ENABLED, "0");
	rc = run_helper(argv, out, sizeof(out), NULL, false);
	got = knob_read_long(KNOB_ENABLED);
	print_indented(out);
	snprintf(size, sizeof(size), "%lu MB", pmd >> 20);
	if (pmd > PMD_MAX)
		ksft_test_result(rc == 3 && strstr(out, "Operation not supported") &&
				 strstr(out, size) && got == 0,
				 "a PMD of %s: hugetext enable 1 exits %d (expected 3), says why, knob reads %ld\n",
				 size, rc, got);
	else
		ksft_test_result(rc == 0 && got == 1,
				 "a PMD of %s: hugetext enable 1 exits %d (expected 0), knob reads %ld\n",
				 size, rc, got);
	ksft_finished();
}
