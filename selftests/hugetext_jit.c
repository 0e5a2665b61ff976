// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext bit 1: anonymous executable memory (JIT code caches).  A child
 * process plays the JIT: it maps 4 MB of anonymous memory (PMD-aligned)
 * read-write, writes 65536 small functions into it, makes it executable
 * with mprotect() (or maps it read-write-execute from the start), calls
 * every function and checks each result, then keeps calling them while
 * khugepaged gets a bounded chance to collapse the range, and checks
 * AnonHugePages of the range and the results again.
 *
 * Expected: both 2 MB regions huge when bit 1 is set or THP is "always",
 * none otherwise (hugetext 0..3 x THP always/madvise/never), none with
 * MADV_NOHUGEPAGE or PR_SET_THP_DISABLE, none for non-executable memory
 * under bit 1, huge at fault for a read-write-execute mapping, huge within
 * 3 s of mprotect() with khugepaged's default 10 s pace (the prompt
 * collapse), and the hugetext_anon_exec counter follows.
 *
 * Bit 1 is for code a program made executable, nothing wider: memory that
 * is executable only because the personality has READ_IMPLIES_EXEC, and a
 * MAP_GROWSDOWN (stack) mapping, stay 4K; read-only code still shared with
 * a forked child is not copied by a collapse (pages stay shared), and is
 * collapsed once the child is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define JIT_SIZE	(4UL << 20)
#define FN_SIZE		64
#define NR_FNS		(JIT_SIZE / FN_SIZE)

enum { OPT_NONE, OPT_MADV, OPT_PRCTL, OPT_RWX, OPT_NOEXEC, OPT_PROMPT,
       OPT_RIE, OPT_STACK, OPT_SHARED };

struct jcase {
	const char *hugetext;
	const char *thp;
	int opt;
	int huge;		/* expect both regions huge */
	const char *why;
};

static const struct jcase cases[] = {
	/* the mode matrix: huge iff bit 1 or THP=always */
	{ "0", "never", OPT_NONE, 0, "hugetext=0 THP=never: JIT code stays 4K" },
	{ "0", "madvise", OPT_NONE, 0, "hugetext=0 THP=madvise: JIT code stays 4K" },
	{ "0", "always", OPT_NONE, 1, "hugetext=0 THP=always: JIT code huge (THP alone)" },
	{ "1", "never", OPT_NONE, 0, "hugetext=1 (file only) THP=never: JIT code stays 4K" },
	{ "1", "madvise", OPT_NONE, 0, "hugetext=1 (file only) THP=madvise: JIT code stays 4K" },
	{ "1", "always", OPT_NONE, 1, "hugetext=1 THP=always: JIT code huge (THP alone)" },
	{ "2", "never", OPT_NONE, 1, "hugetext=2 THP=never: JIT code huge after mprotect(PROT_EXEC)" },
	{ "2", "madvise", OPT_NONE, 1, "hugetext=2 THP=madvise: JIT code huge after mprotect(PROT_EXEC)" },
	{ "2", "always", OPT_NONE, 1, "hugetext=2 THP=always: JIT code huge" },
	{ "3", "never", OPT_NONE, 1, "hugetext=3 THP=never: JIT code huge after mprotect(PROT_EXEC)" },
	{ "3", "madvise", OPT_NONE, 1, "hugetext=3 THP=madvise: JIT code huge after mprotect(PROT_EXEC)" },
	{ "3", "always", OPT_NONE, 1, "hugetext=3 THP=always: JIT code huge" },
	/* opt-outs and the other paths */
	{ "2", "madvise", OPT_MADV, 0, "hugetext=2: MADV_NOHUGEPAGE keeps JIT code at 4K" },
	{ "2", "madvise", OPT_PRCTL, 0, "hugetext=2: PR_SET_THP_DISABLE keeps JIT code at 4K" },
	{ "2", "madvise", OPT_NOEXEC, 0, "hugetext=2: memory never made executable stays 4K" },
	{ "2", "madvise", OPT_RWX, 1, "hugetext=2: read-write-execute mapping huge at fault" },
	{ "2", "madvise", OPT_PROMPT, 1,
	  "hugetext=2: JIT code huge within 3 s of mprotect(PROT_EXEC) with khugepaged's default 10 s pace" },
	/* what bit 1 does not cover */
	{ "2", "madvise", OPT_RIE, 0,
	  "hugetext=2: memory executable only by READ_IMPLIES_EXEC stays 4K" },
	{ "2", "madvise", OPT_STACK, 0,
	  "hugetext=2: an executable MAP_GROWSDOWN (stack) mapping stays 4K" },
	{ "2", "madvise", OPT_SHARED, 0,
	  "hugetext=2: read-only code shared with a forked child stays shared, collapsed once the child exits" },
};

