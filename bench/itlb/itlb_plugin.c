// SPDX-License-Identifier: GPL-2.0
/*
 * itlb-plugin.so: QEMU TCG plugin (API version 1, QEMU 7.2) feeding the
 * guest's instruction fetch stream to the iTLB models of itlb_models.c.
 *
 *   qemu-x86_64 -plugin itlb-plugin.so,regions=FILE,out=FILE.json,... prog
 *
 * Arguments (key=value):
 *   regions=FILE  which code is mapped with 2 MB pages (default: none):
 *                   file OFFSET PATH   the 2 MB region of PATH starting at
 *                                      file offset OFFSET (2 MB aligned)
 *                   va START END       guest virtual range [START, END),
 *                                      2 MB pages at 2 MB-aligned guest
 *                                      addresses (any code: file or JIT)
 *                 set NAME           starts the next region set
 *                 '#' starts a comment line.  Up to 64 sets: each is a
 *                 separate model state fed the same fetch stream, so one
 *                 run measures every set (regions before the first 'set'
 *                 line form set 0, "default").
 *   out=FILE      write the results as JSON to FILE at exit
 *   models=A:B    model names (default: every model of the table)
 *   quiet=on      print nothing through qemu_plugin_outs
 *   top=N         regions listed in the text summary (default 10)
 *
 * How the stream is produced.  At translation, the instructions of a
 * translation block (TB) are grouped into runs that lie in one 4 KB page
 * (an instruction straddling a page boundary also visits the next page).
 * Each run is classified once: which mapping of the guest holds it (file
 * and file offset, found through the host address of the code and
 * /proc/self/maps: in qemu-user guest memory is host memory at a fixed
 * offset and file mappings of the guest are host file mappings), whether
 * that 2 MB file region (or that virtual range) is huge, and the key the
 * TLBs see: the 4 KB page, or the 2 MB page.  At execution one callback
 * per TB (not per instruction) replays the TB's run keys into every model
 * and adds the instruction counts.
 *
 * Why per-TB is exact enough: a TB is straight-line code executed from its
 * first instruction, so its fetches visit its pages in order; the fetches
 * after the first one within a page hit the entry that first fetch left
 * most recently used, and change no LRU order, so the miss counts are the
 * ones a per-instruction stream gives.  Not modelled: a TB left early (a
 * fault or signal in its middle) is counted whole; fetches of the wrong
 * path; prefetch.  In QEMU 7.2 a TB spans at most two guest pages.
 *
 * A huge 2 MB file region is identified by the guest address where that
 * file region begins (address - file offset mod 2 MB): the hugetext kernel
 * maps text 2 MB-congruent to its file offset, which the replay's own
 * layout need not be, so the model assumes the congruent placement.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "itlb_model.h"
#include "../plugin_out.h"
#include "../qemu_plugin_api.h"

QP_EXPORT int qemu_plugin_version = 1;

#define MB2 (1ULL << ITLB_SHIFT_2M)
#define MAX_VCPUS 256

/* ---- configuration ---- */

#define MAX_SETS 64

struct huge_region {
	unsigned set;		/* which region set */
	int is_file;
	const char *path;	/* canonical path (file) */
	uint64_t off;		/* 2 MB aligned file offset (file) */
	uint64_t start, end;	/* guest range (va) */
};

static struct huge_region *huge;
static unsigned n_huge;
static unsigned n_sets = 1;
static const char *set_names[MAX_SETS] = { "default" };
static const char *out_path;
static const char **model_names;	/* NULL-terminated, or NULL: all */
static int quiet;
static unsigned top_n = 10;
static int system_mode;
static int target_x86_64;
static pid_t install_pid;

/* ---- per-2 MB-region statistics ---- */

struct region_stat {
	struct region_stat *next;
	const char *name;	/* file path, or mapping name */
	int is_file;
	uint64_t idx;		/* file offset >> 21, or vaddr >> 21 */
	uint64_t vaddr;		/* guest address of the window's first byte */
	uint64_t huge;		/* mask of the sets it is huge in */
	uint64_t insns;		/* updated with relaxed atomics */
	uint64_t tbs;		/* translations seen (diagnostics) */
};

