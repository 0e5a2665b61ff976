// SPDX-License-Identifier: GPL-2.0
/*
 * hugetext: where program text, libraries and other memory are placed.
 *
 * A PIE's text is placed congruent to its file offset modulo the PMD size
 * with hugetext bit 0 on, and not with it off (pie_placement), keeping
 * mmap_rnd_bits less the PMD shift of ASLR (fixture aslr): the test
 * program runs itself again and reports what its exec gave it
 * (hugetext_report.c).  Anonymous memory is placed as without hugetext
 * (anon_placement); a data file on overlayfs as the series places it
 * (overlay_data_file); shared libraries loaded by ld.so from ext4, from
 * overlayfs and linked for 64K pages are PMD-mapped where their text is
 * congruent (fixture lib).  A mode is the kinds of code the knobs give,
 * in the prctl's bits (mode_read()); "hugetext N" is mode N.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/param.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "hugetext_series.h"
#include "hugetext_helpers.h"
#include "hugetext_report.h"

#define NR_EXECS 4

/*
 * A PIE's text is placed congruent to its file offset modulo the PMD size
 * when hugetext bit 0 is on for the process (here by its prctl, kept over
 * exec), at every exec, and its full region is PMD-mapped once its first
 * fault returns (on a kernel that collapses new text on the way out of
 * exec, one without HT_FAULT_ALLOC, before main(): before its first
 * fault), each placement counted in HT_ALIGN_PIE; with it off the load
 * bias is only page-aligned, nothing is counted, and NR_EXECS execs are
 * not all congruent (by chance: 1 in 512^4).
 */
TEST(pie_placement)
{
	long pmd_kb = read_pmd_pagesize() >> 10;
	bool at_exec = read_vmstat(HT_FAULT_ALLOC) < 0;
	struct report r;
	int i, congruent = 0;
	long align0;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	if (!self_is_pie())
		SKIP(return, "this program is not a PIE: nothing for the loader to place\n");
	align0 = read_vmstat(HT_ALIGN_PIE);
	for (i = 0; i < NR_EXECS; i++) {
		ASSERT_EQ(run_report("/proc/self/exe", PR_HT_SET | PR_HT_FILE, 0, &r), 0);
		EXPECT_EQ(r.prctl, (int)(PR_HT_SET | PR_HT_FILE));
		EXPECT_EQ(r.congruent, 1);
		if (!i)
			ksft_print_msg("PMD-mapped: %ld kB when main() starts, %ld after a fault\n",
				       r.pmd_kb_start, r.pmd_kb);
		/* -1: pages so large that the blob holds no full region */
		if (r.pmd_kb >= 0)
			EXPECT_GE(r.pmd_kb, pmd_kb);
		if (r.pmd_kb >= 0 && at_exec)
			EXPECT_GE(r.pmd_kb_start, pmd_kb);
	}
	/* each placement counted (an interpreter placed too may add its own) */
	if (align0 >= 0) {
		EXPECT_GE(read_vmstat(HT_ALIGN_PIE) - align0, NR_EXECS);
		align0 = read_vmstat(HT_ALIGN_PIE);
	}
	for (i = 0; i < NR_EXECS; i++) {
		ASSERT_EQ(run_report("/proc/self/exe", PR_HT_SET, 0, &r), 0);
		EXPECT_EQ(r.prctl, (int)PR_HT_SET);
		congruent += r.congruent == 1;
	}
	EXPECT_LT(congruent, NR_EXECS);
	if (align0 >= 0)
		EXPECT_EQ(read_vmstat(HT_ALIGN_PIE), align0);
}

#define RND_KNOB "/proc/sys/vm/mmap_rnd_bits"

/* vm.mmap_rnd_bits, saved and restored */
FIXTURE(aslr)
{
	long rnd_saved;
};

FIXTURE_SETUP(aslr)
{
	self->rnd_saved = -1;
	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	if (prctl(PR_GET_HT, 0, 0, 0, 0) < 0)
		SKIP(return, "no %s in this kernel\n", PR_SET_HT_NAME);
	if (!self_is_pie())
		SKIP(return, "this program is not a PIE: nothing for the loader to place\n");
	if (access(RND_KNOB, F_OK))
		SKIP(return, "no %s (CONFIG_HAVE_ARCH_MMAP_RND_BITS)\n", RND_KNOB);
	self->rnd_saved = read_num(RND_KNOB);
}

