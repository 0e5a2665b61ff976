// SPDX-License-Identifier: GPL-2.0
/*
 * node (V8) under hugetext, against node's own --use-largepages=on, the
 * user-space copy: at start-up node copies the 2 MB-aligned part of its
 * text onto anonymous huge pages and remaps them over the text
 * (MADV_HUGEPAGE, so THP "madvise" suffices).  Two node processes run the
 * same JS workload (/opt/hugetext/work.js: maps, regexes, sorting, JSON)
 * at once, and both are sampled from their smaps while they run:
 *  - hugetext=3, THP "madvise": every full 2 MB region of node's text is
 *    PMD-mapped from the page cache, and the text is shared: its Pss in
 *    each process is about half its Rss;
 *  - hugetext=0 with --use-largepages=on: node's text copy is
 *    AnonHugePages, private to each process (Pss = Rss): the copy costs
 *    each process its size in memory;
 *  - hugetext=0, plain: no text PMD-mapped;
 *  - hugetext=3 with max_nr_hugetext=2 (100 ms samples): polled every
 *    50 ms, neither process ever has more than 2 code regions (text and
 *    V8's code together) PMD-mapped, and each has some;
 *  - V8's code space (executable anonymous memory outside node's image)
 *    is reported: its PMD-mapped part under hugetext=3 (bit 1);
 *  - the program's output is identical in every mode.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define REGION (2UL << 20)
#define NODE "/usr/bin/node"
#define SCRIPT "/opt/hugetext/work.js"
#define RUN_SECS "12"		/* each node process's work, guest seconds */
#define SAMPLE_AT 8.0		/* seconds after both started */

/* most code regions either process had PMD-mapped at one 50 ms poll */
static long max_regions[2];

struct sample {
	long text_ideal;	/* its full congruent 2 MB regions */
	long text_pmd;		/* FilePmdMapped of node's executable mappings */
	long text_anon_huge;	/* AnonHugePages of its text copy */
	long text_rss, text_pss;	/* of node's text, file or copy */
	long v8_huge, v8_size;	/* V8's code space: executable anon memory */
};

/*
 * One smaps read of @pid.  Node's image spans its file mappings that share
 * the first one's load bias (V8 may map part of node's file elsewhere, its
 * embedded builtins); an executable anonymous mapping inside the image is
 * the text copy of --use-largepages, one outside it is V8's code space.
 */
static int sample(int pid, struct sample *s)
{
	char line[512], perms[8], path[256], fn[64];
	unsigned long a, b, off, lo = ~0UL, hi = 0, bias = 0;
	bool have_bias = false;
	struct { unsigned long a, b; bool exec, node; } cur = {};
	long kb;
	FILE *f;
	int pass;

	memset(s, 0, sizeof(*s));
	snprintf(fn, sizeof(fn), "/proc/%d/smaps", pid);
	for (pass = 0; pass < 2; pass++) {
		f = fopen(fn, "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			path[0] = 0;
			if (strchr(line, '-') < strchr(line, ' ') &&
			    sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &a, &b, perms, &off,
				   path) >= 4) {
				cur.a = a;
				cur.b = b;
				cur.exec = strchr(perms, 'x');
				cur.node = !strcmp(path, NODE) || strstr(path, "/libnode.so");
				if (cur.node && !have_bias) {
					bias = a - off;
					have_bias = true;
				}
				cur.node = cur.node && a - off == bias;
				if (pass == 0 && cur.node) {
					lo = a < lo ? a : lo;
					hi = b > hi ? b : hi;
				}
				if (pass == 1 && cur.node && cur.exec)
					s->text_ideal += ideal_huge_bytes(a, b, off);
				if (pass == 1 && cur.exec && !path[0] && !(a >= lo && b <= hi))
					s->v8_size += b - a;
				continue;
			}
			if (pass == 0 || !cur.exec)
				continue;
			if (cur.node) {
				if (sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1)
					s->text_pmd += kb << 10;
			} else if (cur.a >= lo && cur.b <= hi) {
				if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
					s->text_anon_huge += kb << 10;
			} else {
				if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
					s->v8_huge += kb << 10;
				continue;
			}
			if (sscanf(line, "Rss: %ld kB", &kb) == 1)
				s->text_rss += kb << 10;
			else if (sscanf(line, "Pss: %ld kB", &kb) == 1)
				s->text_pss += kb << 10;
		}
		fclose(f);
	}
	return 0;
}

