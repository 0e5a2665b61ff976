// SPDX-License-Identifier: GPL-2.0
/*
 * prctl(PR_SET_HUGETEXT): a process's own hugetext setting, overriding
 * hugetext_enabled, inherited over fork and kept over exec.  Checked:
 *  - the default is PR_HUGETEXT_SYSTEM;
 *  - bad values and non-zero unused arguments fail with EINVAL and change
 *    nothing;
 *  - hugetext_enabled=0, PR_HUGETEXT_SET | PR_HUGETEXT_TEXT: a 16 MB-text
 *    program exec'd by a forked child has its full regions PMD-mapped,
 *    and the child reports the setting it inherited;
 *  - hugetext_enabled=1, PR_HUGETEXT_SET (off): the program stays on
 *    small pages;
 *  - PR_HUGETEXT_SYSTEM: the program follows the knob again;
 *  - PR_HUGETEXT_SET | PR_HUGETEXT_JIT with hugetext_enabled=0: a
 *    read-write-execute anonymous mapping gets a PMD page at fault, with
 *    THP "madvise" and no madvise() call.
 * With "--get" it only prints its PR_GET_HUGETEXT value (the exec'd child).
 * The same test runs on both series: the text checks read what is
 * PMD-mapped after the program's first call of every function (the 6.12
 * series collapsed it at exec, the 7.3 series reads it huge at the first
 * fault); the JIT checks SKIP on a kernel whose hugetext has no bit 1 yet
 * (no hugetext_anon_exec in /proc/vmstat).
 * The sizes are the PMD's: on arm64 with 16 KB pages (PMD 32 MB, the
 * arm64-16k boot) the RWX mapping is 32 MB, and the text checks SKIP
 * (the 16 MB-text program holds no full 32 MB region).
 * PR_SET_HUGETEXT is 82 in both series, the first number mainline leaves
 * free (74 and 75, this series' first choice, are mainline's
 * PR_GET/SET_SHADOW_STACK_STATUS since 6.13).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

static long get(void)
{
	return prctl(PR_GET_HUGETEXT, 0, 0, 0, 0);
}

/*
 * Fork and exec hugetext_bigtext (16 MB of text), which calls every
 * function once and reports its text's FilePmdMapped.  Returns bytes, -1
 * on error.
 */
static long child_text_pmd(void)
{
	char path[512], out[8192];
	char *argv[] = { path, "none", "--timeout", "1", NULL };
	long kb;

	snprintf(path, sizeof(path), "%s/hugetext_bigtext", self_dir());
	run_helper(argv, out, sizeof(out), NULL, false);
	kb = parse_after(out, "# FilePmdMapped ");
	if (kb < 0)
		print_indented(out);
	return kb < 0 ? -1 : kb << 10;
}

/* what a forked and exec'd child reports with --get, -2 on error */
static long child_get(void)
{
	char out[64];
	const char *argv[] = { "/proc/self/exe", "--get", NULL };
	int rc = run_helper((char *const *)argv, out, sizeof(out), NULL, false);

	return rc ? -2 : strtol(out, NULL, 0);
}

