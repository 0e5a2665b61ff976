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
 *  - /proc/PID/status shows the setting (Hugetext_prctl:);
 *  - an exec as an unprivileged user (uid 1000) keeps the setting, a
 *    secure exec (a set-user-ID-root copy of this program, run by uid
 *    1000) forgets it: the privileged program reports PR_HUGETEXT_SYSTEM;
 *  - with hugetext_enabled=0 and PR_HUGETEXT_SET | PR_HUGETEXT_TEXT set by
 *    uid 1000, a plain copy of hugetext_bigpie (8 MB of PIE text) is
 *    placed congruent modulo the PMD size at every exec (hugetext's
 *    placement: the control), a set-user-ID-root copy is not (ASLR's 4 KB
 *    steps: at most 2 of 12 by chance, 1/512 each);
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
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

#define UNPRIV_ID 1000
#define EXECS 12

/* in the child: become uid/gid UNPRIV_ID, then prctl(PR_SET_HUGETEXT, *@arg) */
static int unprivileged_setup(void *arg)
{
	return setgroups(0, NULL) || setresgid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) ||
	       setresuid(UNPRIV_ID, UNPRIV_ID, UNPRIV_ID) ||
	       prctl(PR_SET_HUGETEXT, *(unsigned long *)arg, 0, 0, 0);
}

/* @argv run as uid/gid UNPRIV_ID with PR_SET_HUGETEXT @value, its stdout into @out */
static int run_unprivileged(char *const argv[], unsigned long value, char *out, size_t len)
{
	return run_helper_setup(argv, out, len, NULL, unprivileged_setup, &value);
}

/* a copy of @from at @to, owned by root, with @mode (04755: set-user-ID) */
static int install_copy(const char *from, const char *to, mode_t mode)
{
	if (copy_file(from, to) || chown(to, 0, 0) || chmod(to, mode)) {
		ksft_print_msg("%s: %s\n", to, strerror(errno));
		return -1;
	}
	return 0;
}

/* what @prog (this program's copy) reports with --get when uid 1000 runs it */
static long unprivileged_get(const char *prog, unsigned long value)
{
	char out[64];
	char *argv[] = { (char *)prog, "--get", NULL };
	int rc = run_unprivileged(argv, value, out, sizeof(out));

	if (rc)
		ksft_print_msg("%s --get as uid %d: exit %d\n", prog, UNPRIV_ID, rc);
	return rc ? -2 : strtol(out, NULL, 0);
}

/* of EXECS execs of @prog (hugetext_bigpie) by uid 1000 with @value: how many
 * placed its text congruent modulo the PMD size, -1 on error */
static int congruent_execs(const char *prog, unsigned long value)
{
	char out[256], *argv[] = { (char *)prog, "addr", NULL };
	unsigned long s, off;
	int i, n = 0, rc;

	for (i = 0; i < EXECS; i++) {
		rc = run_unprivileged(argv, value, out, sizeof(out));
		if (rc || sscanf(out, "TEXT %lx %lx", &s, &off) != 2) {
			ksft_print_msg("%s addr as uid %d: exit %d, output: %s\n", prog,
				       UNPRIV_ID, rc, out);
			return -1;
		}
		n += (s - off) % pmd_size() == 0;
	}
	return n;
}

/* /proc/self/status's Hugetext_prctl:, -1 when absent */
static long status_hugetext(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugetext_prctl: %ld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * hugetext_enabled is 0 (the caller's setting is PR_HUGETEXT_SET |
 * PR_HUGETEXT_TEXT): a plain and a set-user-ID-root copy of this program
 * and of hugetext_bigpie in a directory of /tmp (a tmpfs without nosuid),
 * run by uid 1000 with the same setting.
 */
static void secure_exec_cases(void)
{
	const unsigned long value = PR_HUGETEXT_SET | PR_HUGETEXT_TEXT;
	char dir[] = "/tmp/hugetext_prctl.XXXXXX", self[600], pie[600];
	char me[600], me_suid[600], pie_plain[600], pie_suid[600];
	unsigned long ts, te, toff;
	int plain, suid;
	long v;

	if (!mkdtemp(dir) || chmod(dir, 0755))
		ksft_exit_fail_msg("mkdtemp: %s\n", strerror(errno));
	snprintf(self, sizeof(self), "%s/hugetext_prctl", self_dir());
	snprintf(pie, sizeof(pie), "%s/hugetext_bigpie", self_dir());
	snprintf(me, sizeof(me), "%s/plain", dir);
	snprintf(me_suid, sizeof(me_suid), "%s/suid", dir);
	snprintf(pie_plain, sizeof(pie_plain), "%s/plain-hugetext_bigpie", dir);
	snprintf(pie_suid, sizeof(pie_suid), "%s/suid-hugetext_bigpie", dir);
	if (install_copy(self, me, 0755) || install_copy(self, me_suid, 04755) ||
	    install_copy(pie, pie_plain, 0755) || install_copy(pie, pie_suid, 04755))
		ksft_exit_fail_msg("cannot install the copies in %s\n", dir);
	knob_write(KNOB_ENABLED, "0");

	v = unprivileged_get(me, value);
	ksft_test_result(v == (long)value, "uid %d, exec of a plain program: the setting kept (%ld)\n",
			 UNPRIV_ID, v);
	v = unprivileged_get(me_suid, value);
	ksft_test_result(v == PR_HUGETEXT_SYSTEM,
			 "uid %d, exec of a set-user-ID-root program: the setting forgotten (%ld)\n",
			 UNPRIV_ID, v);

	if (elf_text_range(pie, &ts, &te, &toff) || ideal_huge_bytes(ts, te, toff) <= 0) {
		ksft_test_result_skip("placement: hugetext_bigpie holds no full %lu MB PMD region\n",
				      pmd_size() >> 20);
		ksft_test_result_skip("secure exec placement: no full PMD region\n");
	} else {
		plain = congruent_execs(pie_plain, value);
		ksft_test_result(plain == EXECS,
				 "uid %d, PR_HUGETEXT_TEXT, hugetext_enabled=0: a plain PIE placed congruent mod %lu MB at %d of %d execs\n",
				 UNPRIV_ID, pmd_size() >> 20, plain, EXECS);
		suid = congruent_execs(pie_suid, value);
		ksft_test_result(suid >= 0 && suid <= 2,
				 "uid %d, PR_HUGETEXT_TEXT, hugetext_enabled=0: a set-user-ID-root PIE placed congruent at %d of %d execs (ASLR's 4 KB steps)\n",
				 UNPRIV_ID, suid, EXECS);
	}
	unlink(me);
	unlink(me_suid);
	unlink(pie_plain);
	unlink(pie_suid);
	rmdir(dir);
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
	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	v = get();
	if (v < 0 && errno == EINVAL)
		ksft_exit_skip("kernel without PR_SET_HUGETEXT\n");
	ksft_set_plan(13);
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
	knob_write(KNOB_ENABLED, "0");
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

	/* who else sees the setting: /proc, a secure exec */
	v = status_hugetext();
	ksft_test_result(v == get(), "/proc/self/status: Hugetext_prctl: %ld, PR_GET_HUGETEXT %ld\n",
			 v, get());
	secure_exec_cases();

	/* opt out alone */
	knob_write(KNOB_ENABLED, "1");
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
	knob_write(KNOB_ENABLED, "0");
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
