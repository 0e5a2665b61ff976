/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hugetext selftests need of this series and this tree: its THP
 * settings and vm_util, the names the series gives hugetext's knobs,
 * prctl and counters, and the series-neutral names the shared programs
 * use for them (PR_SET_HT, HT_KNOB, ...; hugetext_series.c).
 */
#ifndef __HUGETEXT_SERIES_H
#define __HUGETEXT_SERIES_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "hugepage_settings.h"
#include "vm_util.h"

#ifndef PR_SET_THP_EXEC
#define PR_SET_THP_EXEC		82
#define PR_GET_THP_EXEC		83
#define PR_THP_EXEC_SYSTEM	0
#define PR_THP_EXEC_FILE	0x1UL
#define PR_THP_EXEC_ANON	0x2UL
#define PR_THP_EXEC_SET		0x4UL
#endif

#define FILE_KNOB "/sys/kernel/mm/transparent_hugepage/exec_file_enabled"
#define ANON_KNOB "/sys/kernel/mm/transparent_hugepage/exec_anon_enabled"
#define PAD_KNOB "/sys/kernel/mm/transparent_hugepage/exec_pad_threshold"
#define RODATA_KNOB "/sys/kernel/mm/transparent_hugepage/exec_pad_rodata"
#define CAP_KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/max_exec_regions"
#define SAMPLE_KNOB \
	"/sys/kernel/mm/transparent_hugepage/khugepaged/exec_sample_millisecs"

/* the series' prctl: the process's own kinds of huge code */
#define PR_SET_HT		PR_SET_THP_EXEC
#define PR_GET_HT		PR_GET_THP_EXEC
#define PR_SET_HT_NAME		"PR_SET_THP_EXEC"
#define PR_HT_SYSTEM		PR_THP_EXEC_SYSTEM
#define PR_HT_FILE		PR_THP_EXEC_FILE
#define PR_HT_ANON		PR_THP_EXEC_ANON
#define PR_HT_SET		PR_THP_EXEC_SET
/* a knob there is when the kernel has hugetext (CONFIG_HUGETEXT) */
#define HT_KNOB			FILE_KNOB
/* /proc/vmstat: text read huge at its first fault, and falling back */
#define HT_FAULT_ALLOC		"thp_exec_fault_alloc"
#define HT_FAULT_FALLBACK	"thp_exec_fault_fallback"
/* JIT code read huge at its fault or collapsed */
#define HT_ANON_ALLOC		"thp_exec_anon_alloc"
/* the cap's counters: HT_CAP_VMSTAT("collapsed"), ... */
#define HT_CAP_VMSTAT(what)	"thp_exec_cap_" what
/* a program's text padded at its tail's end, at its head's */
#define HT_PAD_TAIL		"thp_exec_pad_tail"
#define HT_PAD_HEAD		"thp_exec_pad_head"
/*
 * Counters this series does not have (NULL: read_vmstat() returns -1, as
 * for a counter the kernel lacks): text mappings skipped for opting out
 */
#define HT_SKIP_OPTED_OUT	NULL
/*
 * Does the series collapse a program's new text on the way out of its
 * exec, before its first instruction?  No: it reads text huge at its
 * first fault (HT_FAULT_ALLOC).  The pad fixture has no at_exec variants
 * here, and no counters of regions collapsed or mapped at exec.
 */
#define HT_COLLAPSES_AT_EXEC	0
#define HT_EXEC_COLLAPSED	NULL
#define HT_EXEC_MAPPED		NULL
/*
 * Does the pad fixture's setup wait until khugepaged sleeps
 * (khugepaged_settle()) before its program starts?  Here it does: a
 * pass that the setup's writes woke could meet the program's first
 * fault and leave its region cached in small folios.
 */
#define HT_PAD_SETTLES_KHUGEPAGED	true
/* a region collapsed by the process on its return from a fault that fell back */
#define HT_COLLAPSE_ALLOC	"thp_exec_collapse_alloc"
/* a PIE's text placed congruent by the ELF loader */
#define HT_ALIGN_PIE		"thp_exec_align_pie"
/*
 * More counters this series does not have: other mappings hugetext placed
 * itself, text mappings skipped as not congruent or open for write (the
 * last two count only where text is collapsed at mmap())
 */
#define HT_ALIGN_MMAP		NULL
#define HT_SKIP_NOT_CONGRUENT	NULL
#define HT_SKIP_WRITE_OPEN	NULL
/* the process's setting in /proc/PID/status */
#define HT_STATUS_FIELD		"THP_exec"
/*
 * Are the knobs the ceiling of what a process without CAP_SYS_RESOURCE
 * may set with the prctl?  Yes (EPERM above them).
 */
#define HT_PRCTL_CEILING	1
/*
 * Does the series place ld.so's reservation for a library itself?  No:
 * ld.so aligns it (glibc.elf.thp), or the library is congruent by chance.
 */
#define HT_PLACES_LIB_RESERVATION	0
/*
 * Does overlayfs place a file's mappings as the real file's filesystem
 * would?  Yes (the series' overlayfs patch).
 */
#define HT_OVL_AS_REAL		1
/* the boot parameter, and the kernel's line for a bad value */
#define HT_BOOT_PARAM		"transparent_hugepage_exec"
#define HT_BOOT_INVALID		"hugetext: invalid transparent_hugepage_exec="
/* the largest PMD hugetext runs with (mm/hugetext.c): 32M */
#define HT_PMD_MAX		(32UL << 20)
#define HT_MODE_LONG		'a'
#define HT_RACE_BAD_MODE	"never"
/*
 * Does khugepaged collapse code a forked child still shares (no PTE of
 * the range writable) under THP "always", without hugetext bit 1?
 */
#define HT_THP_COLLAPSES_SHARED_CODE	true

/*
 * What a knob of "always" and "prctl" reads: 1 for "[always] prctl",
 * 0 for "always [prctl]", -1 for anything else
 */
int knob_always(const char *path);
/* the kinds of code the knobs have at "always", in PR_HT_FILE, PR_HT_ANON */
unsigned long mode_read(void);
/* the knobs from @mode, mode_read()'s bits: 0 or -errno */
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
