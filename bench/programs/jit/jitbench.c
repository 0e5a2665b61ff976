// SPDX-License-Identifier: GPL-2.0
/*
 * jitbench: a JIT-like program for `make bench`.
 *
 * It does what a JIT's code cache does, with no JIT library: mmap an
 * anonymous read-write range (16 MB by default), write machine code into it
 * (one small function every 256 bytes, so that every 4 KB page of the range
 * holds code: x86-64 "mov eax, imm32; ret", arm64 "movz w0, #lo; movk w0,
 * #hi, lsl #16; ret", the rest of the 256 bytes traps), mprotect() it to
 * PROT_READ|PROT_EXEC, then call every function in a loop for a few
 * seconds and check the sum against the one computed in C.
 *
 *   jitbench [MB [SECONDS]]
 *
 * Prints the code range and the result; exits 0 when every pass matched.
 * Static and dependency-free so that it runs in the bench guest as is.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define STRIDE 256

typedef uint32_t (*fn_t)(void);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "compile" one function returning imm at p, the rest of STRIDE traps */
#if defined(__x86_64__)
static void emit(unsigned char *p, uint32_t imm)
{
	memset(p, 0xcc, STRIDE);		/* int3 */
	p[0] = 0xb8;				/* mov eax, imm32 */
	memcpy(p + 1, &imm, 4);
	p[5] = 0xc3;				/* ret */
}
#elif defined(__aarch64__)
static void emit(unsigned char *p, uint32_t imm)
{
	uint32_t insn[STRIDE / 4];
	size_t k;

	for (k = 0; k < STRIDE / 4; k++)
		insn[k] = 0xd4200000;		/* brk #0 */
	insn[0] = 0x52800000 | (imm & 0xffff) << 5;		/* movz w0, #lo */
	insn[1] = 0x72a00000 | (imm >> 16) << 5;		/* movk w0, #hi, lsl #16 */
	insn[2] = 0xd65f03c0;			/* ret */
	memcpy(p, insn, STRIDE);
}
#else
#error "jitbench: no code generator for this architecture"
#endif

static uint32_t imm_of(size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5au;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 0) : 16;
	double secs = argc > 2 ? atof(argv[2]) : 6.0;
	size_t len = mb << 20, nfn = len / STRIDE, i;
	uint64_t expect = 0, got;
	unsigned char *code;
	unsigned long passes = 0;
	double t0, t1;

	if (mb < 1 || secs <= 0) {
		fprintf(stderr, "usage: jitbench [MB [SECONDS]]\n");
		return 2;
	}
	code = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jitbench: mmap");
		return 1;
	}
	for (i = 0; i < nfn; i++) {
		unsigned char *p = code + i * STRIDE;
		uint32_t imm = imm_of(i);

		emit(p, imm);
		expect += imm;
	}
#if defined(__aarch64__)
	/* the instruction cache does not see data writes by itself */
	__builtin___clear_cache((char *)code, (char *)code + len);
#endif
	if (mprotect(code, len, PROT_READ | PROT_EXEC)) {
		perror("jitbench: mprotect");
		return 1;
	}
	printf("jitbench: code %p-%p (%zu MB, %zu functions), running %.1f s\n",
	       (void *)code, (void *)(code + len), mb, nfn, secs);
	fflush(stdout);

	t0 = now();
	do {
		got = 0;
		for (i = 0; i < nfn; i++)
			got += ((fn_t)(void *)(code + i * STRIDE))();
		if (got != expect) {
			printf("jitbench: FAIL pass %lu: sum %#llx, expected %#llx\n",
			       passes, (unsigned long long)got,
			       (unsigned long long)expect);
			return 1;
		}
		passes++;
		t1 = now();
	} while (t1 - t0 < secs || passes < 2);

	printf("jitbench: ok, %lu passes of %zu calls in %.2f s, sum %#llx\n",
	       passes, nfn, t1 - t0, (unsigned long long)expect);
	return 0;
}
