// SPDX-License-Identifier: GPL-2.0
/*
 * Regression test for the data loss the 6.12 series' patch 3 fixes: data
 * written to a file and not yet written back, thrown away when the file is
 * opened for write while it has huge page cache.
 *
 * With CONFIG_READ_ONLY_THP_FOR_FS (Linux 6.12; gone in mainline), a file's
 * page cache may hold read-only huge folios only while no one has the file
 * open for write.  do_dentry_open() keeps it so: an open for write that sees
 * filemap_nr_thps() empties the file's page cache -- all of it, with
 * truncate_inode_pages(), which cancels the dirty state of every small
 * folio it removes.  6.12.y's collapse_file() writes the file back before
 * it adds a huge folio, so a file that has one has nothing dirty -- until a
 * second open for write races the first: both see the huge folio, the first
 * empties the cache and returns, its write() dirties a page, and the second
 * empties the cache again, the new page with it.  The write is lost; the
 * next read gets what the disk held.  (A collapse that fails because it
 * sees the writer opens the same window: nr_thps is raised for a moment.)
 * hugetext makes huge page cache common -- every program's text -- so any
 * program that updates a file its text shares with two writers loses data;
 * hugetext_smp saw it as stale code about one run in ten.
 *
 * The race, made wide: a 32 MB file, all of it in the page cache in 4 KB
 * pages except its last 2 MB region, collapsed (PROT_READ|PROT_EXEC
 * mapping, MADV_COLLAPSE).  Truncating 30 MB of small pages keeps the huge
 * folio -- and nr_thps -- for a while, so eight threads that open the file
 * for write at once see it; each writes a new version of its own page near
 * the end of the file and closes it.  Every round all eight pages must
 * read back their new versions; after fsync and drop_caches the disk must hold
 * them; and a write into the collapsed region after such an open must read
 * back alike through the mapping and the file.  Periodic writeback is
 * switched off (vm.dirty_writeback_centisecs 0) for the test and restored.
 * On Linux 7.3 the open no longer truncates; the test checks it stays so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define REGION (2UL << 20)
#define PAGE 4096UL
#define ROUNDS 20
#define OPENERS 8
#define FILE_SIZE (32UL << 20)
#define FILE_DIR "/var/tmp/hugetext-dirtyopen"
#define FILE_PATH FILE_DIR "/text"
#define WB_KNOB "/proc/sys/vm/dirty_writeback_centisecs"

static char saved_wb[32];

static void restore(void)
{
	if (saved_wb[0])
		sysctl_write(WB_KNOB, saved_wb);
}

/* page k of the file, version v: every 8-byte word says (k, v) */
static void fill(unsigned char *buf, unsigned long k, unsigned long v)
{
	uint64_t w = (uint64_t)k << 32 | v;
	unsigned long i;

	for (i = 0; i < PAGE; i += sizeof(w))
		memcpy(buf + i, &w, sizeof(w));
}

static int write_page(unsigned long k, unsigned long v)
{
	unsigned char buf[PAGE];
	int fd = open(FILE_PATH, O_WRONLY), ok;

	fill(buf, k, v);
	if (fd < 0)
		return -1;
	ok = pwrite(fd, buf, PAGE, k * PAGE) == (ssize_t)PAGE;
	return close(fd) || !ok ? -1 : 0;
}

/* the version page k holds (read()), or -1 if it is not a whole version */
static long read_version(unsigned long k)
{
	unsigned char buf[PAGE], want[PAGE];
	int fd = open(FILE_PATH, O_RDONLY);
	uint64_t w;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, PAGE, k * PAGE);
	close(fd);
	if (n != (ssize_t)PAGE)
		return -1;
	memcpy(&w, buf, sizeof(w));
	fill(want, k, (uint32_t)w);
	if (w >> 32 != k || memcmp(buf, want, PAGE))
		return -1;
	return (uint32_t)w;
}

/* the last region alone, PROT_READ|PROT_EXEC, PMD-aligned */
static char *map_last_region(void)
{
	char *p = map_range_aligned(FILE_PATH, FILE_SIZE - REGION, REGION);

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("cannot map %s\n", FILE_PATH);
	return p;
}

static long pmd_kb(char *p)
{
	return smaps_field(0, (unsigned long)p, (unsigned long)p + REGION,
			   "FilePmdMapped") / 1024;
}

/*
 * Whether anyone has the file open for write now, as the kernel sees it: a
 * read lease is refused (EAGAIN) exactly while the inode is open for write.
 * Said when a collapse fails: 6.12's refuses a file open for write.
 */
static const char *writer_state(void)
{
	int fd = open(FILE_PATH, O_RDONLY), r, err;

	if (fd < 0)
		return "cannot open the file";
	r = fcntl(fd, F_SETLEASE, F_RDLCK);
	err = errno;
	if (!r)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
	return !r ? "no writer has the file open" :
	       err == EAGAIN ? "a writer has the file open" :
	       "writers unknown (no lease)";
}

static int collapse(char *p, const char *when)
{
	int tries, err = collapse_retry(-1, p, REGION, 50, &tries);

	if (pmd_kb(p) == REGION / 1024)
		return 1;
	ksft_print_msg("MADV_COLLAPSE of the last region %s: %s after %d tries, not PMD-mapped; %s\n",
		       when, err ? strerror(err) : "success", tries, writer_state());
	return 0;
}

