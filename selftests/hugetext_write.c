// SPDX-License-Identifier: GPL-2.0
/*
 * Write fallback: a file whose text is collapsed and PMD-mapped is opened for
 * write while mapped.  The huge page cache must be dropped (no PMD mapping
 * left), the new content must be what the mapping and a fresh mapping read,
 * and nothing may crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

#define COPY "/var/tmp/hugetext_write.bin"

static char *map;
static size_t len;

static bool touched_huge(void *arg)
{
	volatile char sum = 0;
	size_t i;

	for (i = 0; i < len; i += 4096)
		sum += map[i];
	return smaps_field(0, (unsigned long)map, (unsigned long)map + len,
			   "FilePmdMapped") >= (long)*(unsigned long *)arg;
}

int main(int argc, char **argv)
{
	char src[512], pattern[4096], check[4096], *slash, *fresh;
	unsigned long ideal, pmd = pmd_size();
	long pmdmapped;
	size_t where;
	int fd;

	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	snprintf(src, sizeof(src), "%s", argv[0]);
	slash = strrchr(src, '/');
	strcpy(slash ? slash + 1 : src, "hugetext_bigtext");
	if (copy_file(src, COPY))
		ksft_exit_fail_msg("copy %s to %s: %s\n", src, COPY, strerror(errno));
	ksft_set_plan(5);
	knobs_save();
	knob_write(KNOB_ENABLED, "1");
	knob_write("enabled", "madvise");
	khugepaged_fast();
	system("echo 3 >/proc/sys/vm/drop_caches");

	map = map_text_aligned(COPY, &len);
	if (map == MAP_FAILED)
		ksft_exit_fail_msg("mmap %s: %s\n", COPY, strerror(errno));
	ideal = ideal_huge_bytes((unsigned long)map, (unsigned long)map + len, 0);
	khugepaged_wait(1000, 60000, touched_huge, &ideal);
	pmdmapped = smaps_field(0, (unsigned long)map, (unsigned long)map + len, "FilePmdMapped");
	ksft_test_result(ideal && pmdmapped >= (long)ideal,
			 "PROT_EXEC mapping of a copy collapsed: FilePmdMapped %ld KB of %lu KB\n",
			 pmdmapped >> 10, ideal >> 10);

	fd = open(COPY, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open for write: %s\n", strerror(errno));
	pmdmapped = smaps_field(0, (unsigned long)map, (unsigned long)map + len, "FilePmdMapped");
	ksft_test_result(pmdmapped == 0,
			 "open for write drops the PMD mappings (FilePmdMapped %ld KB)\n",
			 pmdmapped >> 10);

	/* new content in the middle of what was the second huge page */
	where = pmd + pmd / 2;
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (char)(i * 7 + 1);
	if (pwrite(fd, pattern, sizeof(pattern), where) != sizeof(pattern))
		ksft_exit_fail_msg("pwrite: %s\n", strerror(errno));
	ksft_test_result(pread(fd, check, sizeof(check), where) == sizeof(check) &&
			 !memcmp(check, pattern, sizeof(pattern)),
			 "read() sees the new content\n");
	close(fd);

	ksft_test_result(!memcmp(map + where, pattern, sizeof(pattern)),
			 "the existing mapping reads the new content\n");
	fresh = map_text_aligned(COPY, &len);
	ksft_test_result(fresh != MAP_FAILED && !memcmp(fresh + where, pattern, sizeof(pattern)),
			 "a fresh mapping reads the new content\n");
	munmap(map, len);
	if (fresh != MAP_FAILED)
		munmap(fresh, len);
	unlink(COPY);
	knobs_restore();
	ksft_finished();
}
