/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the hugetext selftests: knob I/O with save/restore
 * (modelled on tools/testing/selftests/mm/thp_settings.c), smaps lookups
 * (modelled on vm_util.c) and bounded khugepaged waits.
 */
#ifndef HUGETEXT_UTIL_H
#define HUGETEXT_UTIL_H

#include <dirent.h>
#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage/"

/*
 * The knobs' files (KNOB_ENABLED, KNOB_PAD_THRESHOLD, KNOB_MAX_NR_HUGETEXT
 * ...), generated from the knob table (tools/lib/hugetext/knobs.list)
 */
#include "hugetext_knobs.h"

/* the series' prctl (82 and 83 in both), for uapi headers without it */
#ifndef PR_SET_HUGETEXT
#define PR_SET_HUGETEXT		82
#define PR_GET_HUGETEXT		83
#define PR_HUGETEXT_SYSTEM	0
#define PR_HUGETEXT_TEXT	(1UL << 0)
#define PR_HUGETEXT_JIT		(1UL << 1)
#define PR_HUGETEXT_SET		(1UL << 2)
#endif

/*
 * Machine code the tests write and run (JIT-like memory), per arch.
 * ht_emit_ret_imm(p, v) writes at p a function of no arguments that
 * returns v -- x86-64: mov $v, %eax; ret (6 bytes); arm64: movz w0, #lo;
 * movk w0, #hi, lsl #16; ret (12 bytes) -- and returns its size (at most
 * HT_RET_IMM_MAX).  HT_TRAP_BYTE fills the rest: int3 on x86-64, udf #0
 * (0x00000000) on arm64.  ht_code_written(p, len): after writing code,
 * before running it -- arm64 cleans the data cache and invalidates the
 * instruction cache to the point of unification (the compiler's
 * __builtin___clear_cache), x86-64 keeps its caches coherent.
 */
#define HT_RET_IMM_MAX 12
#if defined(__x86_64__)
#define HT_TRAP_BYTE 0xcc
#elif defined(__aarch64__)
#define HT_TRAP_BYTE 0x00
#else
#error "hugetext selftests: no machine code for this arch (x86-64, arm64)"
#endif
size_t ht_emit_ret_imm(unsigned char *p, unsigned int v);
/* the value the code at p (as ht_emit_ret_imm() wrote it) returns, read as data */
unsigned int ht_ret_imm_of(const unsigned char *p);
void ht_code_written(void *p, size_t len);
#define KHP_DIR THP_DIR "khugepaged/"

/* Knobs are named relative to THP_DIR, e.g. "hugetext_enabled". */
int knob_read(const char *name, char *buf, size_t len);
/* Returns 0, or -errno of the write(). */
int knob_write(const char *name, const char *val);
long knob_read_long(const char *name);
/* The selected word of a "[a] b c" file, e.g. "madvise". */
int knob_read_mode(const char *name, char *buf, size_t len);
bool knob_exists(const char *name);
/*
 * The file(s) knob @name (the table's, the 6.12 series' name) is in the
 * running kernel: @name, or the 7.3 series' (knobs.list's knob73), which
 * knob_read() and knob_write() use where the kernel has that instead
 */
const char *knob_kernel_file(const char *name);
/*
 * A test's first step: the TAP header, then a SKIP naming @what and the
 * knob if the kernel has no knob @name (the feature is truly absent).
 */
void ksft_begin_needing(const char *name, const char *what);
/* SKIP unless the root file system has the program @prog and its input @input */
void ksft_need_program(const char *prog, const char *input);
/* knob_write(), or the test fails with "cannot set NAME=VALUE" */
void knob_write_or_fail(const char *name, const char *value);
/*
 * /proc/PID/@file for the /proc directory entry @e, opened for reading;
 * NULL if @e is not a process or the process has gone.
 */
FILE *proc_entry_open(const struct dirent *e, const char *file);
/* @val as a test label: newlines and tabs as '~', long strings as "<N bytes>" */
void knob_label(const char *val, char *buf, size_t len);

/*
 * The knob table (tools/lib/hugetext/knobs.list) for knob @name (relative to THP_DIR).
 * knob_check_range(): its min, max and default, each written with and
 * without a "\n", read back; knob_check_bad(): each of its bad values,
 * written over its min and over its max, fails with EINVAL (a zero-length
 * write: changes nothing) and leaves the value.  Each prints a "#" line per
 * failure, restores the knob, sets *@n to the values tried and returns the
 * failures.  knob_test_table(name) makes them KNOB_TABLE_RESULTS test
 * results (the caller includes kselftest.h).
 */
int knob_check_range(const char *name, int *n);
/* the table's min and max of knob @name on this machine (its PMD size), -1 if none */
long knob_min(const char *name);
long knob_max(const char *name);
int knob_check_bad(const char *name, int *n);
/* the file of the table's knob @i (0, 1, ...), NULL past its last */
const char *knob_table_file(int i);
#define KNOB_TABLE_RESULTS 2
#define knob_test_table(name) do {						\
	int n_, f_ = knob_check_range(name, &n_);				\
										\
	ksft_test_result(!f_, "%s: min, max, default round-trip (%d writes)\n", \
			 name, n_);						\
	f_ = knob_check_bad(name, &n_);						\
	ksft_test_result(!f_,						\
			 "%s: %d bad writes fail with EINVAL (a zero-length one changes nothing), value kept\n", \
			 name, n_);						\
} while (0)

