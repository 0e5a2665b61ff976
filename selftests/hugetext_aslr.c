// SPDX-License-Identifier: GPL-2.0
/*
 * ASLR of a hugetext-placed PIE: exec it many times, check that every text
 * start is congruent to its file offset mod 2M and estimate the bits of
 * randomness left from the spread of the start addresses.  With
 * vm.mmap_rnd_bits=28 on x86-64, 28 - 9 = 19 bits must remain.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define RUNS 256

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
	long rnd_bits;
	bool cong;
	int distinct;
	double bits, expect;

	ksft_begin_needing("hugetext_enabled", "CONFIG_HUGETEXT");
	snprintf(prog, sizeof(prog), "%s/hugetext_bigpie", self_dir());
	{
		FILE *f = fopen("/proc/sys/vm/mmap_rnd_bits", "r");

		if (!f || fscanf(f, "%ld", &rnd_bits) != 1)
			ksft_exit_skip("no /proc/sys/vm/mmap_rnd_bits\n");
		fclose(f);
	}
	ksft_set_plan(3);
	knobs_save();

	knob_write("hugetext_enabled", "0");
	bits = sample(prog, 64, &cong, &distinct);
	ksft_print_msg("hugetext=0: 64 execs, %d distinct text starts, ~%.1f bits in 4K steps (mmap_rnd_bits %ld)\n",
		       distinct, bits, rnd_bits);

	knob_write("hugetext_enabled", "1");
	bits = sample(prog, RUNS, &cong, &distinct);
	expect = rnd_bits - log2(pmd_size() / 4096);
	ksft_print_msg("hugetext=1: %d execs, %d distinct text starts, ~%.2f bits in 2M steps; expected %.0f\n",
		       RUNS, distinct, bits, expect);
	ksft_test_result(cong, "every text start is congruent to its file offset mod 2M\n");
	ksft_test_result(bits > expect - 0.5 && bits < expect + 0.5,
			 "measured ASLR %.2f bits matches mmap_rnd_bits - 9 = %.0f\n", bits, expect);
	ksft_test_result(expect >= 19 || rnd_bits < 28,
			 "ASLR of an aligned PIE keeps >= 19 bits with mmap_rnd_bits >= 28 (%.0f)\n",
			 expect);
	knobs_restore();
	ksft_finished();
}
