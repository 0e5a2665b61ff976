// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a large text segment of real code (gen_bigtext.py: one
 * function per 4 KB page), run by the hugetext tests as the "application".
 * Built three ways: static ET_EXEC (hugetext_bigtext), PIE (hugetext_bigpie)
 * and a small PIE whose text is in a shared library (hugetext_biglib +
 * libhugetext_big.so); TEXT_NAME names the file that holds the text.
 *
 *   hugetext_bigtext huge|none|addr [--madv-nohuge] [--timeout MS] [--no-touch]
 *                    [--hold MS]
 *
 * It calls every function and checks each result, then waits (bounded by
 * khugepaged full scans and a timeout) while re-executing its text, or with
 * --no-touch only watching it, and checks its own text mapping's
 * FilePmdMapped: "huge" expects every full PMD region of the text
 * PMD-mapped, "none" expects none -- after khugepaged has passed over every
 * mm it scans three times (khugepaged_passes(); without --timeout a wait
 * that ends at its timeout fails the run: it would prove nothing).  It
 * prints how long after its exec that took.  Finally it compares its mapped text with the bytes of its file and
 * runs the functions again; --hold keeps it alive that long afterwards.
 * It also prints the page faults its first run over the text took.
 * "addr" prints "TEXT <start> <offset>" and exits; "check" only runs the
 * functions and compares the mapped text with the file (for stress runs).  Diagnostics are "# " lines; exit 0 = all good.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "hugetext_util.h"

#ifndef TEXT_NAME
#define TEXT_NAME "hugetext_bigtext"
#endif

extern uint32_t (*const ht_fn_table[])(void);
extern const uint64_t ht_nr_fns;

static unsigned long t_start, t_end, t_off, t_ideal;
static char t_path[256];
static bool touch = true;

/* milliseconds since this process was forked (/proc/self/stat starttime) */
static long ms_since_start(void)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	struct timespec now;
	int i;
	FILE *f = fopen("/proc/self/stat", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	clock_gettime(CLOCK_BOOTTIME, &now);
	return now.tv_sec * 1000 + now.tv_nsec / 1000000 -
	       (long)(start * 1000 / sysconf(_SC_CLK_TCK));
}

#ifdef FILL
/* the tail-padding helpers (mk_padtext.sh): FILL bytes of nops, then 42 */
extern uint32_t pad_fill(void);
#endif

static int run_all(void)
{
	uint64_t i;
	int bad = 0;

	for (i = 0; i < ht_nr_fns; i++)
		if (ht_fn_table[i]() != (uint32_t)(i * 2654435761u))
			bad++;
#ifdef FILL
	if (pad_fill() != 42)
		bad++;
#endif
	return bad;
}

static long pmd_mapped(void)
{
	return smaps_field(0, t_start, t_end, "FilePmdMapped");
}

static bool all_huge(void *arg)
{
	if (touch)
		run_all();	/* fault the text again: retracted page tables map PMDs */
	return pmd_mapped() >= (long)t_ideal;
}