FIXTURE_TEARDOWN(aslr)
{
	if (self->rnd_saved < 0)
		return;
	path_write_num(RND_KNOB, self->rnd_saved);
}

/*
 * @n execs of this PIE with hugetext on for it: false if one was not
 * congruent; *@bits, the bits of randomness its placement keeps, in PMD
 * steps, estimated from the spread: the range of n uniform samples covers
 * (n - 1) / (n + 1) of the space.
 */
static bool aslr_sample(struct __test_metadata *_metadata, int n, double *bits)
{
	unsigned long lo = ~0UL, hi = 0, pmd = read_pmd_pagesize();
	bool congruent = true;
	struct report r;
	int i;

	for (i = 0; i < n; i++) {
		if (run_report("/proc/self/exe", PR_HT_SET | PR_HT_FILE, 0, &r))
			return false;
		congruent &= r.congruent == 1;
		lo = MIN(lo, r.base);
		hi = MAX(hi, r.base);
	}
	*bits = hi > lo ? log2((double)(hi - lo) / pmd * (n + 1) / (n - 1)) : 0;
	return congruent;
}

#define ASLR_EXECS 64

/*
 * Placing a PIE congruent costs it the address bits below the PMD size,
 * no more: ASLR_EXECS execs are all congruent and spread over
 * mmap_rnd_bits - 9 bits (4K pages, 2M PMDs; +-0.5: the range of ASLR_EXECS
 * uniform samples falls short of 2^-0.5 of its expected span with a
 * probability under 1e-8).  At the largest mmap_rnd_bits the arch
 * takes, at least 19 bits are left, as many as x86-64's default gives
 * without hugetext.
 */
TEST_F_TIMEOUT(aslr, pie_entropy, 120)
{
	double bits, expect, step = log2(read_pmd_pagesize() / getpagesize());
	long max;
	char v[24];

	ASSERT_TRUE(aslr_sample(_metadata, ASLR_EXECS, &bits));
	expect = self->rnd_saved - step;
	ksft_print_msg("mmap_rnd_bits %ld: %d execs keep %.2f bits in PMD steps, %.0f expected\n",
		       self->rnd_saved, ASLR_EXECS, bits, expect);
	EXPECT_GT(bits, expect - 0.5);
	EXPECT_LT(bits, expect + 0.5);

	for (max = 40; max > self->rnd_saved; max--) {
		snprintf(v, sizeof(v), "%ld", max);
		if (!path_write(RND_KNOB, v))
			break;
	}
	ASSERT_TRUE(aslr_sample(_metadata, ASLR_EXECS, &bits));
	expect = max - step;
	ksft_print_msg("mmap_rnd_bits %ld (the largest): %d execs keep %.2f bits, %.0f expected\n",
		       max, ASLR_EXECS, bits, expect);
	EXPECT_GE(expect, 19);
	EXPECT_GT(bits, expect - 0.5);
	EXPECT_LT(bits, expect + 0.5);
}

/*
 * How many of 16 anonymous mappings of @len in a row start on a PMD
 * boundary; -1 if one could not be made
 */
