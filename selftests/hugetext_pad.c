// SPDX-License-Identifier: GPL-2.0
/*
 * Padding (hugetext_pad_threshold, hugetext_pad_rodata): the helpers built
 * by mk_padtext.sh are static programs whose text ends 1.5 MB past a 2 MB
 * boundary and, but for the "gap" layout, starts 4 KB past one, after the
 * segment holding the ELF headers.  With hugetext=1 and
 * hugetext_pad_rodata=1, a threshold at most the tail extends the "ok"
 * layout's text mapping to the boundary above (over .rodata), and one at
 * most the head's 2 MB - 4 KB down to the boundary below (over the
 * headers' segment); each padded region is PMD-mapped too, while the
 * program computes the right results and its mapped text (padding
 * included) equals its file.  With hugetext_pad_rodata=0 (the default)
 * only linker padding is covered: the "gap" layout (linked with
 * -z separate-code -z max-page-size=2M) is padded, the "ok" layout not at
 * all.  Threshold 0, thresholds above the tail or the head, hugetext=0
 * and the three layouts where tail padding would be unsafe ("rw": a
 * writable segment inside the region, "near": other file bytes mapped
 * there, "eof": the file ends inside the region) leave that end as the
 * ELF file says, with every full region still PMD-mapped.  Also both
 * knobs' ranges and bad-input matrices (tools/lib/hugetext/knobs.list), and the
 * hugetext_pad and hugetext_pad_head counters.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"


static char dir[512];

/* thresholds relative to the helper's own text */
#define THR_TAIL	-1	/* the tail's length */
#define THR_TAIL_1	-2	/* the tail + 1 */
#define THR_HEAD	-3	/* the text's part of the head region */
#define THR_HEAD_1	-4	/* that + 1 */
#define THR_MAX		-5	/* the knob's maximum, PMD size - 1 */

struct pcase {
	const char *layout;	/* ok, gap, rw, near, eof */
	const char *hugetext;
	long threshold;		/* bytes, or THR_* */
	const char *rodata;	/* hugetext_pad_rodata */
	int tail, head;		/* padded at the tail, at the head */
	const char *why;
};

static const struct pcase cases[] = {
	{ "ok", "1", 4096, "1", 1, 1, "threshold 4096, pad_rodata 1: both ends padded and PMD-mapped (over .rodata, over the headers' segment)" },
	{ "ok", "1", 4096, "0", 0, 0, "pad_rodata 0: .rodata after and the headers' segment before the text stop padding" },
	{ "gap", "1", 4096, "0", 1, 0, "pad_rodata 0: linker padding after the text is padded (-z separate-code -z max-page-size=2M)" },
	{ "ok", "1", 0, "1", 0, 0, "threshold 0: no padding" },
	{ "ok", "1", 1, "1", 1, 1, "threshold 1: both ends padded" },
	{ "ok", "1", THR_TAIL, "1", 1, 1, "threshold = tail: both ends padded" },
	{ "ok", "1", THR_TAIL_1, "1", 0, 1, "threshold = tail + 1: only the head padded" },
	{ "ok", "1", THR_HEAD, "1", 0, 1, "threshold = the head's text: only the head padded" },
	{ "ok", "1", THR_HEAD_1, "1", 0, 0, "threshold = the head's text + 1: no padding" },
	{ "ok", "1", THR_MAX, "1", 0, 0, "threshold PMD size - 1 (the maximum): no padding" },
	{ "ok", "0", 4096, "1", 0, 0, "hugetext=0: no padding whatever the thresholds" },
	{ "ok", "3", 4096, "1", 1, 1, "hugetext=3: both ends padded" },
	{ "rw", "1", 4096, "1", 0, 1, "writable segment inside the tail's region: tail not padded" },
	{ "near", "1", 4096, "1", 0, 1, "other file bytes mapped inside the tail's region: tail not padded" },
	{ "eof", "1", 4096, "1", 0, 1, "file ends inside the tail's region: tail not padded" },
};