static int compare_with_file(void)
{
	size_t len = t_end - t_start;
	char *buf = malloc(len);
	char mf[64];
	int fd, ret = -1;

	/* the mapped file itself, even if it was replaced since */
	snprintf(mf, sizeof(mf), "/proc/self/map_files/%lx-%lx", t_start, t_end);
	fd = open(mf, O_RDONLY);
	if (fd < 0)
		fd = open(t_path, O_RDONLY);

	if (fd >= 0 && buf && pread(fd, buf, len, t_off) == (ssize_t)len)
		ret = memcmp(buf, (void *)t_start, len) ? 1 : 0;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	bool expect_huge, madv = false, timeout_given = false;
	int timeout = 60000, hold = 0, i, bad, cmp;
	struct rusage r0, r1;
	long got;

	if (argc < 2 || (strcmp(argv[1], "huge") && strcmp(argv[1], "none") &&
			 strcmp(argv[1], "addr") && strcmp(argv[1], "check"))) {
		fprintf(stderr, "usage: %s huge|none|addr|check [--madv-nohuge] [--timeout MS] [--no-touch]\n",
			argv[0]);
		return 2;
	}
	expect_huge = !strcmp(argv[1], "huge");
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--madv-nohuge"))
			madv = true;
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			timeout = atoi(argv[++i]);
			timeout_given = true;
		}
		else if (!strcmp(argv[i], "--no-touch"))
			touch = false;
		else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			hold = atoi(argv[++i]);
	}
	if (find_exec_mapping(0, TEXT_NAME, &t_start, &t_end, &t_off, t_path,
			      sizeof(t_path))) {
		printf("# cannot find the text mapping of %s\n", TEXT_NAME);
		return 1;
	}
	if (!strcmp(argv[1], "addr")) {
		printf("TEXT %lx %lx\n", t_start, t_off);
		return 0;
	}
	if (!strcmp(argv[1], "check")) {
		/* stress: right results and the file's bytes, huge or not */
		bad = run_all();
		cmp = compare_with_file();
		if (bad || cmp)
			printf("# %s: %d wrong results, mapped text %s the file\n",
			       t_path, bad, cmp ? "DIFFERS FROM" : "equals");
		return bad || cmp ? 1 : 0;
	}
	/* before anything else ran: what the prompt collapse did at exec */
	got = smaps_field(0, t_start, t_end, "FilePmdMapped");
	/* the text mapping also holds the ELF header page etc.: fine */
	t_ideal = ideal_huge_bytes(t_start, t_end, t_off);
	printf("# at main: FilePmdMapped %ld KB, %ld ms after exec\n", got >> 10,
	       ms_since_start());
	printf("# text %lx-%lx off %lx (%lu KB), start mod PMD %lx, ideal %lu KB\n",
	       t_start, t_end, t_off, (t_end - t_start) >> 10,
	       t_start % pmd_size(), t_ideal >> 10);
	if (!t_ideal && expect_huge) {
		printf("# text is not congruent or too small: cannot be huge\n");
		return 1;
	}
	if (madv && madvise((void *)t_start, t_end - t_start, MADV_NOHUGEPAGE)) {
		perror("# madvise");
		return 1;
	}
	getrusage(RUSAGE_SELF, &r0);
	bad = run_all();
	getrusage(RUSAGE_SELF, &r1);
	printf("# first-touch faults %ld over %lu KB of text\n",
	       r1.ru_minflt - r0.ru_minflt, (t_end - t_start) >> 10);
	if (bad) {
		printf("# %d functions returned a wrong value before collapse\n", bad);
		return 1;
	}

	if (expect_huge) {
		bool done = khugepaged_wait(1000, timeout, all_huge, NULL);

		printf("# %s %ld ms after exec (%s the text)\n",
		       done ? "all PMD-mapped" : "still not all PMD-mapped",
		       ms_since_start(), touch ? "re-executing" : "not touching");
	} else if (khugepaged_running()) {
		long ms;
		int passes = timeout > 0 ? khugepaged_passes(3, timeout, &ms) : 0;

		if (timeout > 0)
			printf("# khugepaged passed over every mm it scans %d times in %ld ms\n",
			       passes, ms);
		/* the default wait is the proof that nothing is collapsed: it
		 * must end by khugepaged's passes, not at its timeout */
		if (passes < 3 && !timeout_given) {
			printf("# the wait ended at its timeout: proves nothing\n");
			return 1;
		}
	} else
		sleep(1);	/* nothing can collapse: no khugepaged */
	run_all();
	got = pmd_mapped();
	printf("# FilePmdMapped %ld KB of ideal %lu KB (expected %s)\n",
	       got >> 10, t_ideal >> 10, expect_huge ? "all" : "none");

	cmp = compare_with_file();
	bad = run_all();
	printf("# mapped text %s the file; %d wrong results after collapse\n",
	       cmp == 0 ? "equals" : "DIFFERS FROM", bad);
	fflush(stdout);
	if (hold)
		usleep(hold * 1000);
	if (cmp != 0 || bad)
		return 1;
	if (expect_huge ? got < (long)t_ideal : got != 0)
		return 1;
	return 0;
}