static int anon_aligned(size_t len, int prot, int flags, size_t pmdsize)
{
	void *maps[16], *gaps[16];
	int i, n = 0, aligned = 0;

	for (i = 0; i < 16; i++, n++) {
		maps[i] = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
		if (maps[i] == MAP_FAILED)
			break;
		/* a page between: a mapping would keep its neighbour's alignment */
		gaps[i] = mmap(NULL, getpagesize(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (gaps[i] == MAP_FAILED) {
			munmap(maps[i], len);
			break;
		}
		aligned += !((unsigned long)maps[i] & (pmdsize - 1));
	}
	for (i = 0; i < n; i++) {
		munmap(maps[i], len);
		munmap(gaps[i], getpagesize());
	}
	return n == 16 ? aligned : -1;
}

/*
 * Anonymous memory that is not ld.so's reservation for a library is placed
 * as without hugetext (where the series leaves ld.so's reservations to
 * ld.so, HT_PLACES_LIB_RESERVATION 0, those too): a PROT_NONE reservation
 * of the program's own of 4 PMDs and 64K (a library's span as ld.so would
 * reserve it) and of 32 PMDs (a Go or V8 heap's), a thread stack, a
 * MAP_NORESERVE reservation and a readable mapping.  16 in a row are as
 * often on a PMD boundary with hugetext 1 as with 0 (one or two by chance,
 * or all where THP places a mapping whose length is a multiple of the PMD
 * size), and HT_ALIGN_MMAP (where the series counts its placements) does
 * not move.
 */
TEST(anon_placement)
{
	static const struct {
		const char *what;
		size_t pmds, extra;
		int prot, flags;
	} cases[] = {
		{ "PROT_NONE reservation", 4, 64 << 10, PROT_NONE, 0 },
		{ "PROT_NONE reservation", 32, 0, PROT_NONE, 0 },
		{ "thread stack (MAP_STACK)", 4, 64 << 10, PROT_NONE, MAP_STACK },
		{ "MAP_NORESERVE reservation", 4, 64 << 10, PROT_NONE, MAP_NORESERVE },
		{ "readable mapping", 4, 64 << 10, PROT_READ, 0 },
	};
	size_t pmdsize = read_pmd_pagesize(), len;
	unsigned long saved;
	unsigned int i;
	int base, n;
	long m0;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	saved = mode_read();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		len = cases[i].pmds * pmdsize + cases[i].extra;
		ASSERT_EQ(mode_write(0), 0);
		base = anon_aligned(len, cases[i].prot, cases[i].flags, pmdsize);
		ASSERT_EQ(mode_write(PR_HT_FILE), 0);
		m0 = read_vmstat(HT_ALIGN_MMAP);
		n = anon_aligned(len, cases[i].prot, cases[i].flags, pmdsize);
		EXPECT_EQ(read_vmstat(HT_ALIGN_MMAP), m0);
		TH_LOG("%zuK %s: %d of 16 on a PMD boundary, %d with hugetext 0",
		       len >> 10, cases[i].what, n, base);
		EXPECT_TRUE(n >= 0 && base >= 0 && (n == base || (n <= 2 && base <= 2)));
	}
	mode_write(saved);
}

/* of 16 read-only mappings of @fd, @len long, in a row: how many on a PMD boundary */
static int file_aligned(int fd, size_t len, size_t pmdsize)
{
	void *maps[16];
	int i, n = 0, aligned = 0;

	for (i = 0; i < 16; i++) {
		maps[n] = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (maps[n] == MAP_FAILED)
			continue;
		aligned += !((unsigned long)maps[n] & (pmdsize - 1));
		n++;
	}
	for (i = 0; i < n; i++)
		munmap(maps[i], len);
	return n == 16 ? aligned : -1;
}

/*
 * A data file on overlayfs, with hugetext 1 as with 0: 16 read-only
 * mappings of 3 PMDs and a page in a row.  Where overlayfs asks the real
 * file's filesystem (HT_OVL_AS_REAL), they are placed as the same file on
 * the filesystem under it: of the upper file and of the overlay's, all on
 * a PMD boundary where that filesystem places mappings through
 * thp_get_unmapped_area() (ext4, xfs, btrfs), one or two by chance where
 * it places them page-granular.  Where overlayfs has no get_unmapped_area()
 * of its own and the series places libraries on it itself, a data file
 * there is placed as without hugetext: one or two on a PMD boundary by
 * chance, and HT_ALIGN_MMAP does not move.  The overlay is mounted in a
 * directory of the current one.
 */
TEST(overlay_data_file)
{
	char dir[] = "hugetext-ovl.XXXXXX", path[6][64], opts[256];
	static const char * const sub[] = { "lower", "upper", "work", "merged" };
	size_t pmdsize = read_pmd_pagesize(), len = 3 * pmdsize + getpagesize();
	int fd, real_fd = -1, i, real = -1, off = -1, on = -1;
	unsigned long saved;
	long m0 = -1, m1 = -1;

	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	ASSERT_NE(mkdtemp(dir), NULL);
	for (i = 0; i < 4; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, sub[i]);
		ASSERT_EQ(mkdir(path[i], 0755), 0);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
		 path[0], path[1], path[2]);
	if (mount("overlay", path[3], "overlay", 0, opts)) {
		int err = errno;

		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
		if (err == ENODEV)
			SKIP(return, "no overlayfs in this kernel\n");
		ASSERT_EQ(err, 0);
	}
	snprintf(path[4], sizeof(path[4]), "%s/merged/data", dir);
	snprintf(path[5], sizeof(path[5]), "%s/upper/data", dir);
	fd = open(path[4], O_RDWR | O_CREAT | O_TRUNC, 0644);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(ftruncate(fd, len), 0);
	saved = mode_read();
	if (fd >= 0) {
		real_fd = open(path[5], O_RDONLY);
		EXPECT_GE(real_fd, 0);
	}
	if (real_fd >= 0) {
		EXPECT_EQ(mode_write(0), 0);
		real = file_aligned(real_fd, len, pmdsize);
		off = file_aligned(fd, len, pmdsize);
		EXPECT_EQ(mode_write(PR_HT_FILE), 0);
		m0 = read_vmstat(HT_ALIGN_MMAP);
		on = file_aligned(fd, len, pmdsize);
		m1 = read_vmstat(HT_ALIGN_MMAP);
		close(real_fd);
	}
	mode_write(saved);
	if (fd >= 0)
		close(fd);
	unlink(path[4]);
	umount(path[3]);
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	TH_LOG("of 16 mappings of a data file, on a PMD boundary: %d of the upper file,",
	       real);
	TH_LOG("%d of the overlay's with hugetext 0, %d with hugetext 1", off, on);
	ASSERT_TRUE(real == 16 || (real >= 0 && real <= 2));
	EXPECT_EQ(m1, m0);
	if (!HT_OVL_AS_REAL) {
		EXPECT_TRUE(off >= 0 && off <= 2);
		EXPECT_TRUE(on >= 0 && on <= 2);
	} else if (real == 16) {
		EXPECT_EQ(off, 16);
		EXPECT_EQ(on, 16);
	} else {
		EXPECT_TRUE(off >= 0 && off <= 2);
		EXPECT_TRUE(on >= 0 && on <= 2);
	}
}