static int run_case(const struct pcase *c)
{
	char path[600], thr[32], out[8192];
	char *argv[] = { path, NULL, "--timeout", "30000", NULL };
	unsigned long tstart, tend, tail, hpart, start = 0, end = 0, want_start, want_end;
	long before, before_head, pads, heads, t;
	int rc;
	char *p;

	snprintf(path, sizeof(path), "%s/hugetext_pad%s", dir, c->layout);
	elf_text_range(path, &tstart, &tend, NULL);
	tail = tend % pmd_size();
	hpart = pmd_size() - tstart % pmd_size();	/* = PMD size: starts on a boundary */
	if (!tend || tail < (1UL << 20)) {
		ksft_print_msg("%s: text ends at %#lx, not 1-2 MB past a boundary\n",
			       path, tend);
		return -1;
	}
	t = c->threshold;
	t = t == THR_TAIL ? (long)tail : t == THR_TAIL_1 ? (long)tail + 1 :
	    t == THR_HEAD ? (long)hpart : t == THR_HEAD_1 ? (long)hpart + 1 :
	    t == THR_MAX ? knob_max(KNOB_PAD_THRESHOLD) : t;
	snprintf(thr, sizeof(thr), "%ld", t);
	if (knob_write(KNOB_ENABLED, c->hugetext) || knob_write("enabled", "madvise") ||
	    knob_write(KNOB_PAD_THRESHOLD, thr) || knob_write(KNOB_PAD_RODATA, c->rodata)) {
		ksft_print_msg("cannot set hugetext_enabled=%s %s=%s %s=%s\n", c->hugetext,
			       KNOB_PAD_THRESHOLD, thr, KNOB_PAD_RODATA, c->rodata);
		return -1;
	}
	khugepaged_fast();
	drop_caches();
	before = vmstat_read("hugetext_pad");
	before_head = vmstat_read("hugetext_pad_head");
	/* hugetext=0 with THP=madvise: nothing is collapsed at all */
	argv[1] = strcmp(c->hugetext, "0") ? "huge" : "none";
	if (!strcmp(argv[1], "none"))
		argv[3] = "3000";
	rc = run_helper(argv, out, sizeof(out), NULL, false);
	pads = vmstat_read("hugetext_pad") - before;
	heads = vmstat_read("hugetext_pad_head") - before_head;
	p = strstr(out, "# text ");
	if (p)
		sscanf(p, "# text %lx-%lx", &start, &end);
	want_end = c->tail ? tend - tail + pmd_size() : tend;
	want_start = c->head ? tstart - tstart % pmd_size() : tstart;
	ksft_print_msg("%s layout, hugetext=%s, threshold %s, pad_rodata %s (head %lu KB, tail %lu KB): text %lx-%lx, expected %lx-%lx; hugetext_pad +%ld, hugetext_pad_head +%ld; helper exit %d\n",
		       c->layout, c->hugetext, thr, c->rodata, hpart >> 10, tail >> 10,
		       start, end, want_start, want_end, pads, heads, rc);
	if (rc)
		print_indented(out);
	if (rc || start != want_start || end != want_end || pads != c->tail ||
	    heads != c->head)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int err;
	char *slash, max[32];

	ksft_print_header();
	if (!knob_exists(KNOB_PAD_THRESHOLD) || !knob_exists(KNOB_PAD_RODATA))
		ksft_exit_skip("kernel without hugetext padding (no %s%s or %s)\n", THP_DIR,
			       KNOB_PAD_THRESHOLD, KNOB_PAD_RODATA);
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	ksft_set_plan(4 + 2 + 2 * KNOB_TABLE_RESULTS + sizeof(cases) / sizeof(cases[0]));
	knobs_save();

	/* the knob: 0..PMD size - 1 round-trip, everything else is refused */
	knob_write(KNOB_PAD_THRESHOLD, "7");
	ksft_test_result(knob_read_long(KNOB_PAD_THRESHOLD) == 7, "write \"7\" reads back 7\n");
	err = knob_write(KNOB_PAD_THRESHOLD, "0\n");
	ksft_test_result(!err && knob_read_long(KNOB_PAD_THRESHOLD) == 0, "write \"0\\n\" reads back 0\n");
	snprintf(max, sizeof(max), "%ld", knob_max(KNOB_PAD_THRESHOLD));
	err = knob_write(KNOB_PAD_THRESHOLD, max);
	ksft_test_result(!err && knob_read_long(KNOB_PAD_THRESHOLD) == atol(max),
			 "write \"%s\" (PMD size - 1) reads back %s\n", max, max);
	err = knob_write(KNOB_PAD_THRESHOLD, "4096\n");
	ksft_test_result(!err && knob_read_long(KNOB_PAD_THRESHOLD) == 4096, "write \"4096\\n\" reads back 4096\n");
	knob_test_table(KNOB_PAD_THRESHOLD);

	/* hugetext_pad_rodata: 0 and 1, nothing else */
	err = knob_write(KNOB_PAD_RODATA, "1\n");
	ksft_test_result(!err && knob_read_long(KNOB_PAD_RODATA) == 1, "%s: write \"1\\n\" reads back 1\n", KNOB_PAD_RODATA);
	err = knob_write(KNOB_PAD_RODATA, "0");
	ksft_test_result(!err && knob_read_long(KNOB_PAD_RODATA) == 0, "%s: write \"0\" reads back 0\n", KNOB_PAD_RODATA);
	knob_test_table(KNOB_PAD_RODATA);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_case(&cases[i]);

		ksft_test_result(rc == 0, "%s: %s\n", cases[i].layout, cases[i].why);
	}
	knobs_restore();
	ksft_finished();
}