static pid_t start(const char *flag, const char *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen(out, "w", stdout))
			_exit(126);
		dup2(1, 2);
		if (flag)
			execl(NODE, NODE, flag, SCRIPT, RUN_SECS, (char *)NULL);
		else
			execl(NODE, NODE, SCRIPT, RUN_SECS, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static char *slurp(const char *path)
{
	static char bufs[3][4096];
	static int next;
	char *buf = bufs[next++ % 3];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, 4095, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

/* run two node processes with @flag; sample both; 0 if both ran well */
static int run_two(const char *name, const char *flag, struct sample s[2],
		   const char *out)
{
	char o[2][64];
	pid_t pid[2];
	int i, st, bad = 0;
	double t0;

	for (i = 0; i < 2; i++) {
		snprintf(o[i], sizeof(o[i]), "%s.%d", out, i);
		pid[i] = start(flag, o[i]);
	}
	t0 = mono_now();
	max_regions[0] = max_regions[1] = 0;
	while (mono_now() - t0 < SAMPLE_AT) {
		struct sample p;

		for (i = 0; i < 2; i++) {
			long r;

			if (sample(pid[i], &p))
				continue;
			r = (p.text_pmd + p.text_anon_huge + p.v8_huge) / (long)REGION;
			max_regions[i] = r > max_regions[i] ? r : max_regions[i];
		}
		usleep(50000);
	}
	for (i = 0; i < 2; i++)
		if (sample(pid[i], &s[i]))
			bad = 1;
	for (i = 0; i < 2; i++) {
		waitpid(pid[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) || !strstr(slurp(o[i]), "result ")) {
			ksft_print_msg("%s: node %d exited with status %#x:\n", name, i, st);
			print_indented(slurp(o[i]));
			bad = 1;
		}
	}
	for (i = 0; i < 2; i++)
		ksft_print_msg("%s, process %d: text %ld KB PMD-mapped from the page cache, %ld KB anonymous huge copy; text Rss %ld KB, Pss %ld KB; V8 code space %ld KB, %ld KB of it PMD-mapped\n",
			       name, i, s[i].text_pmd >> 10, s[i].text_anon_huge >> 10,
			       s[i].text_rss >> 10, s[i].text_pss >> 10, s[i].v8_size >> 10,
			       s[i].v8_huge >> 10);
	return bad;
}

int main(void)
{
	struct sample ht[2], lp[2], off[2], cap[2];
	int bad_ht, bad_lp, bad_off, bad_cap = 1, i;
	long capmax[2] = { -1, -1 };
	bool ok;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	ksft_need_program(NODE, SCRIPT);
	ksft_set_plan(5);
	knobs_save();
	knob_write_or_fail("enabled", "madvise");

	knob_write(KNOB_ENABLED, "3");
	drop_caches();
	bad_ht = run_two("hugetext=3", NULL, ht, "/tmp/node-ht");
	knob_write(KNOB_ENABLED, "0");
	drop_caches();
	bad_lp = run_two("hugetext=0, --use-largepages=on", "--use-largepages=on", lp,
			 "/tmp/node-lp");
	drop_caches();
	bad_off = run_two("hugetext=0", NULL, off, "/tmp/node-off");
	if (knob_exists(KNOB_MAX_NR_HUGETEXT)) {
		knob_write(KNOB_ENABLED, "3");
		knob_write(KNOB_SAMPLE_MILLISECS, "100");
		knob_write(KNOB_MAX_NR_HUGETEXT, "2");
		drop_caches();
		bad_cap = run_two("hugetext=3, max_nr_hugetext=2", NULL, cap, "/tmp/node-cap");
		capmax[0] = max_regions[0];
		capmax[1] = max_regions[1];
		knob_write(KNOB_MAX_NR_HUGETEXT, "0");
	}

	ok = !bad_ht;
	for (i = 0; i < 2; i++)
		ok = ok && ht[i].text_ideal >= 4 * (long)REGION &&
		     ht[i].text_pmd == ht[i].text_ideal &&
		     2 * ht[i].text_pss <= ht[i].text_rss + ht[i].text_rss / 10;
	ksft_test_result(ok, "hugetext=3: both node processes have all %ld KB of their text's full regions PMD-mapped from the page cache (%ld and %ld KB), shared (Pss %ld and %ld KB of Rss %ld and %ld KB)\n",
			 ht[0].text_ideal >> 10, ht[0].text_pmd >> 10, ht[1].text_pmd >> 10,
			 ht[0].text_pss >> 10, ht[1].text_pss >> 10,
			 ht[0].text_rss >> 10, ht[1].text_rss >> 10);
	ok = !bad_lp;
	for (i = 0; i < 2; i++)
		ok = ok && lp[i].text_anon_huge >= 4 * (long)REGION && lp[i].text_pmd == 0 &&
		     10 * lp[i].text_pss >= 9 * lp[i].text_rss;
	ksft_test_result(ok, "--use-largepages=on: each process has its own %ld KB and %ld KB anonymous copy (text Pss %ld and %ld KB: private, not shared)\n",
			 lp[0].text_anon_huge >> 10, lp[1].text_anon_huge >> 10,
			 lp[0].text_pss >> 10, lp[1].text_pss >> 10);
	ok = !bad_off;
	for (i = 0; i < 2; i++)
		ok = ok && off[i].text_pmd == 0 && off[i].text_anon_huge == 0;
	ksft_test_result(ok, "hugetext=0: no node text PMD-mapped\n");
	if (!knob_exists(KNOB_MAX_NR_HUGETEXT))
		ksft_test_result_skip("kernel without max_nr_hugetext\n");
	else
		ksft_test_result(!bad_cap && capmax[0] >= 1 && capmax[0] <= 2 &&
				 capmax[1] >= 1 && capmax[1] <= 2,
				 "hugetext=3, cap 2: at most 2 code regions PMD-mapped at any 50 ms poll (most %ld and %ld)\n",
				 capmax[0], capmax[1]);
	ok = !bad_ht && !bad_lp && !bad_off;
	if (ok) {
		const char *ref = slurp("/tmp/node-off.0");
		static const char *const outs[] = { "/tmp/node-off.1", "/tmp/node-ht.0",
			"/tmp/node-ht.1", "/tmp/node-lp.0", "/tmp/node-lp.1",
			"/tmp/node-cap.0", "/tmp/node-cap.1" };

		for (i = 0; i < (bad_cap ? 5 : 7); i++)
			if (strcmp(slurp(outs[i]), ref))
				ok = false;
		ksft_print_msg("output: %s", ref);
	}
	ksft_test_result(ok, "node's output is identical in every mode\n");
	ksft_finished();
}
