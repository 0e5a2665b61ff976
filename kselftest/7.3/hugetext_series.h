/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hugetext selftests' shared programs need of this series and
 * this tree: its harness and THP settings, and the names the series
 * gives hugetext's knobs and prctl.
 */
#ifndef __HUGETEXT_SERIES_H
#define __HUGETEXT_SERIES_H

#include <sys/prctl.h>

#include "kselftest_harness.h"
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

/* prctl(HUGETEXT_PR_SET, HUGETEXT_PR_OFF): hugetext off for the process */
#define HUGETEXT_PR_SET		PR_SET_THP_EXEC
#define HUGETEXT_PR_OFF		PR_THP_EXEC_SET

#define CAP_KNOB "/sys/kernel/mm/transparent_hugepage/khugepaged/max_exec_regions"

#endif /* __HUGETEXT_SERIES_H */
