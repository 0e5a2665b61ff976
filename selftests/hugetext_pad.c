// SPDX-License-Identifier: GPL-2.0
/*
 * Tail padding (hugetext_pad_threshold): the helpers built by mk_padtext.sh
 * are static programs whose text ends 1.5 MB past a 2 MB boundary.  With
 * hugetext=1 and a threshold at most that tail, the "ok" layout's text
 * mapping must be extended to the boundary and its last region PMD-mapped
 * too, while the program computes the right results and its mapped text
 * (padding included) equals its file.  Threshold 0, a threshold above the
 * tail, hugetext=0 and the three layouts where padding would be unsafe
 * ("rw": a writable segment inside the region, "near": other file bytes
 * mapped there, "eof": the file ends inside the region) must leave the
 * mapping as the ELF file says, with every full region still PMD-mapped.
 * Also the knob's range and its bad-input matrix, and the hugetext_pad
 * counter.
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

#define KNOB "hugetext_pad_threshold"

static char longstr[4096];
static const char *const bad[] = {
	"\n", "2097152", "2097153\n", "-1", "-0", "+1", "abc", "1x", "4096 ",
	" 4096", "0x1000", "4096.0", "1\n2", "4096\n\n", "\t1",
	"99999999999999999999999", "18446744073709551617", longstr,
};

static char dir[512];

/* the text end of @path's executable PT_LOAD, rounded up to a page */
static unsigned long elf_text_end(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned long end = 0;
	int fd = open(path, O_RDONLY), i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			end = (ph.p_vaddr + ph.p_filesz + 4095) & ~4095UL;
	}
out:
	if (fd >= 0)
		close(fd);
	return end;
}

struct pcase {
	const char *layout;	/* ok, rw, near, eof */
	const char *hugetext;
	long threshold;		/* -1: the tail, -2: the tail + 1 */
	int padded;
	const char *why;
};

static const struct pcase cases[] = {
	{ "ok", "1", 4096, 1, "threshold 4096: the 1.5 MB tail is padded and PMD-mapped" },
	{ "ok", "1", 0, 0, "threshold 0: no padding" },
	{ "ok", "1", 1, 1, "threshold 1: padded" },
	{ "ok", "1", -1, 1, "threshold = tail: padded" },
	{ "ok", "1", -2, 0, "threshold = tail + 1: no padding" },
	{ "ok", "1", 2097151, 0, "threshold 2097151 (above the tail): no padding" },
	{ "ok", "0", 4096, 0, "hugetext=0: no padding whatever the threshold" },
	{ "ok", "3", 4096, 1, "hugetext=3: padded" },
	{ "rw", "1", 4096, 0, "writable segment inside the tail's region: no padding" },
	{ "near", "1", 4096, 0, "other file bytes mapped inside the tail's region: no padding" },
	{ "eof", "1", 4096, 0, "file ends inside the tail's region: no padding" },
};

static int run_case(const struct pcase *c)
{
	char path[600], thr[32], out[8192];
	char *argv[] = { path, NULL, "--timeout", "30000", NULL };
	unsigned long tend, tail, start = 0, end = 0, want_end;
	long before, pads;
	int rc;
	char *p;

	snprintf(path, sizeof(path), "%s/hugetext_pad%s", dir, c->layout);
	tend = elf_text_end(path);
	tail = tend % pmd_size();
	if (!tend || tail < (1UL << 20)) {
		ksft_print_msg("%s: text ends at %#lx, not 1-2 MB past a boundary\n",
			       path, tend);
		return -1;
	}
	snprintf(thr, sizeof(thr), "%ld", c->threshold == -1 ? (long)tail :
		 c->threshold == -2 ? (long)tail + 1 : c->threshold);
	if (knob_write("hugetext_enabled", c->hugetext) || knob_write("enabled", "madvise") ||
	    knob_write(KNOB, thr)) {
		ksft_print_msg("cannot set hugetext_enabled=%s %s=%s\n", c->hugetext, KNOB, thr);
		return -1;
	}
	khugepaged_fast();
	drop_caches();
	before = vmstat_read("hugetext_pad");
	/* hugetext=0 with THP=madvise: nothing is collapsed at all */
	argv[1] = strcmp(c->hugetext, "0") ? "huge" : "none";
	if (!strcmp(argv[1], "none"))
		argv[3] = "3000";
	rc = run_helper(argv, out, sizeof(out), NULL, false);
	pads = vmstat_read("hugetext_pad") - before;
	p = strstr(out, "# text ");
	if (p)
		sscanf(p, "# text %lx-%lx", &start, &end);
	want_end = c->padded ? tend - tail + pmd_size() : tend;
	ksft_print_msg("%s layout, hugetext=%s, threshold %s (tail %lu KB): text %lx-%lx, expected end %lx; hugetext_pad +%ld; helper exit %d\n",
		       c->layout, c->hugetext, thr, tail >> 10, start, end, want_end,
		       pads, rc);
	if (rc)
		print_indented(out);
	if (rc || end != want_end || pads != c->padded)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	char got[64];
	size_t i;
	int err;
	char *slash;

	ksft_print_header();
	if (!knob_exists(KNOB))
		ksft_exit_skip("kernel without hugetext tail padding (no %s%s)\n", THP_DIR, KNOB);
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	memset(longstr, '1', sizeof(longstr) - 1);
	ksft_set_plan(4 + sizeof(bad) / sizeof(bad[0]) + sizeof(cases) / sizeof(cases[0]));
	knobs_save();

	/* the knob: 0..2097151 round-trip, everything else is refused */
	knob_write(KNOB, "7");
	ksft_test_result(knob_read_long(KNOB) == 7, "write \"7\" reads back 7\n");
	err = knob_write(KNOB, "0\n");
	ksft_test_result(!err && knob_read_long(KNOB) == 0, "write \"0\\n\" reads back 0\n");
	err = knob_write(KNOB, "2097151");
	ksft_test_result(!err && knob_read_long(KNOB) == 2097151,
			 "write \"2097151\" (PMD size - 1) reads back 2097151\n");
	err = knob_write(KNOB, "4096\n");
	ksft_test_result(!err && knob_read_long(KNOB) == 4096, "write \"4096\\n\" reads back 4096\n");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *b = bad[i];
		char shown[40];
		long before;

		knob_write(KNOB, i % 2 ? "4096" : "65536");
		before = knob_read_long(KNOB);
		err = knob_write(KNOB, b);
		knob_read(KNOB, got, sizeof(got));
		knob_label(b, shown, sizeof(shown));
		ksft_test_result(err == -EINVAL && knob_read_long(KNOB) == before,
				 "bad write \"%s\" fails with EINVAL (got %d), value stays %ld\n",
				 shown, err, before);
	}

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_case(&cases[i]);

		ksft_test_result(rc == 0, "%s: %s\n", cases[i].layout, cases[i].why);
	}
	knobs_restore();
	ksft_finished();
}