/* Save every knob the tests touch; restored atexit and on SIGINT/SIGTERM. */
void knobs_save(void);
void knobs_restore(void);

/* Set the khugepaged pace for tests (restored by knobs_restore()). */
void khugepaged_fast(void);

unsigned long pmd_size(void);

/* CLOCK_MONOTONIC in seconds */
double mono_now(void);

/*
 * Sum an smaps field (in kB, returned in bytes) over the mappings of @pid
 * (0 = self) that overlap [start, end).
 */
long smaps_field(int pid, unsigned long start, unsigned long end,
		 const char *field);

/* Find the first mapping of @pid whose path ends in @suffix and whose perms
 * contain 'x'.  Fills start/end/offset.  Returns 0 or -1. */
int find_exec_mapping(int pid, const char *suffix, unsigned long *start,
		      unsigned long *end, unsigned long *offset, char *path,
		      size_t pathlen);

/* /proc/vmstat counter, -1 if absent */
long vmstat_read(const char *name);

/* the directory of this program, for its helpers */
const char *self_dir(void);

/* Bytes of [start, end) covered by full PMD-aligned regions that line up
 * with PMD-aligned file offsets (0 if the mapping is not congruent). */
unsigned long ideal_huge_bytes(unsigned long start, unsigned long end,
			       unsigned long offset);

/* the program headers of the 64-bit ELF file @path, at most @max of them,
 * into @ph: their number, or -1 (not such a file, or more than @max) */
int elf_phdrs(const char *path, Elf64_Phdr *ph, int max);

/* khugepaged/full_scans; wait until it advanced by @n or @timeout_ms passed.
 * @poll is called every 50 ms (may be NULL); if it returns true the wait
 * ends early.  Returns true if it ended by @poll. */
bool khugepaged_wait(int n, int timeout_ms, bool (*poll)(void *), void *arg);

bool khugepaged_running(void);

/* For a case that expects nothing to be collapsed: wait until khugepaged
 * has passed over every mm it scans @n times (khugepaged/full_scans), so
 * that an mm registered with it by mistake has been scanned @n times, or
 * @timeout_ms passed.  A child keeps an mm registered meanwhile: passes
 * only count while one is.  Returns the passes seen; *@ms the time taken. */
int khugepaged_passes(int n, int timeout_ms, long *ms);

/* Map @path PROT_READ|PROT_EXEC, MAP_PRIVATE, at a PMD-aligned address. */
void *map_text_aligned(const char *path, size_t *len);
/* The same for @len bytes of @path from @offset. */
void *map_range_aligned(const char *path, off_t offset, size_t len);

int copy_file(const char *from, const char *to);

/* Create @path (mode 0755) holding @len bytes of @buf, fsync'ed.  0 or -1. */
int write_file(const char *path, const void *buf, size_t len);
/* write @val to the sysctl (or other pseudo file) @path: 0, or -1 when it
 * cannot be opened or the write is refused (EINVAL for a bad value) */
int sysctl_write(const char *path, const char *val);

/* Compare the mapping [p, p + len) with @path from offset 0, a 2 MB region
 * at a time.  Returns how many regions differ, -1 if @path cannot be read. */
long mapping_diff_file(const void *p, size_t len, const char *path);

struct rusage;
/* fork + exec argv[0] with stdout captured into @out; wait4() fills @ru.
 * PR_SET_THP_DISABLE in the child first if asked.  Returns the exit code. */
int run_helper(char *const argv[], char *out, size_t outlen, struct rusage *ru,
	       bool thp_disable);
/* the same with @setup(@arg) run in the child before the exec (exit code
 * 126 when it returns non-zero) */
int run_helper_setup(char *const argv[], char *out, size_t outlen, struct rusage *ru,
		     int (*setup)(void *arg), void *arg);
/* print captured output as "#   " diagnostic lines */
void print_indented(const char *out);
/* the number after @key in captured helper output, -1 if absent */
long parse_after(const char *out, const char *key);
void drop_caches(void);
/* the line KEY of /proc/meminfo, in kB; -1 if absent */
long meminfo_kb(const char *key);
/*
 * MADV_COLLAPSE of [@addr, @addr + @len) in this process (@pidfd < 0) or in
 * @pidfd's (process_madvise), called again 20 ms later while it fails with
 * EAGAIN (a transient race: a folio locked, an LRU batch, khugepaged at
 * work, reclaim of the new folio), at most @tries calls.  Returns 0 or the
 * last errno; *@used (if not NULL): the calls made.
 */
int collapse_retry(int pidfd, void *addr, size_t len, int tries, int *used);
/* khugepaged's default pace: 10 s sleeps, 4096 pages a pass */
void khugepaged_defaults(void);

#endif