/* the whole file into the page cache */
static void cache_file(void)
{
	static unsigned char buf[REGION];
	int fd = open(FILE_PATH, O_RDONLY);
	unsigned long off;

	for (off = 0; fd >= 0 && off < FILE_SIZE; off += REGION)
		if (pread(fd, buf, REGION, off) != (ssize_t)REGION)
			break;
	if (fd >= 0)
		close(fd);
}

struct opener {
	pthread_barrier_t *go;
	unsigned long page, ver;
	int err;
};

/* open the file for write, write a new version of one page, close */
static void *open_and_write(void *arg)
{
	struct opener *o = arg;

	pthread_barrier_wait(o->go);
	o->err = write_page(o->page, o->ver) ? errno : 0;
	return NULL;
}

int main(void)
{
	unsigned long k, r, huge = 0, zapped = 0, lost = 0, disk_bad = 0, ver = 0;
	unsigned long first_page = 0, first_want = 0;
	long got, first_got = -2, a_map, a_file, pmd;
	unsigned char *buf = malloc(PAGE * 2);
	pthread_t t[OPENERS];
	struct opener o[OPENERS];
	pthread_barrier_t go;
	int i, fd;
	char *p;
	FILE *f;

	ksft_print_header();
	ksft_set_plan(4);
	f = fopen(WB_KNOB, "r");
	if (!f || !fgets(saved_wb, sizeof(saved_wb), f))
		ksft_exit_skip("no %s\n", WB_KNOB);
	fclose(f);
	atexit(restore);
	if (sysctl_write(WB_KNOB, "0"))
		ksft_exit_fail_msg("cannot write %s\n", WB_KNOB);

	mkdir(FILE_DIR, 0755);
	fd = open(FILE_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (k = 0; buf && fd >= 0 && k < FILE_SIZE / PAGE; k++) {
		fill(buf, k, 0);
		if (write(fd, buf, PAGE) != (ssize_t)PAGE)
			break;
	}
	if (!buf || fd < 0 || k < FILE_SIZE / PAGE || fsync(fd) || close(fd))
		ksft_exit_fail_msg("cannot write %s\n", FILE_PATH);
	p = map_last_region();
	pthread_barrier_init(&go, NULL, OPENERS);

	for (r = 0; r < ROUNDS; r++) {
		char when[32];

		snprintf(when, sizeof(when), "in round %lu", r);
		cache_file();
		if (collapse(p, when))
			huge++;
		ver++;
		for (i = 0; i < OPENERS; i++) {
			o[i] = (struct opener){ .go = &go, .ver = ver,
						.page = FILE_SIZE / PAGE - REGION / PAGE - 1 - 3 * i };
			if (pthread_create(&t[i], NULL, open_and_write, &o[i]))
				ksft_exit_fail_msg("pthread_create\n");
		}
		for (i = 0; i < OPENERS; i++) {
			pthread_join(t[i], NULL);
			if (o[i].err)
				ksft_exit_fail_msg("write page %lu: %s\n", o[i].page, strerror(o[i].err));
		}
		if (pmd_kb(p) == 0)
			zapped++;
		for (i = 0; i < OPENERS; i++) {
			got = read_version(o[i].page);
			if (got != (long)ver && !lost++) {
				first_page = o[i].page;
				first_want = ver;
				first_got = got;
			}
		}
	}
	if (lost)
		ksft_print_msg("first lost write: page %lu reads version %ld after the opens, %lu written\n",
			       first_page, first_got, first_want);
	ksft_print_msg("%d rounds of %d opens: the last region PMD-mapped before them %lu times, unmapped by them %lu times (6.12: an open empties the page cache; 7.3: it leaves it)\n",
		       ROUNDS, OPENERS, huge, zapped);
	ksft_test_result(huge == ROUNDS,
			 "each round's opens race with huge page cache in the file (%lu of %d)\n",
			 huge, ROUNDS);
	ksft_test_result(lost == 0,
			 "opens for write at once keep each other's writes (%lu of %d lost)\n",
			 lost, ROUNDS * OPENERS);

	/* what reached the disk */
	fd = open(FILE_PATH, O_RDONLY);
	if (fd < 0 || fsync(fd))
		ksft_exit_fail_msg("fsync %s\n", FILE_PATH);
	close(fd);
	munmap(p, REGION);
	drop_caches();
	for (i = 0; i < OPENERS; i++)
		if (read_version(o[i].page) != (long)ver)
			disk_bad++;
	ksft_test_result(disk_bad == 0,
			 "after fsync and drop_caches the disk holds the last writes (%lu pages wrong)\n",
			 disk_bad);
	/* a write into the collapsed region after an open reads back alike */
	p = map_last_region();
	pmd = collapse(p, "after the rounds");
	k = FILE_SIZE / PAGE - 5;
	if (write_page(k, 1000))
		ksft_exit_fail_msg("write page %lu: %s\n", k, strerror(errno));
	memcpy(buf, p + REGION - 5 * PAGE, PAGE);
	fill(buf + PAGE, k, 1000);
	a_map = !memcmp(buf, buf + PAGE, PAGE);
	a_file = read_version(k) == 1000;
	ksft_test_result(pmd && a_map && a_file,
			 "a write into the collapsed region (PMD-mapped before: %s) reads back through the mapping (%s) and the file (%s)\n",
			 pmd ? "yes" : "no", a_map ? "yes" : "no", a_file ? "yes" : "no");
	munmap(p, REGION);
	unlink(FILE_PATH);
	rmdir(FILE_DIR);
	ksft_finished();
}
