/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hugetext selftests' shared programs need of this series and
 * this tree: its harness and THP settings, what this tree's selftest
 * library lacks or has in an older form, and the names the series gives
 * hugetext's knobs and prctl.
 */
#ifndef __HUGETEXT_SERIES_H
#define __HUGETEXT_SERIES_H

#include <stdint.h>
#include <sys/prctl.h>

#include "../kselftest_harness.h"
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

/* prctl(HUGETEXT_PR_SET, HUGETEXT_PR_OFF): hugetext off for the process */
#define HUGETEXT_PR_SET		PR_SET_HUGETEXT
#define HUGETEXT_PR_OFF		PR_HUGETEXT_SET

#define CAP_KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/max_nr_hugetext"

#endif /* __HUGETEXT_SERIES_H */
