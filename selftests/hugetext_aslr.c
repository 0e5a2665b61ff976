// SPDX-License-Identifier: GPL-2.0
/*
 * ASLR of a hugetext-placed PIE: exec it many times, check that every text
 * start is congruent to its file offset mod 2M and estimate the bits of
 * randomness left from the spread of the start addresses: mmap_rnd_bits - 9.
 * The defaults differ by arch: 28 on x86-64 (19 left), 18 on arm64 with 4K
 * pages and 48-bit addresses (9 left).  So the last case raises
 * vm.mmap_rnd_bits to the arch's maximum (32 on x86-64, 33 on arm64) and
 * checks that at least 19 bits are left there (restored on exit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define RUNS 256

/* vm.mmap_rnd_bits = @v: 0, or -1 when refused (out of the arch's range) */
static int set_rnd_bits(long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%ld", v);
	return sysctl_write("/proc/sys/vm/mmap_rnd_bits", buf);
}

static double sample(const char *prog, int runs, bool *congruent, int *distinct)
{
	static unsigned long starts[RUNS];
	unsigned long pmd = pmd_size(), lo = ~0UL, hi = 0, s, off;
	char out[256], *argv[] = { (char *)prog, "addr", NULL };
	struct rusage ru;
	int i, j, n = 0;

	*congruent = true;
	for (i = 0; i < runs; i++) {
		if (run_helper(argv, out, sizeof(out), &ru, false) ||
		    sscanf(out, "TEXT %lx %lx", &s, &off) != 2)
			continue;
		if ((s - off) % pmd)
			*congruent = false;
		starts[n++] = s;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	*distinct = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && starts[j] != starts[i]; j++)
			;
		*distinct += j == i;
	}
	if (n < 2 || hi == lo)
		return 0;
	/* the range of n uniform samples covers (n-1)/(n+1) of the space */
	return log2((double)(hi - lo) / (*congruent ? pmd : 4096) * (n + 1) / (n - 1));
}

int main(void)
{
	char prog[600];
	long rnd_bits, max_bits;
	bool cong;
	int distinct;
	double bits, expect;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	snprintf(prog, sizeof(prog), "%s/hugetext_bigpie", self_dir());
	{
		FILE *f = fopen("/proc/sys/vm/mmap_rnd_bits", "r");

		if (!f || fscanf(f, "%ld", &rnd_bits) != 1)
			ksft_exit_skip("no /proc/sys/vm/mmap_rnd_bits\n");
		fclose(f);
	}
	ksft_set_plan(3);
	knobs_save();

	knob_write(KNOB_ENABLED, "0");
	bits = sample(prog, 64, &cong, &distinct);
	ksft_print_msg("hugetext=0: 64 execs, %d distinct text starts, ~%.1f bits in 4K steps (mmap_rnd_bits %ld)\n",
		       distinct, bits, rnd_bits);

	knob_write(KNOB_ENABLED, "1");
	bits = sample(prog, RUNS, &cong, &distinct);
	expect = rnd_bits - log2(pmd_size() / 4096);
	ksft_print_msg("hugetext=1: %d execs, %d distinct text starts, ~%.2f bits in 2M steps; expected %.0f\n",
		       RUNS, distinct, bits, expect);
	ksft_test_result(cong, "every text start is congruent to its file offset mod 2M\n");
	ksft_test_result(bits > expect - 0.5 && bits < expect + 0.5,
			 "measured ASLR %.2f bits matches mmap_rnd_bits - 9 = %.0f\n", bits, expect);

	/* the arch's maximum: the largest value the sysctl accepts */
	for (max_bits = 40; max_bits > rnd_bits; max_bits--)
		if (!set_rnd_bits(max_bits))
			break;
	bits = sample(prog, RUNS / 2, &cong, &distinct);
	expect = max_bits - log2(pmd_size() / 4096);
	ksft_print_msg("mmap_rnd_bits %ld (the maximum; default %ld): %d execs, ~%.2f bits in 2M steps\n",
		       max_bits, rnd_bits, RUNS / 2, bits);
	ksft_test_result(cong && expect >= 19 && bits > expect - 0.5 && bits < expect + 0.5,
			 "at the maximum mmap_rnd_bits %ld an aligned PIE keeps %.2f bits (expected %.0f, >= 19)\n",
			 max_bits, bits, expect);
	set_rnd_bits(rnd_bits);
	knobs_restore();
	ksft_finished();
}
