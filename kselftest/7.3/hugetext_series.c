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

/* the settings' tests' values (hugetext_series.h) */
const char * const mode_knobs[] = { FILE_KNOB, ANON_KNOB, NULL };
const char * const mode_values[] = { "always", "prctl", NULL };
const char * const mode_ends[] = { "always", "prctl", NULL };
const char * const mode_bad[] = {
	"", "\n", "0", "1", "3", "never", "madvise", "Always", "PRCTL",
	"alway", "alwaysx", "always ", " always", "\talways", "always\n\n",
	"always\nprctl", "[always]", "always prctl", "always,prctl",
	"file", NULL,
};

const char * const mode_race[] = { "always", "prctl\n", "prctl", "always\n", NULL };

/*
 * transparent_hugepage_exec=: "none" or a comma-separated list of "file"
 * and "anon"; anything else is refused
 */
long boot_mode(const char *val)
{
	long kinds = 0;
	size_t len;

	if (!strcmp(val, "none"))
		return 0;
	for (;;) {
		len = strcspn(val, ",");
		if (len == 4 && !strncmp(val, "file", 4))
			kinds |= PR_THP_EXEC_FILE;
		else if (len == 4 && !strncmp(val, "anon", 4))
			kinds |= PR_THP_EXEC_ANON;
		else
			return -1;
		val += len;
		if (!*val++)
			return kinds;
	}
}

/* "always" is "[always] prctl", "prctl" "always [prctl]" */
bool mode_knob_holds(const char *path, const char *val)
{
	return knob_always(path) == !strncmp(val, "always", 6);
}
