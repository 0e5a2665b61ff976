// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext_hotcold HOT [HOT2]: a program whose text holds at least ten full
 * 2 MB regions of code (hotcold.S) and keeps only the regions listed in
 * HOT (comma-separated region numbers, "-" for none) hot, calling each
 * through all of its 512 pages every 2 ms.  SIGUSR1 switches to HOT2.
 *
 * It prints "regions N FIRST" (FIRST: address of region 0, in hex) once
 * ready.  Before that it marks the odd regions MADV_DONTDUMP, which splits
 * the text into one mapping per region, so that /proc/PID/smaps shows
 * FilePmdMapped region by region.
 *
 * Its own loop runs in the text's first, partial region (never PMD-mapped)
 * and calls no libc in the loop (raw nanosleep), so only the regions named
 * hot are accessed after start-up.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#define HT_CODE __attribute__((section(".text.unlikely.hotcold"), noinline))
#define REGION (2UL << 20)
#define MAX_HOT 16

extern char ht_blob_start[], ht_blob_end[];
void ht_run(const void *start, unsigned int pages);

static volatile sig_atomic_t phase;
static unsigned long first;
static int hot[2][MAX_HOT + 1];	/* -1 terminated */

HT_CODE static void on_usr1(int sig)
{
	phase = 1;
}

HT_CODE static void ht_sleep(long ns)
{
	struct timespec ts = { 0, ns };
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
		     : "rcx", "r11", "memory");
}

HT_CODE static void __attribute__((noreturn)) ht_loop(void)
{
	for (;;) {
		const int *h = hot[phase];

		for (; *h >= 0; h++)
			ht_run((const void *)(first + *h * REGION), 512);
		ht_sleep(2000000);
	}
}

static int parse_hot(const char *s, int *out, int nregions)
{
	int n = 0;

	if (strcmp(s, "-")) {
		char *copy = strdup(s), *tok, *save = NULL;

		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			char *end;
			long v = strtol(tok, &end, 10);

			if (*end || v < 0 || v >= nregions || n == MAX_HOT)
				return -1;
			out[n++] = v;
		}
		free(copy);
	}
	out[n] = -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long start = (unsigned long)ht_blob_start;
	unsigned long end = (unsigned long)ht_blob_end & ~(REGION - 1);
	int n, i;

	first = (start + REGION - 1) & ~(REGION - 1);
	n = end > first ? (end - first) / REGION : 0;
	if (argc < 2 || argc > 3 || parse_hot(argv[1], hot[0], n) ||
	    parse_hot(argc == 3 ? argv[2] : argv[1], hot[1], n)) {
		fprintf(stderr, "usage: %s HOT [HOT2]  (region numbers 0..%d, comma-separated, or -)\n",
			argv[0], n - 1);
		return 2;
	}
	for (i = 1; i < n; i += 2)
		if (madvise((void *)(first + i * REGION), REGION, MADV_DONTDUMP)) {
			perror("madvise(MADV_DONTDUMP)");
			return 1;
		}
	signal(SIGUSR1, on_usr1);
	printf("regions %d %#lx\n", n, first);
	fflush(stdout);
	ht_loop();
}
