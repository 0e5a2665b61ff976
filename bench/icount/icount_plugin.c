// SPDX-License-Identifier: GPL-2.0
/*
 * icount-plugin.so: QEMU TCG plugin (API version 1, QEMU 7.2) that counts
 * the guest instructions a vCPU executes between a start and a stop marker
 * (icount_marker.h), split into kernel and user instructions by the
 * instruction's virtual address.  Many windows per run; a JSON file at exit.
 *
 *   qemu-system-x86_64 ... -plugin icount-plugin.so,out=FILE.json
 *   qemu-x86_64 -plugin icount-plugin.so,out=FILE.json prog   (all "user")
 *
 * Arguments (key=value):
 *   out=FILE          the JSON written at exit (a forked qemu-user child
 *                     writes FILE.PID)
 *   kernel_base=ADDR  instructions at vaddr >= ADDR are kernel ones
 *                     (default x86_64 0xffff800000000000, aarch64
 *                     0xffff000000000000, the 48-bit-VA kernel half)
 *   count=tb|insn     tb (default): one callback per executed TB adding the
 *                     TB's kernel and user instruction counts precomputed at
 *                     translation; insn: one callback per executed
 *                     instruction (slow; a cross-check, see below)
 *   quiet=on          no summary through qemu_plugin_outs
 *
 * Counting.  Every vCPU keeps a running kernel count and user count of the
 * instructions it executed.  A start marker opens a window on its vCPU; the
 * window holds the instructions executed on that vCPU after the start
 * marker and before the stop marker (the markers themselves are not in
 * it).  A stop marker closes the window if the same vCPU has one open with
 * the same tag.  Anything else is not a window and is only counted: a stop
 * with no open window on its vCPU (unpaired_stops), a start while one is
 * open (the open one is dropped: unpaired_starts), a stop whose tag is not
 * the open window's (the window is dropped: tag_mismatches), a window
 * still open at exit (open_at_exit).  Windows are numbered in the order
 * they close, over all vCPUs.
 *
 * count=tb.  In QEMU 7.2 a TB's exec callback runs before the TB's first
 * instruction (after the TB's exit-request check, so a TB that an
 * interrupt keeps from starting is not counted), and a marker's
 * instruction callback before the marker.  So the TB callback has already
 * added the whole TB when a marker in it runs: the start marker's window
 * begins at the running count less the TB's instructions after the marker,
 * the stop marker's ends at the running count less the marker and the
 * instructions after it.  Both counts are precomputed at translation and
 * passed in the callbacks' userdata (no allocation per TB).  Inexact: a TB
 * left in its middle (a synchronous exception: a page fault, a uaccess
 * fault taken in the kernel, EXCP_ATOMIC under MTTCG) is counted whole,
 * and its instructions from the faulting one to its end are counted again
 * when they run after the exception.  count=insn counts each attempt of
 * an instruction instead (a faulting instruction once per attempt); the
 * difference between the two on one workload is what early exits add.
 *
 * Kernel or user, by address.  Each instruction is classified at
 * translation, so a TB that mixed the two would be split correctly; on
 * x86-64 none does: a TB is consecutive instructions at consecutive
 * addresses, and user addresses end at 0x00007fffffffffff while kernel
 * ones start at 0xffff800000000000 (the addresses between are not
 * canonical, fetching there faults), and every change of privilege
 * (syscall, sysret, iret, an interrupt or exception) ends the TB.  The
 * same holds for arm64's TTBR0 and TTBR1 halves.
 *
 * What is counted is everything the vCPU executes in the window: the
 * guest program, the kernel on its behalf, interrupts, softirqs, other
 * tasks and the idle loop that run on that vCPU meanwhile.  A halted vCPU
 * executes nothing.  These are TCG instruction counts, not time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icount_marker.h"
#include "../plugin_out.h"
#include "../qemu_plugin_api.h"

QP_EXPORT int qemu_plugin_version = 1;

#define MAX_VCPUS 256
#define ARCH_X86_64 1
#define ARCH_AARCH64 2

static int arch;
static const char *target_name = "?";
static int system_mode;
static uint64_t kernel_base;
static int count_insn;
static int quiet;
static const char *out_path;
static pid_t install_pid;
static int n_args;
static char **args;

struct vcpu {
	uint64_t k, u;		/* running counts: kernel, user */
	uint64_t sk, su;	/* the open window's start */
	int open;
	int tag;
} __attribute__((aligned(64)));

