/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction-TLB model: an instruction fetch stream (one call per visit of
 * a 4 KB page or of a 2 MB page) drives, for each CPU model of the table in
 * itlb_models.c, an L1 iTLB (split 4K / 2M structures, or one structure for
 * every page size) backed by a second-level TLB of which only the
 * instruction side is modelled.  Replacement is true LRU everywhere.
 *
 * No QEMU here: the plugin (itlb_plugin.c) and the trace driver used by
 * the unit tests (itlb_trace.c) both call itlb_sim_fetch().
 */
#ifndef ITLB_MODEL_H
#define ITLB_MODEL_H

#include <stdint.h>

#define ITLB_SHIFT_4K 12
#define ITLB_SHIFT_2M 21

/* Geometry of one TLB structure: ways == entries means fully associative. */
struct itlb_geom {
	unsigned entries;
	unsigned ways;
};

/* One row of the model table. */
struct itlb_model {
	const char *name;
	const char *desc;
	struct itlb_geom l1_4k;	/* L1 iTLB for 4 KB pages (or every size)   */
	struct itlb_geom l1_2m;	/* L1 iTLB for 2M/4M pages; 0 entries: the
				 * l1_4k structure holds 2 MB entries too   */
	struct itlb_geom l2;	/* second level, 4 KB and 2 MB entries      */
	/*
	 * What a translation costs, in core cycles, each with its source in
	 * itlb_models.c; 0: no published figure found (reported as n/a,
	 * never guessed).
	 */
	unsigned stlb_hit_cycles;	/* an L1 miss that hits the second
					 * level: the refill of L1 from it   */
	unsigned walk_cycles;		/* a second-level miss: a page walk  */
};

extern const struct itlb_model itlb_models[];
extern const unsigned itlb_n_models;

/* One set-associative LRU structure. */
struct itlb_level {
	unsigned sets, ways;
	uint64_t *key;		/* sets * ways */
	uint64_t *stamp;	/* 0: invalid; else last-use tick */
	uint64_t tick;
};

struct itlb_stats {
	uint64_t lookups;	/* L1 lookups done (page visits, see below) */
	uint64_t l1_miss;	/* L1 iTLB misses */
	uint64_t l1_miss_2m;	/*   of which for 2 MB pages */
	uint64_t l2_hit;	/* L1 misses that hit the second level */
	uint64_t l2_miss;	/* STLB misses = page walks */
	uint64_t l2_miss_2m;	/*   of which for 2 MB pages */
};

struct itlb_cpu {
	const struct itlb_model *model;
	struct itlb_level l1s;	/* 4 KB (or unified) */
	struct itlb_level l1h;	/* 2 MB (sets == 0 when unified) */
	struct itlb_level l2;
	struct itlb_stats st;
};

/* The same fetch stream feeds every selected model at once. */
struct itlb_sim {
	unsigned n;
	struct itlb_cpu *cpu;
	uint64_t last_key;	/* key of the page visited last (0: none) */
};

/*
 * key of a page: page number << 1 | is_2m, plus 1 << 63 so that no valid
 * key is 0.  A 2 MB page's number is (address of its first byte) >> 21.
 */
static inline uint64_t itlb_key_4k(uint64_t vaddr)
{
	return (1ULL << 63) | ((vaddr >> ITLB_SHIFT_4K) << 1);
}

static inline uint64_t itlb_key_2m(uint64_t base)
{
	return (1ULL << 63) | ((base >> ITLB_SHIFT_2M) << 1) | 1;
}

const struct itlb_model *itlb_model_find(const char *name);

/* models: NULL-terminated names, or NULL for every model of the table. */
int itlb_sim_init(struct itlb_sim *s, const char *const *models);
void itlb_sim_free(struct itlb_sim *s);

/* One access of one structure: returns 1 on hit. Exposed for tests. */
int itlb_level_access(struct itlb_level *l, uint64_t key);

/*
 * One fetch visit of the page with this key by every model.  A visit to
 * the page visited last is skipped: that page is still present and most
 * recently used in every structure it sits in (nothing was looked up since
 * it was hit or filled), so the lookup would hit and would not change any
 * LRU order.  Skipping it changes no miss count.
 */
static inline void itlb_sim_fetch(struct itlb_sim *s, uint64_t key)
{
	void itlb_sim_fetch_slow(struct itlb_sim *s, uint64_t key);

	if (key != s->last_key)
		itlb_sim_fetch_slow(s, key);
}

#endif