#define RS_BUCKETS 4096
static struct region_stat *rs_hash[RS_BUCKETS];
static unsigned n_rs;

/* ---- guest mappings (qemu-user) ---- */

struct mapping {
	uint64_t start, end, off;
	const char *path;	/* interned; "" for anonymous */
};

static struct mapping *maps;
static unsigned n_maps;
static int maps_dirty = 1;
static int64_t guest_delta;	/* host = guest + guest_delta */
static int delta_known;

/* interned strings: paths are compared by pointer afterwards */
static char **strs;
static unsigned n_strs;

static pthread_mutex_t trans_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- per-vCPU state ---- */

struct vstate {
	struct itlb_sim sim[MAX_SETS];	/* n_sets used */
	uint64_t insns;
	uint64_t huge_insns[MAX_SETS];
	uint64_t tb_execs;
};

static struct vstate *vcpus[MAX_VCPUS];
static unsigned overflow_vcpus;

/* ---- translated-block descriptor ---- */

struct run {
	struct region_stat *rs;
	uint64_t huge;		/* mask of the sets it is huge in */
	uint32_t n_insns;	/* 0: only the tail of a straddling insn */
};

struct tbinfo {
	uint32_t n_insns;
	uint32_t n_runs;
	uint64_t *keys;		/* n_runs * n_sets: run i, set s at i*n_sets+s */
	struct run runs[];
};

static const char *intern(const char *s)
{
	for (unsigned i = 0; i < n_strs; i++)
		if (!strcmp(strs[i], s))
			return strs[i];
	char **n = realloc(strs, (n_strs + 1) * sizeof(*strs));

	if (!n)
		abort();
	strs = n;
	strs[n_strs] = strdup(s);
	if (!strs[n_strs])
		abort();
	return strs[n_strs++];
}

static void out(const char *s)
{
	if (!quiet)
		qemu_plugin_outs(s);
}

static void maps_reload(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	unsigned cap = n_maps > 64 ? n_maps * 2 : 128;

	n_maps = 0;
	maps_dirty = 0;
	if (!f)
		return;
	free(maps);
	maps = malloc(cap * sizeof(*maps));
	while (maps && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;
		int pos = 0;
		char *path, *nl;

		if (sscanf(line, "%llx-%llx %*4s %llx %*s %*s%n", &s, &e, &o,
			   &pos) != 3)
			continue;
		path = line + pos;
		path += strspn(path, " ");
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		if (n_maps == cap) {
			struct mapping *m = realloc(maps, 2 * cap * sizeof(*maps));

			if (!m)
				break;
			maps = m;
			cap *= 2;
		}
		maps[n_maps++] = (struct mapping){ s, e, o, intern(path) };
	}
	fclose(f);
}

static const struct mapping *maps_find(uint64_t h)
{
	for (int pass = 0; pass < 2; pass++) {
		if (maps_dirty)
			maps_reload();
		unsigned lo = 0, hi = n_maps;	/* the kernel lists them sorted */

		while (lo < hi) {
			unsigned mid = (lo + hi) / 2;

			if (h < maps[mid].start)
				hi = mid;
			else if (h >= maps[mid].end)
				lo = mid + 1;
			else
				return &maps[mid];
		}
		maps_dirty = 1;		/* new mapping since the last read? */
	}
	return NULL;
}

static struct region_stat *rs_get(const char *name, int is_file, uint64_t idx,
				  uint64_t vaddr, uint64_t is_huge)
{
	uintptr_t hv = ((uintptr_t)name >> 4) * 31 + idx * 2654435761u + is_file;
	unsigned b = (unsigned)(hv % RS_BUCKETS);
	struct region_stat *r;

	for (r = rs_hash[b]; r; r = r->next)
		if (r->name == name && r->idx == idx && r->is_file == is_file)
			break;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			abort();
		r->name = name;
		r->is_file = is_file;
		r->idx = idx;
		r->vaddr = vaddr;
		r->next = rs_hash[b];
		rs_hash[b] = r;
		n_rs++;
	}
	r->huge |= is_huge;
	r->tbs++;
	return r;
}

