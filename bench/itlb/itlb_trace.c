// SPDX-License-Identifier: GPL-2.0
/*
 * itlb-trace: feed a synthetic fetch trace to the iTLB models, no QEMU.
 *
 *   itlb-trace [-m MODEL]... [-l] < trace
 *
 * Trace lines (numbers in C syntax: 0x... hex or decimal):
 *   4k ADDR    fetch from the 4 KB page holding ADDR
 *   2m ADDR    fetch from a 2 MB page; its page is ADDR >> 21
 *   # ...      comment
 * Output, one line per model:
 *   MODEL lookups=N l1_miss=N l1_miss_2m=N l2_hit=N l2_miss=N l2_miss_2m=N
 * (l2_hit: L1 misses that hit the second level; l2_miss: page walks).
 * -l lists the model table instead, with each model's cost inputs:
 *   stlb_hit_cycles=N walk_cycles=N (or =na: no sourced figure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "itlb_model.h"

static void cost(const char *name, unsigned cycles)
{
	if (cycles)
		printf(" %s=%u", name, cycles);
	else
		printf(" %s=na", name);
}

static void list(void)
{
	for (unsigned i = 0; i < itlb_n_models; i++) {
		const struct itlb_model *m = &itlb_models[i];

		printf("%s l1_4k=%u/%u l1_2m=%u/%u l2=%u/%u", m->name,
		       m->l1_4k.entries, m->l1_4k.ways, m->l1_2m.entries,
		       m->l1_2m.ways, m->l2.entries, m->l2.ways);
		cost("stlb_hit_cycles", m->stlb_hit_cycles);
		cost("walk_cycles", m->walk_cycles);
		printf("  %s\n", m->desc);
	}
}

int main(int argc, char **argv)
{
	const char *names[64];
	unsigned nn = 0;
	struct itlb_sim sim;
	char line[256];
	unsigned long lineno = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			list();
			return 0;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc && nn < 63) {
			names[nn++] = argv[++i];
		} else {
			fprintf(stderr, "usage: itlb-trace [-m MODEL]... [-l] < trace\n");
			return 2;
		}
	}
	names[nn] = NULL;
	if (itlb_sim_init(&sim, nn ? names : NULL)) {
		fprintf(stderr, "itlb-trace: unknown model or bad geometry\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char kind[8];
		char *end;
		unsigned long long addr;
		char num[64];

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (sscanf(line, "%7s %63s", kind, num) != 2)
			goto bad;
		addr = strtoull(num, &end, 0);
		if (*end)
			goto bad;
		if (!strcmp(kind, "4k"))
			itlb_sim_fetch(&sim, itlb_key_4k(addr));
		else if (!strcmp(kind, "2m"))
			itlb_sim_fetch(&sim, itlb_key_2m(addr));
		else
			goto bad;
		continue;
bad:
		fprintf(stderr, "itlb-trace: line %lu: bad trace line\n", lineno);
		return 2;
	}
	for (unsigned i = 0; i < sim.n; i++) {
		const struct itlb_stats *st = &sim.cpu[i].st;

		printf("%s lookups=%llu l1_miss=%llu l1_miss_2m=%llu "
		       "l2_hit=%llu l2_miss=%llu l2_miss_2m=%llu\n",
		       sim.cpu[i].model->name,
		       (unsigned long long)st->lookups,
		       (unsigned long long)st->l1_miss,
		       (unsigned long long)st->l1_miss_2m,
		       (unsigned long long)st->l2_hit,
		       (unsigned long long)st->l2_miss,
		       (unsigned long long)st->l2_miss_2m);
	}
	itlb_sim_free(&sim);
	return 0;
}