static uint32_t fn_value(unsigned long i)
{
	return (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5a;
}

/* a function returning fn_value(i) every FN_SIZE bytes; traps between */
static void emit(uint8_t *code)
{
	unsigned long i;

	memset(code, HT_TRAP_BYTE, JIT_SIZE);
	for (i = 0; i < NR_FNS; i++)
		ht_emit_ret_imm(code + i * FN_SIZE, fn_value(i));
	ht_code_written(code, JIT_SIZE);
}

static unsigned long call_all(uint8_t *code)
{
	unsigned long i, bad = 0;

	for (i = 0; i < NR_FNS; i++) {
		uint32_t (*fn)(void) = (uint32_t (*)(void))(code + i * FN_SIZE);

		if (fn() != fn_value(i))
			bad++;
	}
	return bad;
}

static uint8_t *jit_code;

/* pages of [p, p + len) that pagemap says are mapped by this process only */
static long exclusive_pages(const void *p, size_t len)
{
	long n = 0, page = sysconf(_SC_PAGESIZE);
	uint64_t e;
	size_t off;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -1;
	for (off = 0; off < len; off += page) {
		if (pread(fd, &e, sizeof(e), ((unsigned long)p + off) / page * sizeof(e)) != sizeof(e)) {
			n = -1;
			break;
		}
		n += (e >> 63) & (e >> 56) & 1;	/* present and exclusive */
	}
	close(fd);
	return n;
}

/* the mapping holding @p has 'x' in /proc/self/maps */
static bool maps_exec(const void *p)
{
	unsigned long a = (unsigned long)p, start, end;
	char line[512], perms[8];
	bool x = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 &&
		    a >= start && a < end) {
			x = strchr(perms, 'x');
			break;
		}
	fclose(f);
	return x;
}

static long anon_huge(void)
{
	return smaps_field(0, (unsigned long)jit_code,
			   (unsigned long)jit_code + JIT_SIZE, "AnonHugePages");
}

static bool all_huge(void *arg)
{
	if (*(int *)arg != OPT_NOEXEC)
		call_all(jit_code);	/* keep the code referenced */
	return anon_huge() >= (long)JIT_SIZE;
}

/*
 * OPT_SHARED: a pre-forking server.  The code is written, a child is
 * forked that keeps it mapped, the parent rewrites three quarters of each
 * 2 MB region (so 128 pages a region stay shared, fewer than
 * max_ptes_shared) and makes the range read-only and executable.  No
 * collapse may copy the shared pages; when the child exits, the (now
 * exclusive) read-only range is collapsed.  Returns 0 when all held.
 */
static int shared_case(int *opt)
{
	unsigned long page = sysconf(_SC_PAGESIZE), pmd = pmd_size(), r, off;
	long shared0, excl, got;
	pid_t holder;
	int status;

	holder = fork();
	if (holder < 0)
		return 6;
	if (holder == 0) {
		pause();
		_exit(0);
	}
	for (r = 0; r < JIT_SIZE; r += pmd)
		for (off = 0; off < pmd / 4 * 3; off += page)
			/* a write breaks COW: the page becomes this process's */
			((volatile uint8_t *)jit_code)[r + off] = jit_code[r + off];
	shared0 = JIT_SIZE / page - exclusive_pages(jit_code, JIT_SIZE);
	if (mprotect(jit_code, JIT_SIZE, PROT_READ | PROT_EXEC))
		return 5;
	if (call_all(jit_code))
		return 1;
	khugepaged_wait(3, 8000, all_huge, opt);
	got = anon_huge();
	excl = exclusive_pages(jit_code, JIT_SIZE);
	printf("# with the child: AnonHugePages %ld KB; %ld of %lu pages shared before, %ld after\n",
	       got >> 10, shared0, JIT_SIZE / page, (long)(JIT_SIZE / page) - excl);
	kill(holder, SIGKILL);
	waitpid(holder, &status, 0);
	if (got || shared0 != (long)(JIT_SIZE / page / 4) ||
	    (long)(JIT_SIZE / page) - excl != shared0) {
		printf("# shared read-only code must not be collapsed (copied)\n");
		return 1;
	}
	/* the child is gone: the same range is collapsed now */
	khugepaged_wait(1000, 30000, all_huge, opt);
	got = anon_huge();
	printf("# after the child exited: AnonHugePages %ld KB; %lu wrong results\n",
	       got >> 10, call_all(jit_code));
	return got < (long)JIT_SIZE || call_all(jit_code);
}