static struct vcpu vcpus[MAX_VCPUS];

struct window {
	unsigned vcpu;
	int tag;
	uint64_t k, u;
};

static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static struct window *wins;
static size_t n_wins, cap_wins;
static uint64_t unpaired_starts, unpaired_stops, tag_mismatches;
static uint64_t vcpu_overflow, alloc_failed;	/* lost counts */
static uint64_t markers_translated;

/*
 * Userdata, packed into the pointer (no allocation per translation).
 * TB callback: kernel count << 32 | user count.  Marker callback:
 *   bits  0-15  count=tb: kernel instructions of the TB after the marker
 *   bits 16-31  count=tb: user instructions of the TB after the marker
 *   bits 32-39  tag
 *   bit  40     stop marker
 *   bit  41     the marker itself is at a kernel address
 * A TB holds at most 512 instructions (TCG_MAX_INSNS) in QEMU 7.2.
 */
#define UD_STOP (1ULL << 40)
#define UD_SELF_K (1ULL << 41)

static void on_tb(unsigned int vi, void *ud)
{
	uint64_t v = (uintptr_t)ud;
	struct vcpu *c;

	if (vi >= MAX_VCPUS) {
		__atomic_store_n(&vcpu_overflow, 1, __ATOMIC_RELAXED);
		return;
	}
	c = &vcpus[vi];
	c->k += v >> 32;
	c->u += v & 0xffffffffu;
}

/* count=insn: one instruction, a kernel one when @ud is not NULL */
static void on_insn(unsigned int vi, void *ud)
{
	if (vi >= MAX_VCPUS)
		__atomic_store_n(&vcpu_overflow, 1, __ATOMIC_RELAXED);
	else if (ud)
		vcpus[vi].k++;
	else
		vcpus[vi].u++;
}

static void add_window(unsigned vi, int tag, uint64_t k, uint64_t u)
{
	pthread_mutex_lock(&win_lock);
	if (n_wins == cap_wins) {
		size_t cap = cap_wins ? 2 * cap_wins : 1024;
		struct window *n = realloc(wins, cap * sizeof(*n));

		if (!n) {
			alloc_failed++;
			pthread_mutex_unlock(&win_lock);
			return;
		}
		wins = n;
		cap_wins = cap;
	}
	wins[n_wins++] = (struct window){ vi, tag, k, u };
	pthread_mutex_unlock(&win_lock);
}

static void count_atomic(uint64_t *p)
{
	__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
}

static void on_marker(unsigned int vi, void *ud)
{
	uint64_t v = (uintptr_t)ud;
	uint64_t after_k = v & 0xffff, after_u = (v >> 16) & 0xffff;
	int tag = (int)((v >> 32) & 0xff);
	int self_k = !!(v & UD_SELF_K);
	struct vcpu *c;
	uint64_t k, u;

	if (vi >= MAX_VCPUS) {
		__atomic_store_n(&vcpu_overflow, 1, __ATOMIC_RELAXED);
		return;
	}
	c = &vcpus[vi];
	if (!(v & UD_STOP)) {
		if (count_insn) {
			/* this instruction has no counting callback of its own */
			c->k += self_k;
			c->u += !self_k;
		}
		if (c->open)
			count_atomic(&unpaired_starts);
		c->open = 1;
		c->tag = tag;
		c->sk = c->k - after_k;
		c->su = c->u - after_u;
		return;
	}
	/* the window ends before the stop marker */
	k = c->k - after_k;
	u = c->u - after_u;
	if (!count_insn) {
		k -= self_k;
		u -= !self_k;
	} else {
		c->k += self_k;
		c->u += !self_k;
	}
	if (!c->open) {
		count_atomic(&unpaired_stops);
		return;
	}
	c->open = 0;
	if (c->tag != tag) {
		count_atomic(&tag_mismatches);
		return;
	}
	add_window(vi, tag, k - c->sk, u - c->su);
}

