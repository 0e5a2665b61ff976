// SPDX-License-Identifier: GPL-2.0
/*
 * The hugetext selftests' mode, on this series' knobs: exec_file_enabled
 * and exec_anon_enabled, each "always" or "prctl".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "hugetext_series.h"
#include "hugetext_helpers.h"

int knob_always(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && !strcmp(buf, "[always] prctl\n"))
		return 1;
	return n > 0 && !strcmp(buf, "always [prctl]\n") ? 0 : -1;
}

unsigned long mode_read(void)
{
	return (knob_always(FILE_KNOB) == 1 ? PR_THP_EXEC_FILE : 0) |
	       (knob_always(ANON_KNOB) == 1 ? PR_THP_EXEC_ANON : 0);
}

int mode_write(unsigned long mode)
{
	int err = path_write(FILE_KNOB,
			     mode & PR_THP_EXEC_FILE ? "always" : "prctl");

	return err ? err : path_write(ANON_KNOB, mode & PR_THP_EXEC_ANON ?
				      "always" : "prctl");
}

void settings_set_mode(struct thp_settings *settings, unsigned long mode)
{
	settings->exec_enabled = mode;
}
