// SPDX-License-Identifier: GPL-2.0
/* Set-associative LRU TLB structures and the two-level walk (see .h). */
#include <stdlib.h>

#include "itlb_model.h"

static int level_init(struct itlb_level *l, struct itlb_geom g)
{
	l->sets = 0;
	l->ways = 0;
	l->key = NULL;
	l->stamp = NULL;
	l->tick = 0;
	if (!g.entries)
		return 0;
	if (!g.ways || g.entries % g.ways)
		return -1;
	l->ways = g.ways;
	l->sets = g.entries / g.ways;
	l->key = calloc(g.entries, sizeof(*l->key));
	l->stamp = calloc(g.entries, sizeof(*l->stamp));
	return l->key && l->stamp ? 0 : -1;
}

static void level_free(struct itlb_level *l)
{
	free(l->key);
	free(l->stamp);
	l->key = NULL;
	l->stamp = NULL;
}

/* Set index: low bits of the page number (key without its size bit). */
static inline unsigned level_set(const struct itlb_level *l, uint64_t key)
{
	uint64_t pn = (key & ~(1ULL << 63)) >> 1;

	return (unsigned)(pn % l->sets);
}

/* Look up key; on a miss fill it, evicting the LRU way. 1: hit. */
int itlb_level_access(struct itlb_level *l, uint64_t key)
{
	unsigned base = level_set(l, key) * l->ways;
	uint64_t *k = l->key + base, *t = l->stamp + base;
	unsigned victim = 0;
	uint64_t oldest = UINT64_MAX;

	l->tick++;
	for (unsigned w = 0; w < l->ways; w++) {
		if (t[w] && k[w] == key) {
			t[w] = l->tick;
			return 1;
		}
		if (t[w] < oldest) {	/* invalid ways (0) come first */
			oldest = t[w];
			victim = w;
		}
	}
	k[victim] = key;
	t[victim] = l->tick;
	return 0;
}

static void cpu_fetch(struct itlb_cpu *c, uint64_t key)
{
	int big = (int)(key & 1);
	struct itlb_level *l1 = big && c->l1h.sets ? &c->l1h : &c->l1s;

	c->st.lookups++;
	if (itlb_level_access(l1, key))
		return;
	c->st.l1_miss++;
	c->st.l1_miss_2m += big;
	/*
	 * L1 was filled above; now the second level (filled on a miss).
	 * Every L1 miss, of every model (a unified L1 too), is looked up
	 * there, so l2_hit + l2_miss == l1_miss; l2_hit is counted on its
	 * own all the same, so that the cost (STLB hits x refill cost)
	 * stays exact if a path that skips the second level is ever added.
	 */
	if (itlb_level_access(&c->l2, key)) {
		c->st.l2_hit++;
		return;
	}
	c->st.l2_miss++;
	c->st.l2_miss_2m += big;
}

void itlb_sim_fetch_slow(struct itlb_sim *s, uint64_t key)
{
	for (unsigned i = 0; i < s->n; i++)
		cpu_fetch(&s->cpu[i], key);
	s->last_key = key;
}

static int cpu_init(struct itlb_cpu *c, const struct itlb_model *m)
{
	c->model = m;
	c->st = (struct itlb_stats){ 0 };
	if (level_init(&c->l1s, m->l1_4k) || level_init(&c->l1h, m->l1_2m) ||
	    level_init(&c->l2, m->l2) || !c->l1s.sets || !c->l2.sets)
		return -1;
	return 0;
}

int itlb_sim_init(struct itlb_sim *s, const char *const *models)
{
	unsigned n = 0;

	s->last_key = 0;
	s->n = 0;
	if (models)
		while (models[n])
			n++;
	else
		n = itlb_n_models;
	s->cpu = calloc(n ? n : 1, sizeof(*s->cpu));
	if (!s->cpu)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const struct itlb_model *m;

		m = models ? itlb_model_find(models[i]) : &itlb_models[i];
		if (!m || cpu_init(&s->cpu[i], m)) {
			s->n = i + (m != NULL);
			itlb_sim_free(s);
			return -1;
		}
		s->n = i + 1;
	}
	return 0;
}

void itlb_sim_free(struct itlb_sim *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		level_free(&s->cpu[i].l1s);
		level_free(&s->cpu[i].l1h);
		level_free(&s->cpu[i].l2);
	}
	free(s->cpu);
	s->cpu = NULL;
	s->n = 0;
}
