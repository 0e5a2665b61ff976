// SPDX-License-Identifier: GPL-2.0
/*
 * The model table: one row per CPU.  Every number carries its source.
 * Only structures that hold instruction translations are modelled; a
 * second-level TLB shared with data is modelled as if code were its only
 * user (an upper bound on what code gets of it: data translations also
 * compete for it on real hardware).
 *
 * Sources (looked up in public copies, Nov 2026):
 *  [IORM]  Intel 64 and IA-32 Architectures Optimization Reference Manual,
 *          248966-045 (Feb 2022), Table 2-15 "TLB parameters of the Skylake
 *          microarchitecture", as quoted by J. McCalpin on the Intel
 *          community forum thread "TLB information provided by cpuid
 *          doesn't make sense to me" (2022).
 *  [CPUID] the same thread: CPUID leaf 2 descriptors of a Skylake-SP
 *          (0x76 "instruction TLB: 2M/4M pages, fully, 8 entries",
 *          0xb5 "instruction TLB: 4K, 8-way, 64 entries" (per thread),
 *          0xc3 "L2 TLB: 4K/2M pages, 6-way, 1536 entries").
 *  [WC-SKL] WikiChip, "Skylake (client) - Microarchitectures - Intel",
 *          key changes from Broadwell: ITLB 4 KB changed from 4-way to
 *          8-way; STLB 4 KB+2 MB changed from 6-way to 12-way.
 *  [ARCH21] Intel Architecture Day 2021 Golden Cove disclosure, as reported
 *          by WikiChip Fuse "Intel Details Golden Cove" and notebookitalia.it
 *          ("iTLB 4K and 2M/4M from 128 to 256 and from 16 to 32 entries").
 *  [CAQA]  Hennessy & Patterson, Computer Architecture: A Quantitative
 *          Approach, 7th ed., section on the Intel Core i9-12900 (Alder
 *          Lake P-core = Golden Cove) memory hierarchy: L1 I-TLB 256 entries
 *          4 KiB + 32 entries 2/4 MiB, 8-way, pseudo-LRU; STLB 2048 entries
 *          for 4 KiB, 2 MiB and 1 GiB pages, 16-way, pseudo-LRU.
 *  [A76]   Arm Cortex-A76 Core Technical Reference Manual, A5.2 "TLB
 *          organization" (and the Cortex-A76 MMU table of the Intel Agilex 5
 *          HPS TRM): instruction L1 TLB 48 entries fully associative,
 *          caching 4KB, 16KB, 64KB, 2MB and 32MB granules; L2 TLB 1280
 *          entries 5-way set associative, shared by instruction and data,
 *          storing 4KB ... 1GB block sizes.
 *  [WC-N1] WikiChip, "Neoverse N1 - Microarchitectures - ARM": "The
 *          Neoverse N1 core is almost identical to the Cortex-A76".  The
 *          N1 TRM itself was not in the searchable corpus; the A76 numbers
 *          are used for N1 through this statement.
 *
 * Costs (cycles lost to one translation event; the bench's cost column,
 * bench/report_itlb.py, is stlb_hits x stlb_hit_cycles + walks x
 * walk_cycles per 1000 instructions).  0 means that no published figure
 * was found for that model and event: the column then says n/a, rather
 * than carry a guess.  Looked up Nov 2026:
 *  [HT-DESIGN] the 2021 Alibaba/Anolis "hugetext" design that
 *          max_nr_hugetext follows, as quoted by this project's issue 60:
 *          on Skylake / Cascade Lake servers "misses that hit the
 *          second-level TLB cost about 22 cycles each to refill L1" (the
 *          design's own measurement on its JVM workloads).  The primary
 *          text was not found in the searchable sources: Alibaba
 *          Cloud's "Hugetext" user guide, OpenAnolis's code huge page
 *          document and the linux-mm cover letter of Oct 2021
 *          (<20211009092658.59665-1-rongwei.wang@linux.alibaba.com>)
 *          state no cycle figure; Alibaba's developer article on code
 *          huge pages (developer.aliyun.com/article/1190462) could only
 *          be read in part.  So this is the design's figure at second
 *          hand.  "About 22": 22 is used.  Not used, for
 *          comparison only (other cores): Intel's top-down model (TMA
 *          4.4, Linux perf's broadwellx/bdx-metrics.json, tma_itlb_misses)
 *          weighs an ITLB STLB hit at 14 cycles on Broadwell, and 12 on
 *          the older cores' tables.
 *  Page walks: no published instruction-side walk latency was found for
 *          Skylake, Golden Cove or Neoverse N1 (the vendor guides give
 *          walk counters, not latencies; Intel's TMA for Skylake and later
 *          measures walk cycles with ITLB_MISSES.WALK_ACTIVE instead of
 *          weighing walks).  walk_cycles is 0 (n/a) everywhere.
 *  Golden Cove, Neoverse N1: no published STLB-hit (L2 TLB hit) refill
 *          cost for instruction fetch was found either: 0 (n/a).
 *
 * Simplifications (all models):
 *  - true LRU where the hardware uses pseudo-LRU [CAQA];
 *  - Skylake's 2M/4M iTLB is "8 entries per thread" [IORM]: one thread per
 *    core is modelled, so 8 entries;
 *  - a second level holding 4 KB and 2 MB entries is indexed with the low
 *    bits of the page number of the entry's own size (hardware indexing
 *    of mixed sizes is not documented);
 *  - Golden Cove's 2M/4M iTLB associativity: [CAQA] gives "8-way" for the
 *    I-TLB without splitting 4K and 2M; modelled as 32 entries 8-way (4
 *    sets).  Use the l1_2m.ways = 32 variant below to study the fully
 *    associative reading;
 *  - N1 L1 iTLB caches a 2 MB page as a 2 MB entry (granules up to 32 MB
 *    are listed in [A76], so no splintering into 4 KB entries), in the same
 *    48 entries as 4 KB pages;
 *  - translations are filled into both levels on a walk and into L1 on an
 *    STLB hit; no back-invalidation (neither level is strictly inclusive).
 */
