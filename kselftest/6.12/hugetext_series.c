// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetext selftests' mode, on this series' knob: hugetext_enabled,
 * 0 to 3, its bits those of the prctl.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "hugetext_series.h"
#include "hugetext_helpers.h"

unsigned long mode_read(void)
{
	return read_num(KNOB);
}

int mode_write(unsigned long mode)
{
	return path_write_num(KNOB, mode);
}

void settings_set_mode(struct thp_settings *settings, unsigned long mode)
{
	settings->hugetext_enabled = mode;
}

/* the settings' tests' values (hugetext_series.h) */
const char * const mode_knobs[] = { KNOB, NULL };
const char * const mode_values[] = { "0", "1", "2", "3", NULL };
const char * const mode_ends[] = { "0", "3", NULL };
const char * const mode_bad[] = {
	"4", "5\n", "-1", "-0", "+1", "0x1", "01x", "1x", "1.0", " 1",
	"1 ", "\t2", "", "\n", "11", "3\n4", "1\n\n", "abc",
	"99999999999999999999999", "18446744073709551617", NULL,
};

const char * const mode_race[] = { "1", "3", "0", "2", NULL };

/* hugetext=0..3, one digit */
long boot_mode(const char *val)
{
	return strlen(val) == 1 && val[0] >= '0' && val[0] <= '3' ? val[0] - '0' : -1;
}

bool mode_knob_holds(const char *path, const char *val)
{
	return read_num(path) == strtoul(val, NULL, 10);
}
