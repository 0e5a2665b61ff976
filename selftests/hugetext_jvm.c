// SPDX-License-Identifier: GPL-2.0
/*
 * A real JIT under hugetext: Debian's OpenJDK 17 (HotSpot, tiered C1/C2)
 * running javac over a generated 24-class source, with THP "madvise" and
 * khugepaged's default knobs.  On x86-64 HotSpot commits its code cache
 * (the CodeHeap mappings) read-write-execute and writes code into it in
 * place (no W^X remapping as with MAP_JIT on macOS/arm64), so its code
 * cache is anonymous memory with VM_EXEC from the start: hugetext bit 1
 * gives it PMD pages at fault or by collapse.  The mprotect() path of a
 * JIT that maps code read-write first is covered by the kselftest's jit
 * and sampler fixtures.
 *
 * While javac runs, its smaps is read (every 50 ms under the cap, whose
 * limit a short excess would break; every 200 ms elsewhere, where what is
 * checked is the most ever mapped, and a read of a JVM's smaps costs a
 * TCG guest ~150 ms): code regions PMD-mapped are AnonHugePages of its
 * executable anonymous mappings (the code cache) and FilePmdMapped of its
 * executable file mappings (libjvm.so, java), both in 2 MB units.  The
 * modes are the arguments (default all four; make check runs "0 2" and
 * "3 cap" in two boots side by side, each a TCG thread):
 *  - 0, hugetext=0: no code PMD-mapped;
 *  - 2, hugetext=2 (JIT only): code cache PMD-mapped, file text not;
 *  - 3, hugetext=3: code cache and libjvm.so's text PMD-mapped;
 *  - cap, hugetext=3 with max_nr_hugetext=2 (100 ms samples): never more
 *    than 2 code regions (text and JIT together) PMD-mapped at any poll,
 *    and some are;
 *  - in every mode, javac's output (the class files) is byte-identical to
 *    the host's javac's on the same source (REFERENCE, made with the
 *    rootfs: bench/programs/javac/install.sh).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define REGION (2UL << 20)
#define JAVAC "/usr/bin/javac"
#define SOURCE "/opt/hugetext/Gen.java"
#define REFERENCE "/opt/hugetext/Gen.classes"
#define TIMEOUT_S 900

struct sample {
	long jit;	/* AnonHugePages of executable anonymous mappings */
	long text;	/* FilePmdMapped of executable file mappings */
	long libjvm;	/* FilePmdMapped of libjvm.so */
	long cache;	/* size of executable anonymous mappings */
};

struct run {
	int polls, status;
	double secs;
	long max_jit, max_text, max_libjvm, max_cache;
	long max_regions;	/* most code regions PMD-mapped at one poll */
};

/* one smaps read of @pid; -1 if it is gone */
static int sample(int pid, struct sample *s)
{
	char line[512], perms[8] = "", path[256];
	bool exec = false, anon = false, jvm = false;
	unsigned long a, b, off;
	long kb;
	FILE *f;

	snprintf(line, sizeof(line), "/proc/%d/smaps", pid);
	f = fopen(line, "r");
	if (!f)
		return -1;
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (strchr(line, '-') < strchr(line, ' ') &&
		    sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &a, &b, perms, &off, path) >= 4) {
			exec = strchr(perms, 'x');
			anon = !path[0];
			jvm = strstr(path, "/libjvm.so") != NULL;
			if (exec && anon)
				s->cache += b - a;
			continue;
		}
		if (!exec)
			continue;
		if (anon && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			s->jit += kb << 10;
		else if (!anon && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1) {
			s->text += kb << 10;
			if (jvm)
				s->libjvm += kb << 10;
		}
	}
	fclose(f);
	return 0;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* javac @out_dir while sampling it every @poll_ms */