/* 0: not a marker; else 1 + (stop << 8 | tag) */
static int marker_of(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t sz = qemu_plugin_insn_size(insn);

	if (!b)
		return 0;
	if (arch == ARCH_X86_64 && sz == 7 && b[0] == 0x0f && b[1] == 0x1f &&
	    b[2] == 0x80 && b[5] == 0x54 && b[6] == 0x48 &&
	    (b[4] == 0x53 || b[4] == 0x45))
		return 1 + ((b[4] == 0x45) << 8 | b[3]);
	if (arch == ARCH_AARCH64 && sz == 4) {
		uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;

		for (int stop = 0; stop < 2; stop++) {
			uint32_t tag = ((w >> 16) & 31) | ((w >> 10) & 7) << 5;

			if (w == ICOUNT_A64_WORD(stop, tag))
				return 1 + (stop << 8 | (int)tag);
		}
	}
	return 0;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t nk = 0, nu = 0;
	/* kernel[i]: instruction i is at a kernel address */
	unsigned char kern[1024];

	(void)id;
	if (!n)
		return;
	if (n > sizeof(kern)) {
		/* QEMU 7.2 translates at most 512; refuse to guess */
		__atomic_store_n(&alloc_failed, 1, __ATOMIC_RELAXED);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		kern[i] = qemu_plugin_insn_vaddr(insn) >= kernel_base;
		nk += kern[i];
		nu += !kern[i];
	}
	if (!count_insn)
		qemu_plugin_register_vcpu_tb_exec_cb(
			tb, on_tb, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)(nk << 32 | nu));
	/* after_k/after_u: instructions after i, counted down */
	uint64_t after_k = nk, after_u = nu;

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int m = marker_of(insn);

		after_k -= kern[i];
		after_u -= !kern[i];
		if (m) {
			uint64_t ud = (uint64_t)(m - 1) << 32 |
				      (kern[i] ? UD_SELF_K : 0);

			if (!count_insn)
				ud |= after_u << 16 | after_k;
			__atomic_fetch_add(&markers_translated, 1,
					   __ATOMIC_RELAXED);
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)ud);
		} else if (count_insn) {
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
				kern[i] ? (void *)1 : NULL);
		}
	}
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

static void write_json(FILE *f)
{
	unsigned open_at_exit = 0;

	for (unsigned v = 0; v < MAX_VCPUS; v++)
		open_at_exit += vcpus[v].open;
	fprintf(f, "{\n  \"kind\": \"icount\",\n"
		"  \"note\": \"guest instruction counts under QEMU TCG "
		"(executed instructions as TCG translated them), not time\",\n"
		"  \"target\": ");
	json_str(f, target_name);
	fprintf(f, ",\n  \"system_emulation\": %s,\n  \"args\": [",
		system_mode ? "true" : "false");
	for (int i = 0; i < n_args; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, args[i]);
	}
	fprintf(f, "],\n  \"kernel_base\": \"0x%" PRIx64 "\",\n"
		"  \"count\": \"%s\",\n"
		"  \"markers_translated\": %" PRIu64 ",\n"
		"  \"unpaired_starts\": %" PRIu64 ",\n"
		"  \"unpaired_stops\": %" PRIu64 ",\n"
		"  \"tag_mismatches\": %" PRIu64 ",\n"
		"  \"open_at_exit\": %u,\n"
		"  \"vcpu_overflow\": %s,\n"
		"  \"lost\": %s,\n  \"vcpus\": [",
		kernel_base, count_insn ? "insn" : "tb", markers_translated,
		unpaired_starts, unpaired_stops, tag_mismatches, open_at_exit,
		vcpu_overflow ? "true" : "false",
		alloc_failed ? "true" : "false");
	for (unsigned v = 0, first = 1; v < MAX_VCPUS; v++) {
		if (!vcpus[v].k && !vcpus[v].u)
			continue;
		fprintf(f, "%s\n    {\"vcpu\": %u, \"kernel\": %" PRIu64
			", \"user\": %" PRIu64 "}", first ? "" : ",", v,
			vcpus[v].k, vcpus[v].u);
		first = 0;
	}
	fprintf(f, "\n  ],\n  \"windows\": [");
	for (size_t i = 0; i < n_wins; i++)
		fprintf(f, "%s\n    {\"index\": %zu, \"vcpu\": %u, \"tag\": %d, "
			"\"kernel\": %" PRIu64 ", \"user\": %" PRIu64 "}",
			i ? "," : "", i, wins[i].vcpu, wins[i].tag, wins[i].k,
			wins[i].u);
	fprintf(f, "\n  ]\n}\n");
}

