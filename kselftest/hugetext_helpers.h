/* SPDX-License-Identifier: GPL-2.0 */
/* What the hugetext selftests share: hugetext_helpers.c, and a macro for their cases */
#ifndef __HUGETEXT_HELPERS_H
#define __HUGETEXT_HELPERS_H

#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "hugetext_series.h"

/* the full 2M regions of code most cases map */
#define NR_REGIONS 2
#define FULL_SCANS "/sys/kernel/mm/transparent_hugepage/khugepaged/full_scans"

/*
 * In a test or a fixture's setup: the settings the tests write are root's,
 * so an unprivileged run skips the case (the harness's SKIP(@statement))
 */
#define SKIP_UNLESS_ROOT(statement)						\
	do {									\
		if (geteuid())							\
			SKIP(statement, "not root: the settings are root's\n");	\
	} while (0)

/* a function of the code the tests write: returns its page number */
typedef unsigned int (*fn_t)(void);

size_t emit_fn(unsigned char *p, unsigned int n);
long proc_field(const char *path, const char *name, char sep);
long read_vmstat(const char *name);
int path_write(const char *path, const char *val);
int path_write_num(const char *path, unsigned long v);
bool huge_cache_fs(void);
int write_functions(const char *path, size_t len);
int self_exe(char *buf, size_t size);
int file_copy(const char *from, const char *to);
pid_t khugepaged_pid(void);
long cached_pages(int fd, size_t len);
long meminfo_kb(const char *name);
int remove_entry(const char *path, const struct stat *st, int type,
		 struct FTW *ftw);
int lib_beside_self(const char *name, char *buf, size_t size);
const char *cmdline_value(const char *name);
int klog_count(const char *what);
bool khugepaged_thread(void);
bool khugepaged_running(bool want);
long run_range(char *text, size_t start, size_t len);
int collapse_retry(char *p, size_t len);
double storm_now(void);
char *jit_map(char *code, size_t len, int prot, int flags);
void jit_emit(char *code, size_t len);
int run_on_one_cpu(void);
int khugepaged_awake(struct thp_settings *settings, size_t pmdsize,
		     int passes, int secs);
long jit_run(char *code, size_t len);
long pad_smaps(pid_t pid, const char *path, unsigned long *start,
	       unsigned long *end);
char *khugepaged_register(size_t pmdsize);
void khugepaged_settle(void);

/*
 * The padded program (the pad and rollback fixtures'): what follows the
 * text in its tail's region: bytes no segment maps (a linker's padding),
 * a read-only segment of the file bytes that follow at the same offset
 * from their addresses (.rodata: padded over only with RODATA_KNOB at 1),
 * the writable data page, a read-only segment of other file bytes 64K
 * past the text (another offset from its addresses), or the end of the
 * file (the data page then bss, past the region): the last three are
 * never padded over
 */
enum pad_layout { PAD_GAP, PAD_SEG, PAD_RW, PAD_NEAR, PAD_EOF };
/*
 * the program's own setting, made by the forked child before its exec:
 * none, PR_HT_SET | PR_HT_FILE, PR_HT_SET (off), or PR_HT_SET and then
 * PR_HT_SYSTEM (back to the knob), or PR_SET_THP_DISABLE
 */
enum pad_pr { PAD_PR_KNOB, PAD_PR_TEXT, PAD_PR_OFF, PAD_PR_BACK, PAD_PR_THP_DISABLE };

/* the knobs both fixtures change, saved; THP saved by thp_save_settings() */
struct pad_saved {
	unsigned long mode, thr, rodata;
};

size_t pad_data(enum pad_layout layout, size_t pmd, size_t tail);
int pad_write_elf(const char *path, size_t pmd, size_t base, size_t tail,
		  enum pad_layout layout);
int pad_same(pid_t pid, unsigned long addr, const char *path, size_t off, size_t len);
bool pad_wait_store(pid_t pid, unsigned long addr);
int pad_evict(const char *path);
pid_t pad_spawn(const char *path, enum pad_pr pr, bool stop);
int pad_start(pid_t *pid, const char *path, enum pad_pr pr, unsigned long addr);
const char *pad_unsupported(size_t *pmdsize);
void pad_save(struct pad_saved *saved, struct thp_settings *settings,
	      enum thp_enabled thp);
void pad_restore(const struct pad_saved *saved);
void pad_reap(pid_t *pid);

#endif /* __HUGETEXT_HELPERS_H */