/* the sets (mask) in which this 2 MB file region is huge */
static uint64_t file_region_is_huge(const char *path, uint64_t off2m)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < n_huge; i++)
		if (huge[i].is_file && huge[i].path == path &&
		    huge[i].off == off2m)
			mask |= 1ULL << huge[i].set;
	return mask;
}

static uint64_t va_is_huge(uint64_t va)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < n_huge; i++)
		if (!huge[i].is_file && va >= huge[i].start && va < huge[i].end)
			mask |= 1ULL << huge[i].set;
	return mask;
}

/*
 * Classify the 4 KB page holding guest address va: its region, and for
 * every set s the key the TLBs see, keys[s].
 */
static void classify(uint64_t va, struct run *r, uint64_t *keys)
{
	const struct mapping *m = NULL;
	const char *name = "[unknown]";
	uint64_t hg = 0, hv, inreg = 0;

	if (!system_mode)
		m = maps_find((uint64_t)((int64_t)va + guest_delta));
	if (m && m->path[0] == '/') {
		uint64_t h = (uint64_t)((int64_t)va + guest_delta);
		uint64_t foff = h - m->start + m->off;

		inreg = foff & (MB2 - 1);
		hg = file_region_is_huge(m->path, foff - inreg);
		r->rs = rs_get(m->path, 1, foff >> ITLB_SHIFT_2M, va - inreg,
			       0);
	} else {
		if (m)
			name = m->path[0] ? m->path : "[anon]";
		r->rs = rs_get(intern(name), 0, va >> ITLB_SHIFT_2M,
			       va & ~(MB2 - 1), 0);
	}
	hv = va_is_huge(va) & ~hg;
	r->huge = hg | hv;
	r->rs->huge |= r->huge;
	for (unsigned s = 0; s < n_sets; s++)
		keys[s] = (hg >> s) & 1 ? itlb_key_2m(va - inreg) :
			  (hv >> s) & 1 ? itlb_key_2m(va) : itlb_key_4k(va);
}

static struct vstate *vstate_get(unsigned vcpu)
{
	struct vstate *v;

	if (vcpu >= MAX_VCPUS) {
		/* shared slot: counts stay approximate for such guests */
		__atomic_store_n(&overflow_vcpus, 1, __ATOMIC_RELAXED);
		vcpu = MAX_VCPUS - 1;
	}
	v = vcpus[vcpu];
	if (v)
		return v;
	v = calloc(1, sizeof(*v));
	if (!v)
		abort();
	for (unsigned s = 0; s < n_sets; s++)
		if (itlb_sim_init(&v->sim[s], model_names))
			abort();
	vcpus[vcpu] = v;
	return v;
}

static void tb_exec(unsigned int vcpu, void *ud)
{
	const struct tbinfo *t = ud;
	struct vstate *v = vstate_get(vcpu);

	v->insns += t->n_insns;
	v->tb_execs++;
	for (uint32_t i = 0; i < t->n_runs; i++) {
		const struct run *r = &t->runs[i];

		if (r->n_insns) {
			__atomic_fetch_add(&r->rs->insns, r->n_insns,
					   __ATOMIC_RELAXED);
			for (uint64_t h = r->huge; h; h &= h - 1)
				v->huge_insns[__builtin_ctzll(h)] += r->n_insns;
		}
	}
	for (unsigned s = 0; s < n_sets; s++)
		for (uint32_t i = 0; i < t->n_runs; i++)
			itlb_sim_fetch(&v->sim[s], t->keys[i * n_sets + s]);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct tbinfo *t;
	uint64_t page = UINT64_MAX;

	(void)id;
	if (!n)
		return;
	/* at most two runs per instruction (straddling) */
	t = calloc(1, sizeof(*t) + 2 * n * sizeof(t->runs[0]) +
		   2 * n * n_sets * sizeof(uint64_t));
	if (!t)
		abort();
	t->keys = (uint64_t *)&t->runs[2 * n];
	pthread_mutex_lock(&trans_lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		size_t sz = qemu_plugin_insn_size(insn);
		uint64_t last = va + (sz ? sz - 1 : 0);

		if (!delta_known && !system_mode) {
			void *h = qemu_plugin_insn_haddr(insn);

			if (h) {
				guest_delta = (int64_t)((uintptr_t)h - va);
				delta_known = 1;
			}
		}
		if (va >> ITLB_SHIFT_4K != page) {
			page = va >> ITLB_SHIFT_4K;
			classify(va, &t->runs[t->n_runs],
				 &t->keys[t->n_runs * n_sets]);
			t->n_runs++;
		}
		t->runs[t->n_runs - 1].n_insns++;
		if (last >> ITLB_SHIFT_4K != page) {
			page = last >> ITLB_SHIFT_4K;
			classify(page << ITLB_SHIFT_4K, &t->runs[t->n_runs],
				 &t->keys[t->n_runs * n_sets]);
			t->n_runs++;
		}
	}
	t->n_insns = (uint32_t)n;
	pthread_mutex_unlock(&trans_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     t);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
		       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
	(void)id; (void)vcpu; (void)a1; (void)a2; (void)a3; (void)a4;
	(void)a5; (void)a6; (void)a7; (void)a8;
	/* x86_64: mmap, mprotect, munmap, mremap change the mappings */
	if (num == 9 || num == 10 || num == 11 || num == 25)
		__atomic_store_n(&maps_dirty, 1, __ATOMIC_RELAXED);
}