/*
 * Shared libraries loaded by ld.so: hugetext_lib.so (hugetext_lib.c, 8M
 * of functions, one a 4K page, at least three full PMD-sized regions
 * wherever the linker puts them), found next to this test, is dlopen()ed
 * by a child, which calls every function once, checks what each returns,
 * and waits.  Its page cache is dropped first, as for a program started
 * cold.  With mode 1 the library's load address is a PMD
 * boundary (its text congruent with its file: the linker makes p_vaddr
 * p_offset), every full region of its text is PMD-mapped within 1 s of
 * the calls without the child touching it again, the mapped text equals
 * the file; with 0 no region is PMD-mapped 1 s later.
 * THP is "madvise": no advice, so THP alone maps nothing here.  Variants:
 * the library in the test's directory (ext4, xfs or btrfs place it
 * through thp_get_unmapped_area()); hugetext_lib64k.so, the same linked
 * for 64K pages, which ld.so maps by reserving its span with an anonymous
 * PROT_NONE mapping and mapping the file MAP_FIXED at a 64K boundary
 * inside (how every arm64 library is loaded): where the series places
 * ld.so's reservation itself (HT_PLACES_LIB_RESERVATION), at a PMD
 * boundary; elsewhere placement is ld.so's, so with mode 1 its text is
 * PMD-mapped exactly when that boundary is a PMD one (one load in 32 on 4K
 * pages; so is hugetext_lib.so on arm64, whose linker aligns to 64K by
 * default); and the library copied to an overlayfs mount over a directory
 * of the current one.  Where the series places a mapping itself (an
 * overlay's, ld.so's reservation) HT_ALIGN_MMAP, if it has it, counts it.
 * On a kernel that collapses new text on the way out of mmap() (no
 * HT_FAULT_ALLOC), every full region is PMD-mapped already when dlopen()
 * returns, before the child calls a function.
 */
#define LIB_FNS 2048	/* hugetext_lib.c's functions */

/*
 * dl_iterate_phdr() callback: into @data's r[2], the largest p_align of the
 * PT_LOAD segments of the object loaded at r[1] (the page size the linker
 * built it for: 64K for hugetext_lib64k.so, and for every library by
 * default on arm64)
 */
static int lib_align(struct dl_phdr_info *info, size_t size, void *data)
{
	long *r = data;
	int i;

	if (info->dlpi_addr != (unsigned long)r[1])
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    (long)info->dlpi_phdr[i].p_align > r[2])
			r[2] = info->dlpi_phdr[i].p_align;
	return 1;
}

