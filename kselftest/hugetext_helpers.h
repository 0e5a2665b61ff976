/* SPDX-License-Identifier: GPL-2.0 */
/* What the hugetext selftests share that needs no harness (hugetext_helpers.c) */
#ifndef __HUGETEXT_HELPERS_H
#define __HUGETEXT_HELPERS_H

#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct thp_settings;

/* the full 2M regions of code most cases map */
#define NR_REGIONS 2
#define FULL_SCANS "/sys/kernel/mm/transparent_hugepage/khugepaged/full_scans"

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
int khugepaged_awake(struct thp_settings *settings, size_t pmdsize,
		     int passes, int secs);
long jit_run(char *code, size_t len);
long pad_smaps(pid_t pid, const char *path, unsigned long *start,
	       unsigned long *end);

#endif /* __HUGETEXT_HELPERS_H */