/* ---- output ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int rs_cmp(const void *a, const void *b)
{
	const struct region_stat *x = *(struct region_stat *const *)a;
	const struct region_stat *y = *(struct region_stat *const *)b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static double per_k(uint64_t x, uint64_t insns)
{
	return insns ? 1000.0 * (double)x / (double)insns : 0.0;
}

/* a cost input: its cycles, or null where no figure was sourced */
static void json_cycles(FILE *f, const char *key, unsigned cycles)
{
	if (cycles)
		fprintf(f, ", \"%s\": %u", key, cycles);
	else
		fprintf(f, ", \"%s\": null", key);
}

/*
 * Per model: the counts, and the cost inputs of the model table
 * (itlb_models.c): a report computes cycles per 1000 instructions as
 * (stlb_hits * stlb_hit_cycles + stlb_misses * walk_cycles) * 1000 /
 * instructions, n/a where a count is not 0 and its cost is null.
 */
static void json_models(FILE *f, const struct itlb_sim *tot, uint64_t insns)
{
	for (unsigned i = 0; i < tot->n; i++) {
		const struct itlb_stats *s = &tot->cpu[i].st;
		const struct itlb_model *m = tot->cpu[i].model;

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, m->name);
		fprintf(f, ", \"desc\": ");
		json_str(f, m->desc);
		fprintf(f, ", \"l1_4k\": [%u, %u], \"l1_2m\": [%u, %u], "
			"\"l2\": [%u, %u], \"lookups\": %llu, "
			"\"l1_misses\": %llu, \"l1_misses_2m\": %llu, "
			"\"l1_mpki\": %.4f, \"stlb_hits\": %llu, "
			"\"stlb_misses\": %llu, "
			"\"stlb_misses_2m\": %llu, \"stlb_mpki\": %.4f",
			m->l1_4k.entries, m->l1_4k.ways,
			m->l1_2m.entries, m->l1_2m.ways,
			m->l2.entries, m->l2.ways,
			(unsigned long long)s->lookups,
			(unsigned long long)s->l1_miss,
			(unsigned long long)s->l1_miss_2m,
			per_k(s->l1_miss, insns),
			(unsigned long long)s->l2_hit,
			(unsigned long long)s->l2_miss,
			(unsigned long long)s->l2_miss_2m,
			per_k(s->l2_miss, insns));
		json_cycles(f, "stlb_hit_cycles", m->stlb_hit_cycles);
		json_cycles(f, "walk_cycles", m->walk_cycles);
		fputc('}', f);
	}
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
	struct itlb_sim tot[MAX_SETS];
	uint64_t insns = 0, huge_insns[MAX_SETS] = { 0 }, tb_execs = 0;
	struct region_stat **rs;
	unsigned k = 0;
	char buf[PATH_MAX + 256];

	(void)id; (void)ud;
	for (unsigned s = 0; s < n_sets; s++)
		if (itlb_sim_init(&tot[s], model_names))
			return;
	for (unsigned v = 0; v < MAX_VCPUS; v++) {
		if (!vcpus[v])
			continue;
		insns += vcpus[v]->insns;
		tb_execs += vcpus[v]->tb_execs;
		for (unsigned s = 0; s < n_sets; s++) {
			huge_insns[s] += vcpus[v]->huge_insns[s];
			for (unsigned i = 0; i < tot[s].n; i++) {
				struct itlb_stats *a = &tot[s].cpu[i].st;
				const struct itlb_stats *b =
					&vcpus[v]->sim[s].cpu[i].st;

				a->lookups += b->lookups;
				a->l1_miss += b->l1_miss;
				a->l1_miss_2m += b->l1_miss_2m;
				a->l2_hit += b->l2_hit;
				a->l2_miss += b->l2_miss;
				a->l2_miss_2m += b->l2_miss_2m;
			}
		}
	}
	rs = calloc(n_rs ? n_rs : 1, sizeof(*rs));
	if (!rs)
		return;
	for (unsigned b = 0; b < RS_BUCKETS; b++)
		for (struct region_stat *r = rs_hash[b]; r; r = r->next)
			rs[k++] = r;
	qsort(rs, n_rs, sizeof(*rs), rs_cmp);

	for (unsigned s = 0; s < n_sets; s++) {
		snprintf(buf, sizeof(buf),
			 "itlb: MODEL results under QEMU TCG (not hardware "
			 "counts), set %s: %llu instructions, %llu in 2 MB "
			 "pages\n", set_names[s], (unsigned long long)insns,
			 (unsigned long long)huge_insns[s]);
		out(buf);
		for (unsigned i = 0; i < tot[s].n; i++) {
			const struct itlb_stats *st = &tot[s].cpu[i].st;

			snprintf(buf, sizeof(buf),
				 "itlb: %-16s L1 iTLB misses %llu (%.3f /1k "
				 "insn), STLB hits %llu, STLB misses (walks) "
				 "%llu (%.3f /1k insn)\n",
				 tot[s].cpu[i].model->name,
				 (unsigned long long)st->l1_miss,
				 per_k(st->l1_miss, insns),
				 (unsigned long long)st->l2_hit,
				 (unsigned long long)st->l2_miss,
				 per_k(st->l2_miss, insns));
			out(buf);
		}
	}
	for (unsigned i = 0; i < n_rs && i < top_n; i++) {
		snprintf(buf, sizeof(buf), "itlb: region %s%s+0x%llx: %llu insns\n",
			 rs[i]->huge & 1 ? "[2M] " : "", rs[i]->name,
			 (unsigned long long)(rs[i]->idx << ITLB_SHIFT_2M),
			 (unsigned long long)rs[i]->insns);
		out(buf);
	}

	if (out_path) {
		char path[PATH_MAX];
		FILE *f;

		f = plugin_out_open(out_path, install_pid, path, sizeof(path));
		if (!f) {
			snprintf(buf, sizeof(buf), "itlb: cannot write %s: %s\n",
				 path, strerror(errno));
			qemu_plugin_outs(buf);
		} else {
			/* the top level is set 0, as before sets existed */
			fprintf(f, "{\n  \"kind\": \"itlb-model\",\n"
				"  \"note\": \"model results under QEMU TCG, "
				"not hardware measurements\",\n"
				"  \"instructions\": %llu,\n"
				"  \"huge_instructions\": %llu,\n"
				"  \"tb_execs\": %llu,\n"
				"  \"vcpu_overflow\": %s,\n  \"models\": [",
				(unsigned long long)insns,
				(unsigned long long)huge_insns[0],
				(unsigned long long)tb_execs,
				overflow_vcpus ? "true" : "false");
			json_models(f, &tot[0], insns);
			fprintf(f, "\n  ],\n  \"sets\": [");
			for (unsigned s = 0; s < n_sets; s++) {
				fprintf(f, "%s\n   {\"name\": ", s ? "," : "");
				json_str(f, set_names[s]);
				fprintf(f, ", \"huge_instructions\": %llu, "
					"\"models\": [",
					(unsigned long long)huge_insns[s]);
				json_models(f, &tot[s], insns);
				fprintf(f, "]}");
			}
			fprintf(f, "\n  ],\n  \"regions\": [");
			for (unsigned i = 0; i < n_rs; i++) {
				fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
				json_str(f, rs[i]->name);
				fprintf(f, ", \"file\": %s, \"offset\": %llu, "
					"\"vaddr\": %llu, \"huge\": %s, "
					"\"huge_sets\": %llu, "
					"\"instructions\": %llu}",
					rs[i]->is_file ? "true" : "false",
					(unsigned long long)(rs[i]->is_file ?
					 rs[i]->idx << ITLB_SHIFT_2M : 0),
					(unsigned long long)rs[i]->vaddr,
					rs[i]->huge & 1 ? "true" : "false",
					(unsigned long long)rs[i]->huge,
					(unsigned long long)rs[i]->insns);
			}
			fprintf(f, "\n  ]\n}\n");
			fclose(f);
		}
	}
	free(rs);
	for (unsigned s = 0; s < n_sets; s++)
		itlb_sim_free(&tot[s]);
}

