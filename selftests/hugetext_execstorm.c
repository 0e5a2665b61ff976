// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of the prompt collapse in an exec storm: one worker per CPU
 * fork()s and exec()s a program that exits at once, as fast as it can, for
 * SECS seconds, alternately with hugetext_enabled=1 and 0 (ROUNDS each, the
 * page cache left as it is, so after the first round a 16M-text binary's
 * page cache is huge and hugetext only installs PMDs at each exec).
 * Programs: hugetext_bigtext (16M of text in full 2M regions) and
 * /bin/true.  Pass: execs/s with hugetext on are at least 95 % of off for
 * each (means over the rounds).  A relative figure from one guest: TCG
 * timing, so the absolute rates say nothing about hardware.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define SECS	4
#define ROUNDS	3

/* execs/s of @argv over @secs seconds with @workers parallel loops */
static double storm(char *const argv[], int workers, double secs)
{
	long *count = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t0, end;
	int i, status;

	if (count == MAP_FAILED)
		return -1;
	*count = 0;
	t0 = mono_now();
	end = t0 + secs;
	for (i = 0; i < workers; i++) {
		if (fork() == 0) {
			long n = 0;

			while (mono_now() < end) {
				pid_t pid = fork();

				if (pid == 0) {
					int fd = open("/dev/null", O_WRONLY);

					dup2(fd, 1);
					execv(argv[0], argv);
					_exit(127);
				}
				if (pid < 0 || waitpid(pid, &status, 0) != pid ||
				    !WIFEXITED(status) || WEXITSTATUS(status) == 127)
					_exit(1);
				n++;
			}
			__atomic_add_fetch(count, n, __ATOMIC_RELAXED);
			_exit(0);
		}
	}
	for (i = 0; i < workers; i++) {
		wait(&status);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			*count = -1000000000L;
	}
	secs = mono_now() - t0;
	t0 = *count < 0 ? -1 : *count / secs;
	munmap(count, sizeof(long));
	return t0;
}

static void measure(const char *what, char *const argv[], int workers)
{
	double on = 0, off = 0, r;
	int i;
	bool bad = false;

	for (i = 0; i < 2 * ROUNDS; i++) {
		bool hon = !(i % 2);

		knob_write("hugetext_enabled", hon ? "1" : "0");
		r = storm(argv, workers, SECS);
		ksft_print_msg("%s: round %d, hugetext %s: %.1f execs/s\n",
			       what, i / 2 + 1, hon ? "on " : "off", r);
		if (r <= 0)
			bad = true;
		if (hon)
			on += r / ROUNDS;
		else
			off += r / ROUNDS;
	}
	ksft_test_result(!bad && on >= 0.95 * off,
			 "%s, %d workers: %.1f execs/s with hugetext on, %.1f off: %.1f %% (at least 95 %%)\n",
			 what, workers, on, off, off > 0 ? 100 * on / off : 0);
}

int main(void)
{
	char big[600];
	char *big_argv[] = { big, "addr", NULL };
	char *true_argv[] = { "/bin/true", NULL };
	int workers = sysconf(_SC_NPROCESSORS_ONLN);

	ksft_print_header();
	if (!knob_exists("hugetext_enabled"))
		ksft_exit_skip("kernel without CONFIG_HUGETEXT\n");
	snprintf(big, sizeof(big), "%s/hugetext_bigtext", self_dir());
	ksft_set_plan(2);
	knobs_save();
	knob_write("enabled", "madvise");
	khugepaged_defaults();
	measure("16M-text ET_EXEC (hugetext_bigtext)", big_argv, workers);
	measure("/bin/true", true_argv, workers);
	knobs_restore();
	ksft_finished();
}
