// SPDX-License-Identifier: GPL-2.0
/*
 * The prompt collapse in an exec storm: one worker per CPU fork()s and
 * exec()s a program that exits at once, as fast as it can.  Each process
 * collapses its own new text on its way back to user space, so the work
 * must stay bounded by the text, not by the number of execs:
 *  - cold page cache, hugetext on, all workers exec'ing hugetext_bigtext
 *    (7 full 2 MB regions) at once: each region is copied exactly once in
 *    all (nr_file_hugepages grows by 7), the other execs only map PMDs or
 *    lose a race and go on;
 *  - then, alternately with hugetext_enabled=1 and 0 (ROUNDS each), no
 *    region is copied again and every exec succeeds.
 * It prints execs/s for each round, with hugetext_bigtext and /bin/true:
 * TCG on a shared host, so those rates are figures for
 * Documentation/bench.md (measured on a quiet host), not pass criteria.
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
#define BIG_REGIONS	7	/* full 2 MB regions of hugetext_bigtext's text */

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

/* huge folios in the page cache: one per region copied, by anyone */
static long regions_copied(void)
{
	return vmstat_read("nr_file_hugepages");
}

/* @regions: full 2 MB text regions of the program (0: check nothing copied) */
static void measure(const char *what, char *const argv[], int workers, long regions)
{
	double on = 0, off = 0, r;
	long c0, c1;
	bool bad = false;
	int i;

	if (regions) {
		drop_caches();
		knob_write(KNOB_ENABLED, "1");
		c0 = regions_copied();
		r = storm(argv, workers, SECS);
		c1 = regions_copied();
		ksft_print_msg("%s: cold page cache, hugetext on: %.1f execs/s, %ld regions copied\n",
			       what, r, c1 - c0);
		ksft_test_result(r > 0 && c1 - c0 == regions,
				 "%s, %d workers exec'ing at once, cold: each of its %ld regions copied once (%ld)\n",
				 what, workers, regions, c1 - c0);
	}
	c0 = regions_copied();
	for (i = 0; i < 2 * ROUNDS; i++) {
		bool hon = !(i % 2);

		knob_write(KNOB_ENABLED, hon ? "1" : "0");
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
	c1 = regions_copied();
	ksft_print_msg("%s: mean %.1f execs/s with hugetext on, %.1f off (%.1f %%; TCG, a figure, not a criterion)\n",
		       what, on, off, off > 0 ? 100 * on / off : 0);
	ksft_test_result(!bad && c1 == c0,
			 "%s, %d workers, %d s x %d rounds on and off: every exec succeeded, no region copied again (%ld)\n",
			 what, workers, SECS, ROUNDS, c1 - c0);
}

int main(void)
{
	char big[600];
	char *big_argv[] = { big, "addr", NULL };
	char *true_argv[] = { "/bin/true", NULL };
	int workers = sysconf(_SC_NPROCESSORS_ONLN);

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	snprintf(big, sizeof(big), "%s/hugetext_bigtext", self_dir());
	ksft_set_plan(3);
	knobs_save();
	knob_write("enabled", "madvise");
	khugepaged_defaults();
	measure("16M-text ET_EXEC (hugetext_bigtext)", big_argv, workers, BIG_REGIONS);
	measure("/bin/true", true_argv, workers, 0);
	knobs_restore();
	ksft_finished();
}