#include <string.h>

#include "itlb_model.h"

const struct itlb_model itlb_models[] = {
	{
		.name = "skylake",
		.desc = "Intel Skylake (client / SP core)",
		/* ITLB 4 KB: 128 entries, 8-way [IORM], 8-way [WC-SKL] */
		.l1_4k = { .entries = 128, .ways = 8 },
		/* ITLB 2M/4M: 8 entries per thread [IORM]; fully
		 * associative [CPUID 0x76] */
		.l1_2m = { .entries = 8, .ways = 8 },
		/* STLB 4K+2M shared: 1536 entries, 12-way [IORM], [WC-SKL]
		 * (CPUID 0xc3 says 6-way; the manual is followed) */
		.l2 = { .entries = 1536, .ways = 12 },
		/* STLB hit, refill of L1: about 22 cycles [HT-DESIGN];
		 * walk: no published figure found (n/a) */
		.stlb_hit_cycles = 22,
		.walk_cycles = 0,
	},
	{
		.name = "goldencove",
		.desc = "Intel Golden Cove (Alder Lake P-core, Sapphire Rapids)",
		/* ITLB 4 KB: 256 entries [ARCH21], [CAQA]; 8-way [CAQA] */
		.l1_4k = { .entries = 256, .ways = 8 },
		/* ITLB 2M/4M: 32 entries [ARCH21], [CAQA]; 8-way [CAQA] */
		.l1_2m = { .entries = 32, .ways = 8 },
		/* STLB 4K/2M(/1G): 2048 entries, 16-way [CAQA] */
		.l2 = { .entries = 2048, .ways = 16 },
		/* costs: no published figure found (n/a) */
		.stlb_hit_cycles = 0,
		.walk_cycles = 0,
	},
	{
		.name = "neoverse-n1",
		.desc = "Arm Neoverse N1 (= Cortex-A76 TLBs)",
		/* L1 iTLB: 48 entries fully associative, any page size
		 * [A76], [WC-N1] */
		.l1_4k = { .entries = 48, .ways = 48 },
		.l1_2m = { .entries = 0, .ways = 0 },
		/* L2 TLB: 1280 entries 5-way, unified I+D [A76] */
		.l2 = { .entries = 1280, .ways = 5 },
		/* costs: no published figure found (n/a) */
		.stlb_hit_cycles = 0,
		.walk_cycles = 0,
	},
	{
		/* not a CPU: the fully associative reading of Golden Cove's
		 * 32-entry 2M/4M iTLB, for comparison (see above) */
		.name = "goldencove-fa2m",
		.desc = "Golden Cove with a fully associative 2M iTLB (variant)",
		.l1_4k = { .entries = 256, .ways = 8 },
		.l1_2m = { .entries = 32, .ways = 32 },
		.l2 = { .entries = 2048, .ways = 16 },
		/* as goldencove: no published cost (n/a) */
		.stlb_hit_cycles = 0,
		.walk_cycles = 0,
	},
};

const unsigned itlb_n_models = sizeof(itlb_models) / sizeof(itlb_models[0]);

const struct itlb_model *itlb_model_find(const char *name)
{
	for (unsigned i = 0; i < itlb_n_models; i++)
		if (!strcmp(itlb_models[i].name, name))
			return &itlb_models[i];
	return NULL;
}
