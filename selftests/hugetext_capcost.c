// SPDX-License-Identifier: GPL-2.0
/*
 * The cap's sampler has a bounded cost per period.  200 processes each map
 * the 16 MB text of hugetext_bigtext (8 full 2 MB regions: 1600 regions in
 * all) and wait, with max_nr_hugetext=2 and a 100 ms period.  The sampler
 * may sample at most 1024 regions a period (plus what one process has
 * beyond the budget), so it must leave processes to the next period
 * (hugetext_cap_deferred) and still visit every one of them over a few
 * periods.  Prints the regions sampled and the kworker CPU time per
 * period: the figure, TCG time, for Documentation/bench.md.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define NPROC		200
#define PERIOD_MS	100
#define WATCH_S		6
#define BUDGET		1024
#define REGIONS		8	/* full 2 MB regions of hugetext_bigtext */

/* utime + stime ticks of all kworker threads */
static long kworker_ticks(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long sum = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char buf[512], *p;
		unsigned long ut, st;
		FILE *f;

		f = proc_entry_open(e, "stat");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && strstr(buf, "(kworker")) {
			p = strrchr(buf, ')');
			/* fields after ")": state is 3rd, utime 14th, stime 15th */
			if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
					&ut, &st) == 2)
				sum += ut + st;
		}
		fclose(f);
	}
	closedir(d);
	return sum;
}

/*
 * Wait for a period to end (hugetext_cap_periods moves) and read the
 * counters at once.  The sampler counts hugetext_cap_sampled region by
 * region during a period and hugetext_cap_periods at its end, and the next
 * period starts PERIOD_MS later: read at a period's end, the two agree;
 * read in the middle of one, that period's regions so far would be
 * counted against the periods before it (up to a whole budget, 17 a period
 * over this test's 58: 1034 against 1031 once on 2 vCPUs).
 */
static long at_period_end(long *sampled, long *deferred)
{
	long p0 = vmstat_read("hugetext_cap_periods"), p;
	int i;

	for (i = 0; i < 20 * PERIOD_MS; i++) {	/* 20 periods at most */
		p = vmstat_read("hugetext_cap_periods");
		if (p != p0)
			break;
		usleep(1000);
	}
	*sampled = vmstat_read("hugetext_cap_sampled");
	*deferred = vmstat_read("hugetext_cap_deferred");
	return p;
}

int main(void)
{
	long s0, s1, d0, d1, p0, p1, k0, k1, periods, sampled, deferred;
	char path[512];
	pid_t pids[NPROC];
	int i, ready[2], status;
	double per;
	char c;

	ksft_begin_needing(KNOB_MAX_NR_HUGETEXT, "the hugetext cap");
	if (vmstat_read("hugetext_cap_periods") < 0)
		ksft_exit_fail_msg("no hugetext_cap_periods in /proc/vmstat: the sampler's cost is not reported\n");
	snprintf(path, sizeof(path), "%s/hugetext_bigtext", self_dir());
	ksft_set_plan(3);
	knobs_save();
	knob_write("enabled", "madvise");
	knob_write(KNOB_ENABLED, "1");
	if (knob_write(KNOB_MAX_NR_HUGETEXT, "2") ||
	    knob_write(KNOB_SAMPLE_MILLISECS, "100"))
		ksft_exit_fail_msg("cannot set the cap's knobs\n");

	if (pipe(ready))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	for (i = 0; i < NPROC; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			size_t len;
			void *p = map_text_aligned(path, &len);

			close(ready[0]);
			if (p == MAP_FAILED)
				_exit(1);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		if (pids[i] < 0)
			ksft_exit_fail_msg("fork %d: %s\n", i, strerror(errno));
	}
	close(ready[1]);
	for (i = 0; i < NPROC; i++)
		if (read(ready[0], &c, 1) != 1)
			break;
	close(ready[0]);
	ksft_print_msg("%d processes mapped %s (%d regions each)\n", i, path, REGIONS);

	usleep(3 * PERIOD_MS * 1000);	/* let every mm be known and sampled */
	p0 = at_period_end(&s0, &d0);
	k0 = kworker_ticks();
	sleep(WATCH_S);
	p1 = at_period_end(&s1, &d1);
	k1 = kworker_ticks();
	periods = p1 - p0;
	sampled = s1 - s0;
	deferred = d1 - d0;
	per = periods > 0 ? (double)sampled / periods : 0;
	ksft_print_msg("%ld periods in %d s: %ld regions sampled (%.0f a period), %ld processes deferred (%.1f a period); kworker CPU %.1f ms a period (all kworkers, TCG)\n",
		       periods, WATCH_S, sampled, per, deferred,
		       periods > 0 ? (double)deferred / periods : 0,
		       periods > 0 ? (k1 - k0) * 1000.0 / sysconf(_SC_CLK_TCK) / periods : 0);
	ksft_test_result(periods > 0 && per <= BUDGET + REGIONS - 1,
			 "at most %d regions (+%d) sampled a period: %.0f\n",
			 BUDGET, REGIONS - 1, per);
	ksft_test_result(deferred > 0 && per >= BUDGET / 2,
			 "with %d regions the sampler works to its budget (%.0f a period) and defers the rest (%ld)\n",
			 i * REGIONS, per, deferred);
	/* everyone's turn comes: over the watch, all regions sampled at least once */
	ksft_test_result(sampled >= (long)i * REGIONS,
			 "every process sampled within %d s: %ld regions sampled, %d mapped\n",
			 WATCH_S, sampled, i * REGIONS);

	for (i = 0; i < NPROC; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	while (wait(&status) > 0)
		;
	knobs_restore();
	ksft_finished();
}