/* the JIT; exit 0 when its expectation held, 1 when not, 2+ on errors */
static int jit_child(const struct jcase *c)
{
	int prot = PROT_READ | PROT_WRITE, opt = c->opt;
	unsigned long bad, pmd = pmd_size();
	long at_fault, got, ev0, ev1;
	uint8_t *raw;

	if (opt == OPT_PRCTL && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return 2;
	if (opt == OPT_RIE && personality(READ_IMPLIES_EXEC) == -1)
		return 2;
	if (opt == OPT_RWX || opt == OPT_STACK)
		prot |= PROT_EXEC;
	raw = mmap(NULL, JIT_SIZE + pmd, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		   (opt == OPT_STACK ? MAP_GROWSDOWN : 0), -1, 0);
	if (raw == MAP_FAILED)
		return 3;
	jit_code = (uint8_t *)(((unsigned long)raw + pmd - 1) & ~(pmd - 1));
	if (opt == OPT_MADV && madvise(jit_code, JIT_SIZE, MADV_NOHUGEPAGE))
		return 4;
	ev0 = vmstat_read("hugetext_anon_exec");
	emit(jit_code);
	at_fault = anon_huge();
	if ((opt == OPT_RIE || opt == OPT_STACK) && !maps_exec(jit_code)) {
		printf("# the mapping is not executable: the case tests nothing\n");
		return 2;
	}
	if (opt == OPT_SHARED)
		return shared_case(&opt);
	if (opt != OPT_RWX && opt != OPT_NOEXEC && opt != OPT_RIE &&
	    opt != OPT_STACK && mprotect(jit_code, JIT_SIZE, PROT_READ | PROT_EXEC))
		return 5;
	bad = opt == OPT_NOEXEC ? 0 : call_all(jit_code);
	if (bad) {
		printf("# %lu of %lu functions returned a wrong value\n", bad, NR_FNS);
		return 1;
	}
	if (c->huge)
		khugepaged_wait(1000, opt == OPT_PROMPT ? 3000 : 30000, all_huge, &opt);
	else if (khugepaged_running()) {
		/*
		 * Under hugetext=1 and THP=never khugepaged runs (for file
		 * text) but no anonymous mm can be registered with it, so its
		 * passes cannot count: the 5 s are all there is there.
		 */
		bool counts = strchr("23", c->hugetext[0]) || strcmp(c->thp, "never");
		long ms;
		int passes = khugepaged_passes(3, 5000, &ms);

		printf("# khugepaged passed over every mm it scans %d times in %ld ms%s\n",
		       passes, ms, counts ? "" : " (none can be registered)");
		if (counts && passes < 3) {
			printf("# the wait ended at its timeout: proves nothing\n");
			return 1;
		}
	} else {
		sleep(1);
	}
	got = anon_huge();
	ev1 = vmstat_read("hugetext_anon_exec");
	bad = opt == OPT_NOEXEC ? 0 : call_all(jit_code);
	printf("# AnonHugePages %ld KB of %lu KB (%ld KB right after writing the code); hugetext_anon_exec +%ld; %lu wrong results\n",
	       got >> 10, JIT_SIZE >> 10, at_fault >> 10, ev1 - ev0, bad);
	if (bad)
		return 1;
	if (opt == OPT_RWX && at_fault < (long)JIT_SIZE) {
		printf("# a read-write-execute mapping should be huge at its first fault\n");
		return 1;
	}
	/*
	 * The counter counts what became huge while executable with bit 1
	 * set: under THP=always the code was huge before it was executable.
	 */
	if (strchr("23", c->hugetext[0]) && c->huge && strcmp(c->thp, "always") &&
	    ev1 - ev0 < 2) {
		printf("# hugetext_anon_exec should count both regions\n");
		return 1;
	}
	if (!strchr("23", c->hugetext[0]) && ev1 != ev0) {
		printf("# hugetext_anon_exec counted without bit 1\n");
		return 1;
	}
	return c->huge ? got < (long)JIT_SIZE : got != 0;
}

static int run_case(const struct jcase *c)
{
	pid_t pid;
	int status;

	if (knob_write(KNOB_ENABLED, c->hugetext) || knob_write("enabled", c->thp)) {
		ksft_print_msg("cannot set hugetext_enabled=%s enabled=%s\n", c->hugetext, c->thp);
		return -1;
	}
	if (knob_exists("hugepages-2048kB/enabled"))
		knob_write("hugepages-2048kB/enabled", "inherit");
	if (c->opt == OPT_PROMPT)
		khugepaged_defaults();
	else
		khugepaged_fast();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc = jit_child(c);

		fflush(stdout);
		_exit(rc);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	size_t i;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	if (vmstat_read("hugetext_anon_exec") < 0)
		ksft_exit_skip("kernel without hugetext for anonymous executable memory\n");
	knobs_save();
	ksft_set_plan(sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_case(&cases[i]);

		ksft_test_result(rc == 0, "%s (exit %d)\n", cases[i].why, rc);
	}
	knobs_restore();
	ksft_finished();
}
