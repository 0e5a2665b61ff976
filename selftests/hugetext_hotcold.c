// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext_hotcold [--jit K] HOT [HOT2]: a program whose text holds at
 * least ten full 2 MB regions of code (hotcold.S) and keeps only the
 * regions listed in HOT (comma-separated region numbers, "-" for none)
 * hot, calling each through all of its 512 pages every 2 ms.  SIGUSR1
 * switches to HOT2.
 *
 * With --jit K it also "JIT-compiles" K regions of code the way a JIT
 * does: each in its own anonymous mapping, written read-write (a copy of
 * the text's first full region, whose chain is position-independent), then
 * mprotect()ed read-execute.  They are regions N..N+K-1 of HOT.
 *
 * It prints "regions N FIRST" (FIRST: address of region 0, in hex), with
 * --jit also " jit K JITFIRST STRIDE", once ready.  Before that it marks
 * the odd text regions MADV_DONTDUMP, which splits the text into one
 * mapping per region, so that /proc/PID/smaps shows FilePmdMapped region
 * by region; JIT regions are STRIDE bytes apart, one mapping each
 * (AnonHugePages).
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
static unsigned long first, jit_first;
static int nfile;
static int hot[2][MAX_HOT + 1];	/* -1 terminated */

/* region @i: a text region, or a JIT region from nfile on */
HT_CODE static const void *region(int i)
{
	if (i < nfile)
		return (const void *)(first + i * REGION);
	return (const void *)(jit_first + (i - nfile) * 2 * REGION);
}

HT_CODE static void on_usr1(int sig)
{
	phase = 1;
}

HT_CODE static void ht_sleep(long ns)
{
	struct timespec ts = { 0, ns };
#if defined(__x86_64__)
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
		     : "rcx", "r11", "memory");
#else
	register long x8 asm("x8") = SYS_nanosleep;
	register long x0 asm("x0") = (long)&ts;
	register long x1 asm("x1") = 0;

	asm volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
#endif
}

HT_CODE static void __attribute__((noreturn)) ht_loop(void)
{
	for (;;) {
		const int *h = hot[phase];

		for (; *h >= 0; h++)
			ht_run(region(*h), 512);
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

/* K JIT regions, 2 MB-aligned, a 2 MB hole after each: 0 or -1 */
static int jit(int k)
{
	size_t len = (2 * k + 1) * REGION;
	char *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int j;

	if (base == MAP_FAILED)
		return -1;
	jit_first = ((unsigned long)base + REGION - 1) & ~(REGION - 1);
	for (j = 0; j < k; j++) {
		char *r = (char *)jit_first + j * 2 * REGION;

		if (mprotect(r, REGION, PROT_READ | PROT_WRITE))
			return -1;
		memcpy(r, (const void *)first, REGION);
		if (mprotect(r, REGION, PROT_READ | PROT_EXEC))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long start = (unsigned long)ht_blob_start;
	unsigned long end = (unsigned long)ht_blob_end & ~(REGION - 1);
	int n, i, k = 0;
	char *endp;

	first = (start + REGION - 1) & ~(REGION - 1);
	n = end > first ? (end - first) / REGION : 0;
	nfile = n;
	if (argc > 2 && !strcmp(argv[1], "--jit")) {
		k = strtol(argv[2], &endp, 10);
		if (*endp || k < 1 || k > 8)
			k = -1;
		argc -= 2;
		argv += 2;
	}
	if (k < 0 || argc < 2 || argc > 3 || parse_hot(argv[1], hot[0], n + k) ||
	    parse_hot(argc == 3 ? argv[2] : argv[1], hot[1], n + k)) {
		fprintf(stderr, "usage: hugetext_hotcold [--jit 1..8] HOT [HOT2]  (region numbers 0..%d, JIT regions after them, comma-separated, or -)\n",
			n - 1);
		return 2;
	}
	if (k && jit(k)) {
		perror("JIT regions");
		return 1;
	}
	for (i = 1; i < n; i += 2)
		if (madvise((void *)(first + i * REGION), REGION, MADV_DONTDUMP)) {
			perror("madvise(MADV_DONTDUMP)");
			return 1;
		}
	signal(SIGUSR1, on_usr1);
	if (k)
		printf("regions %d %#lx jit %d %#lx %#lx\n", n, first, k, jit_first,
		       2 * REGION);
	else
		printf("regions %d %#lx\n", n, first);
	fflush(stdout);
	ht_loop();
}