static int run_javac_once(const char *out_dir, int poll_ms, struct run *r, bool *jvm_crash)
{
	char log[256];
	double t0 = mono_now();
	struct sample s;
	pid_t pid;
	int st;

	memset(r, 0, sizeof(*r));
	mkdir(out_dir, 0755);
	snprintf(log, sizeof(log), "%s.log", out_dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		freopen(log, "w", stdout);
		dup2(1, 2);
		execl(JAVAC, JAVAC, "-J-Xshare:auto", "-d", out_dir, SOURCE, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (mono_now() - t0 > TIMEOUT_S) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		if (!sample(pid, &s)) {
			r->polls++;
			r->max_jit = MAX(r->max_jit, s.jit);
			r->max_text = MAX(r->max_text, s.text);
			r->max_libjvm = MAX(r->max_libjvm, s.libjvm);
			r->max_cache = MAX(r->max_cache, s.cache);
			r->max_regions = MAX(r->max_regions,
					     (s.jit + s.text) / (long)REGION);
		}
		usleep(poll_ms * 1000);
	}
	r->secs = mono_now() - t0;
	r->status = st;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char buf[4096] = "";
		FILE *f = fopen(log, "r");

		if (f) {
			buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
			fclose(f);
		}
		ksft_print_msg("javac exited with status %#x:\n", st);
		print_indented(buf);
		*jvm_crash = strstr(buf, "A fatal error has been detected by the Java Runtime") != NULL;
		return -1;
	}
	return 0;
}

/*
 * KNOWN OPEN (2026-11-24): once in a make check, under hugetext=0, where
 * no hugetext code touches the JVM's memory, HotSpot died of SIGSEGV at
 * the entry of a freshly compiled C1 method, the signature of executing
 * stale code after HotSpot patched it from another thread (cross-modifying
 * code, which TCG handles per translation block).  A JVM that dies with
 * its fatal-error report is run once more, and the test says so; the
 * retry must pass every check.
 */
static int run_javac(const char *out_dir, int poll_ms, struct run *r)
{
	bool crash = false;
	int rc = run_javac_once(out_dir, poll_ms, r, &crash);

	if (!rc || !crash)
		return rc;
	ksft_print_msg("KNOWN OPEN TCG ISSUE: the JVM crashed (above); running javac once more\n");
	return run_javac_once(out_dir, poll_ms, r, &crash);
}

static void report(const char *mode, const struct run *r)
{
	ksft_print_msg("%s: javac %.1f s, %d polls; most at one poll: code cache %ld KB committed, %ld KB of it PMD-mapped; text PMD-mapped %ld KB (libjvm.so %ld KB); %ld code regions\n",
		       mode, r->secs, r->polls, r->max_cache >> 10, r->max_jit >> 10,
		       r->max_text >> 10, r->max_libjvm >> 10, r->max_regions);
}

/* Are the files of @a and @b the same, byte for byte?  Counts in *@n. */
static bool same_dirs(const char *a, const char *b, int *n)
{
	struct dirent *de;
	DIR *d = opendir(a);
	bool same = true;

	*n = 0;
	if (!d)
		return false;
	while ((de = readdir(d))) {
		char pa[512], pb[512], ba[65536], bb[65536];
		FILE *fa, *fb;
		size_t la, lb;

		if (de->d_name[0] == '.')
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", a, de->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, de->d_name);
		fa = fopen(pa, "r");
		fb = fopen(pb, "r");
		if (!fa || !fb) {
			same = false;
		} else {
			do {
				la = fread(ba, 1, sizeof(ba), fa);
				lb = fread(bb, 1, sizeof(bb), fb);
				if (la != lb || memcmp(ba, bb, la))
					same = false;
			} while (same && la);
		}
		if (fa)
			fclose(fa);
		if (fb)
			fclose(fb);
		if (!same) {
			ksft_print_msg("%s differs from %s\n", pb, pa);
			break;
		}
		(*n)++;
	}
	closedir(d);
	return same && *n > 0;
}

static const struct mode {
	const char *arg, *ht, *cap, *name, *dir;
	int poll_ms;
} modes[] = {
	{ "0", "0", "0", "hugetext=0", "/tmp/jvm-0", 200 },
	{ "2", "2", "0", "hugetext=2", "/tmp/jvm-2", 200 },
	{ "3", "3", "0", "hugetext=3", "/tmp/jvm-3", 200 },
	{ "cap", "3", "2", "hugetext=3, max_nr_hugetext=2", "/tmp/jvm-cap", 50 },
};
#define NR_MODES (int)(sizeof(modes) / sizeof(modes[0]))

