// SPDX-License-Identifier: GPL-2.0
/*
 * MADV_NOHUGEPAGE on PMD-mapped executable file text: what it does to the
 * PMDs already there.
 *
 * Without hugetext MADV_NOHUGEPAGE only stops new huge pages: text that
 * THP made huge (MADV_COLLAPSE here; khugepaged with THP "always") stays
 * PMD-mapped.  hugetext collapses text right after exec, before a program
 * can opt out, so where hugetext is what makes text huge MADV_NOHUGEPAGE
 * also splits the PMDs already there (the opt-out works).  Everywhere else
 * the existing behaviour must hold byte for byte: hugetext off (0, or bit 1
 * only), and THP's own huge text (enabled=always, or madvise with
 * MADV_HUGEPAGE).
 *
 * Each case: a 4 MB text file mapped PROT_READ|PROT_EXEC, MAP_PRIVATE at a
 * PMD-aligned address, made PMD-mapped with MADV_COLLAPSE, then advised
 * MADV_NOHUGEPAGE; FilePmdMapped afterwards says kept or split.  Then the
 * text is read again and must equal the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define REGION (2UL << 20)
#define SIZE (2 * REGION)
#define FILE_DIR "/var/tmp/hugetext-nohuge"
#define FILE_PATH FILE_DIR "/text"

enum expect { KEEP, SPLIT };

static const struct {
	const char *hugetext, *thp;
	bool madv_hugepage;
	enum expect expect;
	const char *why;
} cases[] = {
	{ "0", "madvise", false, KEEP, "hugetext=0, THP madvise: kept, as without hugetext" },
	{ "0", "always", false, KEEP, "hugetext=0, THP always: kept, as without hugetext" },
	{ "0", "never", false, KEEP, "hugetext=0, THP never: kept, as without hugetext" },
	{ "2", "madvise", false, KEEP, "hugetext=2 (JIT only): file text kept, as without hugetext" },
	{ "1", "always", false, KEEP, "hugetext=1, THP always: THP's own huge text kept" },
	{ "1", "madvise", true, KEEP, "hugetext=1, THP madvise + MADV_HUGEPAGE: THP's own kept" },
	{ "1", "madvise", false, SPLIT, "hugetext=1, THP madvise: hugetext's huge text split (the opt-out)" },
	{ "1", "never", false, SPLIT, "hugetext=1, THP never: hugetext's huge text split (the opt-out)" },
	{ "3", "never", false, SPLIT, "hugetext=3, THP never: hugetext's huge text split (the opt-out)" },
};

static int make_file(void)
{
	char *buf = malloc(SIZE);
	unsigned long i;
	int ret;

	if (!buf)
		return -1;
	for (i = 0; i < SIZE; i++)
		buf[i] = (char)(i * 2654435761u >> 24);
	mkdir(FILE_DIR, 0755);
	ret = write_file(FILE_PATH, buf, SIZE);
	free(buf);
	return ret;
}

int main(void)
{
	unsigned int i;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	ksft_set_plan(sizeof(cases) / sizeof(cases[0]));
	knobs_save();
	if (knob_exists(KNOB_MAX_NR_HUGETEXT))
		knob_write(KNOB_MAX_NR_HUGETEXT, "0");
	if (make_file())
		ksft_exit_fail_msg("cannot write %s: %s\n", FILE_PATH, strerror(errno));

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long before, after;
		size_t len;
		char *p;

		if (knob_write(KNOB_ENABLED, cases[i].hugetext) ||
		    knob_write("enabled", cases[i].thp))
			ksft_exit_fail_msg("cannot set hugetext_enabled=%s enabled=%s\n",
					   cases[i].hugetext, cases[i].thp);
		p = map_text_aligned(FILE_PATH, &len);
		if (p == MAP_FAILED || len != SIZE)
			ksft_exit_fail_msg("cannot map %s\n", FILE_PATH);
		if (cases[i].madv_hugepage)
			madvise(p, SIZE, MADV_HUGEPAGE);
		if (madvise(p, SIZE, MADV_COLLAPSE))
			ksft_print_msg("MADV_COLLAPSE: %s\n", strerror(errno));
		before = smaps_field(0, (unsigned long)p, (unsigned long)p + SIZE,
				     "FilePmdMapped") / 1024;
		if (madvise(p, SIZE, MADV_NOHUGEPAGE))
			ksft_exit_fail_msg("MADV_NOHUGEPAGE: %s\n", strerror(errno));
		after = smaps_field(0, (unsigned long)p, (unsigned long)p + SIZE,
				    "FilePmdMapped") / 1024;
		if (before != (long)(SIZE / 1024))
			ksft_test_result_fail("%s: MADV_COLLAPSE gave %ld kB PMD-mapped, not %lu\n",
					      cases[i].why, before, SIZE / 1024);
		else
			ksft_test_result((cases[i].expect == KEEP ? after == before : after == 0) &&
					 mapping_diff_file(p, SIZE, FILE_PATH) == 0,
					 "%s (FilePmdMapped %ld -> %ld kB)\n",
					 cases[i].why, before, after);
		munmap(p, len);
	}
	unlink(FILE_PATH);
	ksft_finished();
}
