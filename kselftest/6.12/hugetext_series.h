/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hugetext selftests need of this series and this tree: its THP
 * settings and vm_util, what this tree's selftest library lacks or has in
 * an older form, the names the series gives hugetext's knobs, prctl and
 * counters, and the series-neutral names the shared programs use for
 * them (PR_SET_HT, HT_KNOB, ...; hugetext_series.c).
 */
#ifndef __HUGETEXT_SERIES_H
#define __HUGETEXT_SERIES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/prctl.h>

#include "thp_settings.h"
#include "vm_util.h"

/*
 * The checks of PMD mappings find the VMA by its start and take no
 * length (the tests' calls all pass a VMA's start).
 */
static inline bool huge_file(void *addr, int nr, uint64_t size)
{
	return check_huge_file(addr, nr, size);
}

static inline bool huge_anon(void *addr, int nr, uint64_t size)
{
	return check_huge_anon(addr, nr, size);
}

#define check_huge_file(addr, len, nr, size)	huge_file(addr, ((void)(len), nr), size)
#define check_huge_anon(addr, len, nr, size)	huge_anon(addr, ((void)(len), nr), size)
#ifndef FORCE_READ
#define FORCE_READ(x)	do { typeof(x) __v = (x); asm volatile("" : "+r" (__v)); } while (0)
#endif

static inline int sz2ord(size_t size, size_t pagesize)
{
	return __builtin_ctzll(size / pagesize);
}

#ifndef PR_SET_HUGETEXT
#define PR_SET_HUGETEXT		82
#define PR_GET_HUGETEXT		83
#define PR_HUGETEXT_SYSTEM	0
#define PR_HUGETEXT_TEXT	0x1UL
#define PR_HUGETEXT_JIT		0x2UL
#define PR_HUGETEXT_SET		0x4UL
#endif

#define KNOB "/sys/kernel/mm/transparent_hugepage/hugetext_enabled"
#define PAD_KNOB "/sys/kernel/mm/transparent_hugepage/hugetext_pad_threshold"
#define RODATA_KNOB "/sys/kernel/mm/transparent_hugepage/hugetext_pad_rodata"
#define CAP_KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/max_nr_hugetext"
#define SAMPLE_KNOB \
	"/sys/kernel/mm/transparent_hugepage/khugepaged/hugetext_sample_millisecs"

/* the series' prctl: the process's own kinds of huge code */
#define PR_SET_HT		PR_SET_HUGETEXT
#define PR_GET_HT		PR_GET_HUGETEXT
#define PR_SET_HT_NAME		"PR_SET_HUGETEXT"
#define PR_HT_SYSTEM		PR_HUGETEXT_SYSTEM
#define PR_HT_FILE		PR_HUGETEXT_TEXT
#define PR_HT_ANON		PR_HUGETEXT_JIT
#define PR_HT_SET		PR_HUGETEXT_SET
/* a knob there is when the kernel has hugetext (CONFIG_HUGETEXT) */
#define HT_KNOB			KNOB
/*
 * /proc/vmstat: text read huge at its first fault, and falling back (a
 * kernel that collapses new text at mmap() has neither)
 */
#define HT_FAULT_ALLOC		"hugetext_fault_read"
#define HT_FAULT_FALLBACK	"hugetext_fault_fallback"
/* JIT code collapsed at its mprotect() or fault */
#define HT_ANON_ALLOC		"hugetext_anon_exec"
/* the cap's counters: HT_CAP_VMSTAT("collapsed"), ... */
#define HT_CAP_VMSTAT(what)	"hugetext_cap_" what
/* a program's text padded at its tail's end, at its head's */
#define HT_PAD_TAIL		"hugetext_pad"
#define HT_PAD_HEAD		"hugetext_pad_head"
/* text mappings skipped for MADV_NOHUGEPAGE or PR_SET_THP_DISABLE */
#define HT_SKIP_OPTED_OUT	"hugetext_skip_opted_out"
/*
 * Does the series collapse a program's new text on the way out of its
 * exec (at mmap()), before its first instruction?  Here it does: the pad
 * fixture's at_exec variants look at the program stopped by its exec.
 * The regions collapsed then, and mapped from huge page cache:
 */