FIXTURE(lib) {
	struct thp_settings settings;
	unsigned long mode_saved;
	size_t pmdsize;
	pid_t pid;
	int pipe;
	char dir[32];		/* overlay's, "" without one */
	char path[PATH_MAX];	/* the library loaded */
};

FIXTURE_VARIANT(lib) {
	const char *so;
	bool overlay;
	int mode;
};

FIXTURE_VARIANT_ADD(lib, on) { .so = "hugetext_lib.so", .mode = 1 };
FIXTURE_VARIANT_ADD(lib, off) { .so = "hugetext_lib.so", .mode = 0 };
FIXTURE_VARIANT_ADD(lib, p64k_on) { .so = "hugetext_lib64k.so", .mode = 1 };
FIXTURE_VARIANT_ADD(lib, p64k_off) { .so = "hugetext_lib64k.so", .mode = 0 };
FIXTURE_VARIANT_ADD(lib, overlay_on) { .so = "hugetext_lib.so", .overlay = true, .mode = 1 };
FIXTURE_VARIANT_ADD(lib, overlay_off) { .so = "hugetext_lib.so", .overlay = true, .mode = 0 };

FIXTURE_SETUP(lib)
{
	static const char * const sub[] = { "lower", "upper", "work", "merged" };
	char so[PATH_MAX], d[4][64], opts[256];
	int i;

	self->pid = 0;
	self->pipe = -1;
	self->dir[0] = 0;
	SKIP_UNLESS_ROOT(return);
	if (access(HT_KNOB, F_OK))
		SKIP(return, "no hugetext in this kernel (CONFIG_HUGETEXT)\n");
	self->pmdsize = read_pmd_pagesize();
	if (self->pmdsize != 2 << 20)
		SKIP(return, "PMD size %zu: the library is laid out for 2M\n", self->pmdsize);
#if !defined(__x86_64__) && !defined(__aarch64__)
	/* the Makefile builds hugetext_lib.so where hugetext_lib.c has code */
	SKIP(return, "no hugetext_lib.so: hugetext_lib.c has no functions for this arch\n");
#endif
	if (!huge_cache_fs())
		SKIP(return, "not ext4, xfs or btrfs: no PMD-sized page cache folios\n");
	/* ld.so's read of the library and the child's collapse on one CPU */
	ASSERT_EQ(run_on_one_cpu(), 0);
	ASSERT_EQ(lib_beside_self(variant->so, so, sizeof(so)), 0);
	ASSERT_EQ(access(so, R_OK), 0) {
		TH_LOG("%s: built with this test (the Makefile's TEST_GEN_FILES)", so);
	}
	snprintf(self->path, sizeof(self->path), "%s", so);
	if (variant->overlay) {
		snprintf(self->dir, sizeof(self->dir), "hugetext-lib.XXXXXX");
		ASSERT_NE(mkdtemp(self->dir), NULL);
		for (i = 0; i < 4; i++) {
			snprintf(d[i], sizeof(d[i]), "%s/%s", self->dir, sub[i]);
			ASSERT_EQ(mkdir(d[i], 0755), 0);
		}
		snprintf(self->path, sizeof(self->path), "%s/%s", d[0], variant->so);
		ASSERT_EQ(file_copy(so, self->path), 0);
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s",
			 d[0], d[1], d[2]);
		if (mount("overlay", d[3], "overlay", 0, opts)) {
			int err = errno;

			/* no teardown after a failed or skipped setup */
			nftw(self->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
			self->dir[0] = 0;
			if (err == ENODEV)
				SKIP(return, "no overlayfs in this kernel\n");
			ASSERT_EQ(err, 0);
		}
		snprintf(self->path, sizeof(self->path), "%s/%s", d[3], variant->so);
	}
	self->mode_saved = mode_read();
	thp_save_settings();
	thp_read_settings(&self->settings);
	self->settings.thp_enabled = THP_MADVISE;
	settings_set_mode(&self->settings, variant->mode);
	thp_write_settings(&self->settings);
	ASSERT_EQ(mode_write(variant->mode), 0);
}

