// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for the 6.12 series' patch 4: MADV_COLLAPSE of a file
 * range whose page table does not exist yet.
 *
 * MADV_COLLAPSE of file text collapses the page cache into a PMD-sized
 * folio, then maps it with a PMD (collapse_pte_mapped_thp(), install_pmd).
 * In Linux 6.12 that last step looks the PMD up with mm_find_pmd(), which
 * returns NULL when the table that holds the PMD entry was never
 * allocated -- nothing in the same 1 GB (4 KB pages: a PMD table maps
 * 512 PMDs) was ever faulted.  The result, SCAN_PMD_NULL, ends the call
 * with EINVAL although the collapse itself succeeded; the same call on a
 * range whose 1 GB already has a table maps the PMD.  Whether it fails
 * depends on where mmap() put the mapping: hugetext_dirtyopen saw it as an
 * intermittent EINVAL at its first collapse.  Mainline allocates the
 * missing levels (7.3 passes unchanged).
 *
 * Two file regions, each mapped PROT_READ|PROT_EXEC alone in a 1 GB-aligned
 * span of the address space that holds no other mapping (MAP_FIXED_NOREPLACE):
 * in the first span another page was touched first (its table exists), in
 * the second nothing was.  Each region's page cache is read first; then
 * MADV_COLLAPSE must return 0 and the region must be PMD-mapped before it is
 * touched, and then read the file's bytes.  The process's own hugetext is
 * off (prctl), so only MADV_COLLAPSE maps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define FILE_DIR "/var/tmp/hugetext-pgtable"
/* below every user address space the tests run in (x86-64 47 bits, arm64 48) */
#define USER_TOP (1UL << 47)

static unsigned long pmd, span;

/*
 * A @span-aligned address A with no mapping in [A - span, A + 2 * span),
 * at or above @from; 0 if none.  Only mappings in /proc/self/maps count:
 * a table is allocated for a mapping's faults, so a span no mapping ever
 * touched has none (this process maps nothing there before the test).
 */
static unsigned long free_span(unsigned long from)
{
	unsigned long prev_end = 0, s, e, a;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		/* the gap [prev_end, s) */
		a = (prev_end + 2 * span - 1) & ~(span - 1);
		if (a < from)
			a = (from + span - 1) & ~(span - 1);
		if (a >= prev_end + span && a + 2 * span <= s &&
		    a + 2 * span <= USER_TOP) {
			fclose(f);
			return a;
		}
		prev_end = e;
	}
	fclose(f);
	return 0;
}

/*
 * Map @path's first PMD region at @addr, its page cache read first, and
 * MADV_COLLAPSE it; @touch_first: fault a page of an anonymous mapping in
 * the same span before (its table then exists).  Passes if the call
 * returns 0, the region is PMD-mapped before it is read, and it reads
 * the file's bytes.
 */
static int collapse_at(const char *path, unsigned long addr, bool touch_first,
		       const char *what)
{
	char *buf = malloc(pmd), *p, *anon = NULL;
	int fd = open(path, O_RDONLY), err, tries, same;
	long kb;

	if (!buf || fd < 0 || pread(fd, buf, pmd, 0) != (ssize_t)pmd)
		ksft_exit_fail_msg("cannot read %s\n", path);
	if (touch_first) {
		anon = mmap((char *)addr + span / 2, getpagesize(), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (anon == MAP_FAILED)
			ksft_exit_fail_msg("mmap at %#lx: %s\n", addr + span / 2, strerror(errno));
		*anon = 1;
	}
	p = mmap((void *)addr, pmd, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	close(fd);
	if (p != (char *)addr)
		ksft_exit_fail_msg("mmap at %#lx: %s\n", addr,
				   p == MAP_FAILED ? strerror(errno) : "another address");
	err = collapse_retry(-1, p, pmd, 50, &tries);
	kb = smaps_field(0, addr, addr + pmd, "FilePmdMapped") / 1024;
	same = !memcmp(p, buf, pmd);
	ksft_print_msg("%s: at %#lx, MADV_COLLAPSE %s after %d call(s), FilePmdMapped %ld kB before a touch, bytes %s the file's\n",
		       what, addr, err ? strerror(err) : "returned 0", tries, kb,
		       same ? "equal" : "differ from");
	munmap(p, pmd);
	if (anon)
		munmap(anon, getpagesize());
	free(buf);
	return !err && kb == (long)(pmd / 1024) && same;
}

int main(void)
{
	static const char *const files[] = { FILE_DIR "/near", FILE_DIR "/fresh" };
	unsigned long a, b;
	unsigned char *data;
	unsigned int i;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	pmd = pmd_size();
	/* the span one table of PMD entries maps: PMD size x entries a page */
	span = pmd * (getpagesize() / sizeof(void *));
	ksft_set_plan(2);
	/* only MADV_COLLAPSE maps here: this process's hugetext off */
	if (prctl(PR_SET_HUGETEXT, PR_HUGETEXT_SET, 0, 0, 0))
		ksft_exit_fail_msg("prctl(PR_SET_HUGETEXT, off): %s\n", strerror(errno));

	mkdir(FILE_DIR, 0755);
	data = malloc(pmd);
	if (!data)
		ksft_exit_fail_msg("malloc\n");
	for (i = 0; i < 2; i++) {
		unsigned long k;

		for (k = 0; k < pmd; k++)
			data[k] = (unsigned char)(k * 7 + i * 131 + (k >> 12));
		if (write_file(files[i], data, pmd))
			ksft_exit_fail_msg("cannot write %s\n", files[i]);
	}
	free(data);
	/* two free spans well above the low addresses */
	a = free_span(1UL << 32);
	b = a ? free_span(a + 3 * span) : 0;
	if (!a || !b)
		ksft_exit_fail_msg("no free %lu MB spans in the address space\n", span >> 20);

	ksft_test_result(collapse_at(files[0], a, true, "table present"),
			 "MADV_COLLAPSE maps a file region whose page table exists\n");
	ksft_test_result(collapse_at(files[1], b, false, "no table"),
			 "MADV_COLLAPSE maps a file region whose page table was never allocated\n");
	for (i = 0; i < 2; i++)
		unlink(files[i]);
	rmdir(FILE_DIR);
	ksft_finished();
}