#define HT_COLLAPSES_AT_EXEC	1
#define HT_EXEC_COLLAPSED	"hugetext_collapse_ok"
#define HT_EXEC_MAPPED		"hugetext_map_ok"
/*
 * Does the pad fixture's setup wait until khugepaged sleeps
 * (khugepaged_settle()) before its program starts?  Not here: with that
 * wait the prompt collapse of the program's padded head region was seen
 * to give up, and no khugepaged pass then ran to take the region (the
 * hugetext repository's Documentation/testing.md, "Known open issues").
 */
#define HT_PAD_SETTLES_KHUGEPAGED	false
/* a region collapsed by the process (its prompt collapse) */
#define HT_COLLAPSE_ALLOC	"hugetext_collapse_ok"
/* a PIE's text placed congruent by the ELF loader */
#define HT_ALIGN_PIE		"hugetext_align_exec"
/* other mappings hugetext placed itself (a library's, ld.so's reservation) */
#define HT_ALIGN_MMAP		"hugetext_align_mmap"
/* text mappings skipped: not congruent, open for write */
#define HT_SKIP_NOT_CONGRUENT	"hugetext_skip_not_congruent"
#define HT_SKIP_WRITE_OPEN	"hugetext_skip_write_open"
/* the process's setting in /proc/PID/status */
#define HT_STATUS_FIELD		"Hugetext_prctl"
/*
 * Are the knobs the ceiling of what a process without CAP_SYS_RESOURCE
 * may set with the prctl?  Not in this series: the prctl is the
 * process's own (the secure exec forgets it).
 */
#define HT_PRCTL_CEILING	0
/* Does the series place ld.so's reservation for a library itself?  Yes. */
#define HT_PLACES_LIB_RESERVATION	1
/*
 * Does overlayfs place a file's mappings as the real file's filesystem
 * would?  No: it has no get_unmapped_area() of its own, and hugetext
 * places the libraries on it itself.
 */
#define HT_OVL_AS_REAL		0
/* the boot parameter, and the kernel's line for a bad value */
#define HT_BOOT_PARAM		"hugetext"
#define HT_BOOT_INVALID		"hugetext: invalid hugetext="
/* the largest PMD hugetext runs with (mm/hugetext.c); 0 would be none */
#define HT_PMD_MAX		(32UL << 20)
#define HT_MODE_LONG		'1'
#define HT_RACE_BAD_MODE	"4"
/*
 * Does khugepaged collapse code a forked child still shares (no PTE of
 * the range writable) under THP "always", without hugetext bit 1?  Not
 * here: it leaves such a range alone.
 */
#define HT_THP_COLLAPSES_SHARED_CODE	false

/* hugetext_enabled, whose bits are PR_HT_FILE and PR_HT_ANON */
unsigned long mode_read(void);
/* hugetext_enabled from @mode, mode_read()'s bits: 0 or -errno */
int mode_write(unsigned long mode);
/* @mode in @settings too, written with the other THP knobs */
void settings_set_mode(struct thp_settings *settings, unsigned long mode);
/*
 * The settings' tests (hugetext_settings.c): the mode's knobs, the values
 * that round-trip on them, those bad writes are made over and the bad
 * values (NULL-terminated; and 8191 bytes of HT_MODE_LONG), the good
 * values two writers race with on HT_KNOB (HT_RACE_BAD_MODE the first bad
 * one)
 */
extern const char * const mode_knobs[], * const mode_values[];
extern const char * const mode_ends[], * const mode_bad[], * const mode_race[];
/* the mode a boot parameter's value sets, -1 for one the kernel refuses */
long boot_mode(const char *val);
/* the mode's knob @path holds @val as written (a trailing newline aside) */
bool mode_knob_holds(const char *path, const char *val);

#endif /* __HUGETEXT_SERIES_H */