int main(int argc, char **argv)
{
	static const struct {
		unsigned long a2, a3, a4, a5;
		const char *what;
	} bad[] = {
		{ 1, 0, 0, 0, "PR_HUGETEXT_TEXT without PR_HUGETEXT_SET" },
		{ 2, 0, 0, 0, "PR_HUGETEXT_JIT without PR_HUGETEXT_SET" },
		{ 3, 0, 0, 0, "3 without PR_HUGETEXT_SET" },
		{ 8, 0, 0, 0, "8" },
		{ 12, 0, 0, 0, "PR_HUGETEXT_SET | 8" },
		{ 0x104, 0, 0, 0, "PR_HUGETEXT_SET | 0x100" },
		{ ~0UL, 0, 0, 0, "-1" },
		{ 1UL << 63, 0, 0, 0, "bit 63" },
		{ 5, 1, 0, 0, "arg3 = 1" },
		{ 5, 0, 1, 0, "arg4 = 1" },
		{ 5, 0, 0, 1, "arg5 = 1" },
	};
	unsigned long ts, te, toff;
	long before, ideal, v, pmd;
	char path[512];
	int i, fails = 0;

	if (argc == 2 && !strcmp(argv[1], "--get")) {
		printf("%ld\n", get());
		return 0;
	}
	ksft_begin_needing("hugetext_enabled", "CONFIG_HUGETEXT");
	v = get();
	if (v < 0 && errno == EINVAL)
		ksft_exit_skip("kernel without PR_SET_HUGETEXT\n");
	ksft_set_plan(8);
	/* hugetext_bigtext (ET_EXEC): its full 2M text regions (14M of its
	 * 16M on x86-64, where the text starts after the headers' segment;
	 * all 16M on arm64, whose text segment starts with the headers) */
	snprintf(path, sizeof(path), "%s/hugetext_bigtext", self_dir());
	if (elf_text_range(path, &ts, &te, &toff))
		ksft_exit_fail_msg("%s: no executable PT_LOAD\n", path);
	ideal = ideal_huge_bytes(ts, te, toff);
	knobs_save();
	knob_write("enabled", "madvise");

	ksft_test_result(v == PR_HUGETEXT_SYSTEM, "default: PR_HUGETEXT_SYSTEM (%ld)\n", v);

	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_JIT, 0, 0, 0);
	before = get();
	for (i = 0; i < (int)(sizeof(bad) / sizeof(*bad)); i++) {
		int r = prctl(PR_SET_HUGETEXT, bad[i].a2, bad[i].a3, bad[i].a4, bad[i].a5);

		if (r != -1 || errno != EINVAL || get() != before) {
			ksft_print_msg("%s: returned %d (%s), setting now %ld\n", bad[i].what, r,
				       r ? strerror(errno) : "accepted", get());
			fails++;
		}
	}
	errno = 0;
	v = prctl(PR_GET_HUGETEXT, 1, 0, 0, 0);
	if (v != -1 || errno != EINVAL)
		fails++;
	ksft_test_result(!fails, "%zu bad PR_SET_HUGETEXT calls and a bad PR_GET_HUGETEXT fail with EINVAL, setting kept\n",
			 sizeof(bad) / sizeof(*bad));

	/* opt in alone */
	knob_write("hugetext_enabled", "0");
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_TEXT, 0, 0, 0);
	drop_caches();
	pmd = child_text_pmd();
	/* a PMD larger than the program's text (arm64 16K: 32M): no case */
	if (ideal <= 0)
		ksft_test_result_skip("PR_HUGETEXT_TEXT: hugetext_bigtext holds no full %lu MB PMD region\n",
				      pmd_size() >> 20);
	else
		ksft_test_result(pmd == ideal,
				 "hugetext_enabled=0, PR_HUGETEXT_SET|PR_HUGETEXT_TEXT: the exec'd program's text PMD-mapped (%ld of %ld KB)\n",
				 pmd >> 10, ideal >> 10);
	v = child_get();
	ksft_test_result(v == (long)(PR_HUGETEXT_SET | PR_HUGETEXT_TEXT),
			 "inherited over fork and exec: the child reports %ld\n", v);

	/* opt out alone */
	knob_write("hugetext_enabled", "1");
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET, 0, 0, 0);
	drop_caches();
	pmd = child_text_pmd();
	ksft_test_result(pmd == 0, "hugetext_enabled=1, PR_HUGETEXT_SET (off): the program stays on small pages (%ld KB PMD-mapped)\n",
			 pmd >> 10);

	/* back to the knob */
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0);
	drop_caches();
	pmd = child_text_pmd();
	if (ideal <= 0)
		ksft_test_result_skip("PR_HUGETEXT_SYSTEM: hugetext_bigtext holds no full %lu MB PMD region\n",
				      pmd_size() >> 20);
	else
		ksft_test_result(pmd == ideal && get() == PR_HUGETEXT_SYSTEM,
				 "PR_HUGETEXT_SYSTEM: follows hugetext_enabled=1 again (%ld KB)\n",
				 pmd >> 10);

	/* bit 1 alone: JIT memory huge at fault */
	if (vmstat_read("hugetext_anon_exec") < 0) {
		ksft_test_result_skip("PR_HUGETEXT_JIT: this kernel's hugetext has no JIT bit (no hugetext_anon_exec)\n");
		ksft_test_result_skip("PR_HUGETEXT_SYSTEM for JIT memory: no JIT bit\n");
		ksft_finished();
	}
	knob_write("hugetext_enabled", "0");
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET | PR_HUGETEXT_JIT, 0, 0, 0);
	v = rwx_touch_huge(pmd_size());
	ksft_test_result(v >= (long)pmd_size(),
			 "hugetext_enabled=0, PR_HUGETEXT_SET|PR_HUGETEXT_JIT: RWX memory PMD-mapped at fault (%ld KB)\n",
			 v >> 10);
	prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SYSTEM, 0, 0, 0);
	v = rwx_touch_huge(pmd_size());
	ksft_test_result(v == 0,
			 "hugetext_enabled=0, PR_HUGETEXT_SYSTEM: RWX memory stays on small pages (%ld KB)\n",
			 v >> 10);
	ksft_finished();
}