/* ---- setup ---- */

static int load_regions(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[PATH_MAX + 64];
	unsigned lineno = 0;
	int cur_set = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct huge_region r = { 0 };
		char *p = line, *end, *nl;

		lineno++;
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		p += strspn(p, " \t");
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "set ", 4)) {
			char *name = p + 4 + strspn(p + 4, " \t");

			if (!*name)
				goto bad;
			if (cur_set < 0 && n_huge == 0) {
				cur_set = 0;
			} else {
				cur_set = cur_set < 0 ? 1 : cur_set + 1;
				if (cur_set >= MAX_SETS) {
					fprintf(stderr, "itlb: %s:%u: more "
						"than %d sets\n", file, lineno,
						MAX_SETS);
					fclose(f);
					return -1;
				}
			}
			set_names[cur_set] = intern(name);
			n_sets = cur_set + 1;
			continue;
		}
		r.set = cur_set < 0 ? 0 : cur_set;
		if (!strncmp(p, "file ", 5)) {
			char real[PATH_MAX];

			r.is_file = 1;
			r.off = strtoull(p + 5, &end, 0);
			if (end == p + 5 || (r.off & (MB2 - 1)))
				goto bad;
			end += strspn(end, " \t");
			if (!*end)
				goto bad;
			r.path = intern(realpath(end, real) ? real : end);
		} else if (!strncmp(p, "va ", 3)) {
			r.start = strtoull(p + 3, &end, 0);
			r.end = strtoull(end, &end, 0);
			if (r.end <= r.start)
				goto bad;
		} else {
			goto bad;
		}
		struct huge_region *n = realloc(huge, (n_huge + 1) * sizeof(*n));

		if (!n)
			abort();
		huge = n;
		huge[n_huge++] = r;
		continue;
