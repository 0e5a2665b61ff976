// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetext selftests' mode, on this series' knob: hugetext_enabled,
 * 0 to 3, its bits those of the prctl.
 */
#define _GNU_SOURCE
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