FIXTURE_TEARDOWN(lib)
{
	char merged[64];

	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->pipe >= 0)
		close(self->pipe);
	if (self->dir[0]) {
		snprintf(merged, sizeof(merged), "%s/merged", self->dir);
		umount(merged);
		nftw(self->dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	}
	mode_write(self->mode_saved);
	thp_restore_settings();
}

/*
 * The child: dlopen() @path, call every function, report on @fd the
 * functions that returned a wrong value (-1: not loaded), the load
 * address, the library's p_align and what dlopen() left PMD-mapped
 * before the first call, then wait to be killed
 */
static void lib_child(const char *path, int fd)
{
	long r[4] = { -1, 0, 0, -1 };
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	char *fn = h ? dlsym(h, "hugetext_lib_fn") : NULL;
	unsigned long start, end;
	struct link_map *lm;

	if (fn && !dlinfo(h, RTLD_DI_LINKMAP, &lm)) {
		r[3] = pad_smaps(getpid(), path, &start, &end);
		r[0] = jit_run(fn, LIB_FNS * 4096L);	/* function i returns i */
		r[1] = (long)lm->l_addr;
		dl_iterate_phdr(lib_align, r);
	}
	if (write(fd, r, sizeof(r)) != sizeof(r))
		_exit(1);
	for (;;)
		pause();
}

TEST_F(lib, load)
{
	unsigned long start, end, lo, hi, full;
	bool at_mmap = read_vmstat(HT_FAULT_ALLOC) < 0, congruent = true;
	long r[4], pmd = -1, m0;
	int fds[2], ms;

	ASSERT_EQ(pad_evict(self->path), 0);
	ASSERT_EQ(pipe(fds), 0);
	m0 = read_vmstat(HT_ALIGN_MMAP);
	self->pid = fork();
	ASSERT_GE(self->pid, 0);
	if (!self->pid) {
		close(fds[0]);
		lib_child(self->path, fds[1]);
	}
	close(fds[1]);
	self->pipe = fds[0];
	ASSERT_EQ(read(fds[0], r, sizeof(r)), sizeof(r));
	ASSERT_EQ(r[0], 0) {
		TH_LOG("%s: %s", self->path, r[0] < 0 ? "not loaded" : "wrong results");
	}
	/*
	 * ld.so places a library aligned beyond the page size (in a
	 * reservation of its own): hugetext_lib64k.so, and on arm64, whose
	 * linker aligns to 64K by default, hugetext_lib.so too
	 */
	ASSERT_GT(r[2], 0);
	if (!HT_PLACES_LIB_RESERVATION && r[2] > getpagesize())
		congruent = !(r[1] & (self->pmdsize - 1));
	/* wait up to 1 s for every full region of the text (none if off) */
	for (ms = 0; ms <= 1000; ms += 10) {
		pmd = pad_smaps(self->pid, self->path, &start, &end);
		lo = (start + self->pmdsize - 1) & ~(self->pmdsize - 1);
		hi = end & ~(self->pmdsize - 1);
		full = hi > lo ? hi - lo : 0;
		if (variant->mode && congruent && pmd == (long)full)
			break;
		usleep(10000);
	}
	ksft_print_msg("%s at %#lx, text %#lx-%#lx: %ld of %lu kB PMD-mapped after %d ms\n",
		       variant->so, (unsigned long)r[1], start, end, pmd >> 10, full >> 10,
		       MIN(ms, 1000));
	ASSERT_GE(full, 3 * self->pmdsize);
	if (at_mmap)
		ksft_print_msg("when dlopen() returned: %ld kB PMD-mapped\n", r[3] >> 10);
	if (!variant->mode || !congruent) {
		EXPECT_EQ(pmd, 0);
		if (at_mmap)
			EXPECT_EQ(r[3], 0);
		return;
	}
	if (at_mmap)
		EXPECT_EQ(r[3], (long)full);
	EXPECT_EQ(r[1] & (self->pmdsize - 1), 0);
	EXPECT_EQ(pmd, (long)full);
	EXPECT_TRUE(pad_same(self->pid, start, self->path, start - r[1], end - start));
	/* where the series placed the mapping itself (it counts, HT_ALIGN_MMAP) */
	if (m0 >= 0 && (variant->overlay || strstr(variant->so, "64k")))
		EXPECT_GT(read_vmstat(HT_ALIGN_MMAP), m0);
}

TEST_HARNESS_MAIN