/* the verdict on mode @m's run @r */
static void result(const struct mode *m, bool ok, const struct run *r, long cap_collapsed)
{
	switch (m->arg[0]) {
	case '0':
		ksft_test_result(ok && r->max_jit == 0 && r->max_text == 0,
				 "hugetext=0: no code PMD-mapped (code cache %ld KB, text %ld KB)\n",
				 r->max_jit >> 10, r->max_text >> 10);
		break;
	case '2':
		ksft_test_result(ok && r->max_jit >= (long)REGION && r->max_text == 0,
				 "hugetext=2: the code cache PMD-mapped (%ld KB), text not (%ld KB)\n",
				 r->max_jit >> 10, r->max_text >> 10);
		break;
	case '3':
		ksft_test_result(ok && r->max_jit >= (long)REGION &&
				 r->max_libjvm >= (long)REGION,
				 "hugetext=3: the code cache (%ld KB) and libjvm.so's text (%ld KB) PMD-mapped\n",
				 r->max_jit >> 10, r->max_libjvm >> 10);
		break;
	default:
		ksft_test_result(ok && r->max_regions <= 2 && r->max_regions >= 1,
				 "hugetext=3, cap 2: at most 2 code regions PMD-mapped at any of %d polls (most %ld; hugetext_cap_anon_collapsed +%ld)\n",
				 r->polls, r->max_regions, cap_collapsed);
	}
}

int main(int argc, char **argv)
{
	unsigned int chosen = argc > 1 ? 0 : (1u << NR_MODES) - 1;
	struct run r[NR_MODES];
	bool ok[NR_MODES], same = true;
	int i, j, n = 0;
	long ac;

	/* the modes to run (bit j: modes[j]), each named at most once */
	for (i = 1; i < argc; i++) {
		for (j = 0; j < NR_MODES && strcmp(argv[i], modes[j].arg); j++)
			;
		if (j == NR_MODES || chosen & (1u << j)) {
			fprintf(stderr, "usage: %s [0|2|3|cap]... (each at most once; default: all four)\n",
				argv[0]);
			return KSFT_FAIL;
		}
		chosen |= 1u << j;
	}

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	ksft_need_program(JAVAC, SOURCE);
	if (access(REFERENCE, R_OK))
		ksft_exit_fail_msg("no %s: the root file system's javac reference is missing\n",
				   REFERENCE);
	ksft_set_plan(__builtin_popcount(chosen) + 1);
	knobs_save();
	knob_write_or_fail("enabled", "madvise");
	khugepaged_defaults();
	knob_write(KNOB_SAMPLE_MILLISECS, "100");

	ac = vmstat_read("hugetext_cap_anon_collapsed");
	for (i = 0; i < NR_MODES; i++) {
		const struct mode *m = &modes[i];

		if (!(chosen & (1u << i)))
			continue;
		if (knob_write(KNOB_ENABLED, m->ht) ||
		    (knob_exists(KNOB_MAX_NR_HUGETEXT) && knob_write(KNOB_MAX_NR_HUGETEXT, m->cap)))
			ksft_exit_fail_msg("cannot set hugetext_enabled=%s, cap %s\n", m->ht, m->cap);
		drop_caches();
		ok[i] = !run_javac(m->dir, m->poll_ms, &r[i]);
		report(m->name, &r[i]);
	}
	ac = vmstat_read("hugetext_cap_anon_collapsed") - ac;

	for (i = 0; i < NR_MODES; i++) {
		if (!(chosen & (1u << i)))
			continue;
		if (strcmp(modes[i].arg, "cap") || knob_exists(KNOB_MAX_NR_HUGETEXT))
			result(&modes[i], ok[i], &r[i], ac);
		else
			ksft_test_result_skip("kernel without max_nr_hugetext\n");
		if (same && (!ok[i] || !same_dirs(REFERENCE, modes[i].dir, &n)))
			same = false;
	}
	ksft_test_result(same, "javac's %d class files are byte-identical to the host's in every mode run\n",
			 n);
	ksft_finished();
}