static void at_exit(qemu_plugin_id_t id, void *ud)
{
	char buf[PATH_MAX + 160];

	(void)id; (void)ud;
	pthread_mutex_lock(&win_lock);
	if (!quiet) {
		snprintf(buf, sizeof(buf),
			 "icount: %zu windows (TCG instruction counts, not "
			 "time); unpaired starts %" PRIu64 ", stops %" PRIu64
			 ", tag mismatches %" PRIu64 "\n", n_wins,
			 unpaired_starts, unpaired_stops, tag_mismatches);
		qemu_plugin_outs(buf);
	}
	if (out_path) {
		char path[PATH_MAX];
		FILE *f;

		f = plugin_out_open(out_path, install_pid, path, sizeof(path));
		if (!f) {
			snprintf(buf, sizeof(buf), "icount: cannot write %s: %s\n",
				 path, strerror(errno));
			qemu_plugin_outs(buf);
			fprintf(stderr, "%s", buf);
		} else {
			write_json(f);
			if (fclose(f)) {
				snprintf(buf, sizeof(buf),
					 "icount: error writing %s\n", path);
				qemu_plugin_outs(buf);
				fprintf(stderr, "%s", buf);
			}
		}
	}
	pthread_mutex_unlock(&win_lock);
}

QP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
				  int argc, char **argv)
{
	install_pid = getpid();
	system_mode = info->system_emulation;
	if (info->target_name)
		target_name = info->target_name;
	if (!strcmp(target_name, "x86_64")) {
		arch = ARCH_X86_64;
		kernel_base = 0xffff800000000000ULL;
	} else if (!strcmp(target_name, "aarch64")) {
		arch = ARCH_AARCH64;
		kernel_base = 0xffff000000000000ULL;
	} else {
		fprintf(stderr, "icount: target %s has no markers (x86_64, "
			"aarch64)\n", target_name);
		return -1;
	}
	n_args = argc;
	args = argv;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strncmp(a, "out=", 4) && a[4]) {
			out_path = a + 4;
		} else if (!strncmp(a, "kernel_base=", 12)) {
			errno = 0;
			kernel_base = strtoull(a + 12, &end, 0);
			if (errno || end == a + 12 || *end) {
				fprintf(stderr, "icount: bad %s\n", a);
				return -1;
			}
		} else if (!strcmp(a, "count=tb")) {
			count_insn = 0;
		} else if (!strcmp(a, "count=insn")) {
			count_insn = 1;
		} else if (!strcmp(a, "quiet=on") || !strcmp(a, "quiet=true")) {
			quiet = 1;
		} else {
			fprintf(stderr, "icount: unknown argument %s (out=, "
				"kernel_base=, count=tb|insn, quiet=on)\n", a);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