bad:
		fprintf(stderr, "itlb: %s:%u: bad region line\n", file, lineno);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int parse_models(const char *v)
{
	char *s = strdup(v), *save = NULL;
	unsigned n = 0;

	if (!s)
		return -1;
	model_names = calloc(strlen(v) + 2, sizeof(*model_names));
	if (!model_names)
		return -1;
	for (char *tok = strtok_r(s, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		if (!itlb_model_find(tok)) {
			fprintf(stderr, "itlb: unknown model %s\n", tok);
			return -1;
		}
		model_names[n++] = tok;
	}
	return n ? 0 : -1;
}

QP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
				  int argc, char **argv)
{
	install_pid = getpid();
	system_mode = info->system_emulation;
	target_x86_64 = info->target_name &&
			!strcmp(info->target_name, "x86_64");
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "regions=", 8)) {
			if (load_regions(a + 8)) {
				fprintf(stderr, "itlb: cannot load regions %s\n",
					a + 8);
				return -1;
			}
		} else if (!strncmp(a, "out=", 4)) {
			out_path = a + 4;
		} else if (!strncmp(a, "models=", 7)) {
			if (parse_models(a + 7))
				return -1;
		} else if (!strcmp(a, "quiet=on") || !strcmp(a, "quiet=true")) {
			quiet = 1;
		} else if (!strncmp(a, "top=", 4)) {
			top_n = (unsigned)strtoul(a + 4, NULL, 0);
		} else {
			fprintf(stderr, "itlb: unknown argument %s\n", a);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	if (!system_mode && target_x86_64)
		qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
