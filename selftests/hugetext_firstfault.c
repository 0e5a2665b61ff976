// SPDX-License-Identifier: GPL-2.0
/*
 * Program text read into PMD-sized folios at its first fault (the 7.3
 * series, patch 4): with the page cache dropped, a program's full 2M text
 * regions are PMD-mapped from their first fault on, each region costs one
 * text fault, and no collapse runs (khugepaged is parked and its
 * counters, and the kernel's collapse counters, do not move).  With THP
 * "never", so the THP mode plays no part.
 *
 *   - hugetext_biglib (16 MB of code in a shared library, one function a
 *     page, loaded by ld.so): its first call of every function takes at
 *     most one fault per full region plus the partial regions' faults (at
 *     most one per 64K fault-around window), every full region is
 *     PMD-mapped, results and bytes equal the file's, no collapse ran (an
 *     ET_EXEC and a PIE, and the same with hugetext off, are the
 *     kselftest's: hugetext.first_fault, pad.exec, pie_placement);
 *   - gcc's cc1 compiling a file: PMD-mapped regions while it runs, polled
 *     every 50 ms, reach every full region; the regions read huge at their
 *     first fault (hugetext_fault_read) and mapped by PMD (thp_file_mapped)
 *     account for them, with no collapse;
 *   - the same with padding (hugetext_pad_threshold 4096,
 *     hugetext_pad_rodata 1): cc1's text mapping reaches from the 2M
 *     boundary below its text to the one above, and all of it, the partial
 *     regions at both ends made full, is PMD-mapped while it runs (a padded
 *     region read huge at its first fault, or, if part of it was cached
 *     already, collapsed by cc1 on its return from the fault: the message
 *     prints hugetext_collapse_ok; measured, all 10 read huge);
 *   - hugetext_biglib again with readahead off on the device that holds it
 *     (its queue/read_ahead_kb 0, so the files it opens have ra_pages 0):
 *     no 2M read at a first fault (hugetext_fault_read +0), nothing
 *     PMD-mapped, no collapse, the program's results right; the exec-folio
 *     read of the 7.3 base reads nothing ahead of such a file's faults
 *     either (before v3 hugetext read every region huge regardless).
 *
 * SKIP when the kernel has no first-fault read (no hugetext_fault_read in
 * /proc/vmstat: the 6.12 series, which collapses instead).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "hugetext_util.h"

static char out[8192];

struct collapse_counts {
	long pages_collapsed, full_scans, collapse_alloc, collapse_alloc_failed,
	     fault_read, fault_fallback, file_mapped, collapse_ok;
};

static void counts(struct collapse_counts *c)
{
	c->pages_collapsed = knob_read_long("khugepaged/pages_collapsed");
	c->full_scans = knob_read_long("khugepaged/full_scans");
	c->collapse_alloc = vmstat_read("thp_collapse_alloc");
	c->collapse_alloc_failed = vmstat_read("thp_collapse_alloc_failed");
	c->fault_read = vmstat_read("hugetext_fault_read");
	c->fault_fallback = vmstat_read("hugetext_fault_fallback");
	c->file_mapped = vmstat_read("thp_file_mapped");
	c->collapse_ok = vmstat_read("hugetext_collapse_ok");
}

/* no collapse between @a and @b: say so or say what moved */
static bool no_collapse(const struct collapse_counts *a, const struct collapse_counts *b)
{
	long pc = b->pages_collapsed - a->pages_collapsed;
	long ca = b->collapse_alloc - a->collapse_alloc;

	if (pc || ca)
		ksft_print_msg("a collapse ran: khugepaged pages_collapsed +%ld, thp_collapse_alloc +%ld\n",
			       pc, ca);
	return !pc && !ca;
}

/*
 * @regions full regions PMD-mapped between @a and @b: each read huge at its
 * first fault, with no collapse -- but for the one holding the file's
 * first page when @hdr (arm64's layouts: text from offset 0).  ld.so's or
 * the exec's read of the ELF header may have cached that region before
 * its first fault: in a PMD-sized folio (the base's readahead grows its
 * folios up to PMD order), PMD-mapped then with no first-fault read, or in
 * small folios, collapsed then once: by the process on the return from
 * the fault that fell back (hugetext_collapse_ok), or by khugepaged
 * (pages_collapsed), which a process's registration wakes for a pass
 * when no other mm is registered, however long its sleep.
 */
static bool read_huge(const struct collapse_counts *a, const struct collapse_counts *b,
		      long regions, bool hdr)
{
	long read = b->fault_read - a->fault_read;
	long ok = b->collapse_ok - a->collapse_ok;
	long pc = b->pages_collapsed - a->pages_collapsed;
	long ca = b->collapse_alloc - a->collapse_alloc;

	if (!hdr || read >= regions)
		return read >= regions && no_collapse(a, b);
	if (read != regions - 1)
		return false;
	if (!ok && !pc && !ca)
		return true;
	ksft_print_msg("the ELF header's region was cached small and collapsed once: by the process (hugetext_collapse_ok +%ld) or khugepaged (pages_collapsed +%ld); thp_collapse_alloc +%ld\n",
		       ok, pc, ca);
	return ca == 1 && ok + pc == 1;
}

/*
 * Run a hugetext_bigtext-style helper once after dropping the page cache:
 * its first call of every function, the faults it took, and what is
 * PMD-mapped.
 */
static void test_helper(const char *what, const char *name)
{
	struct collapse_counts a, b;
	char prog[600];
	char *argv[] = { prog, "huge", "--timeout", "0", NULL };
	long faults, text_kb, ideal_kb, got_kb, regions, bound;
	bool hdr, pass;
	int rc;

	snprintf(prog, sizeof(prog), "%s/%s", self_dir(), name);
	knob_write(KNOB_ENABLED, "1");
	drop_caches();
	counts(&a);
	rc = run_helper(argv, out, sizeof(out), NULL, false);
	counts(&b);
	print_indented(out);
	faults = parse_after(out, "first-touch faults ");
	text_kb = parse_after(out, " over ");
	ideal_kb = parse_after(out, "ideal ");
	got_kb = parse_after(out, "# FilePmdMapped ");
	regions = ideal_kb > 0 ? ideal_kb / 2048 : 0;
	/* one fault a full region; a partial region, one per 64K window */
	bound = regions + (text_kb - ideal_kb) / 64 + 8;
	ksft_print_msg("%s: %ld first-touch faults over %ld KB of text (%ld full regions), PMD-mapped %ld of %ld KB; hugetext_fault_read +%ld, fallback +%ld, thp_file_mapped +%ld\n",
		       what, faults, text_kb, regions, got_kb, ideal_kb,
		       b.fault_read - a.fault_read, b.fault_fallback - a.fault_fallback,
		       b.file_mapped - a.file_mapped);
	/* the helper's text mapping starts on a boundary at file offset 0 */
	hdr = strstr(out, " off 0 (") && strstr(out, "start mod PMD 0,");
	pass = rc == 0 && regions > 0 && got_kb == ideal_kb &&
	       faults >= 0 && faults <= bound && read_huge(&a, &b, regions, hdr);
	/* what khugepaged did meanwhile: a lead for a region left small */
	if (!pass)
		ksft_print_msg("%s: khugepaged full_scans +%ld, pages_collapsed +%ld; thp_collapse_alloc +%ld, thp_collapse_alloc_failed +%ld\n",
			       what, b.full_scans - a.full_scans,
			       b.pages_collapsed - a.pages_collapsed,
			       b.collapse_alloc - a.collapse_alloc,
			       b.collapse_alloc_failed - a.collapse_alloc_failed);
	ksft_test_result(pass,
			 "%s: %ld full regions PMD-mapped from their first fault, %ld text faults (at most %ld), no collapse%s\n",
			 what, regions, faults, bound,
			 hdr ? " but maybe of the ELF header's region" : "");
}

/*
 * Which ends of the executable segment of the 64-bit ELF file @path
 * padding can take to a PMD boundary, with hugetext_pad_rodata 1 (read-only
 * segments may be covered): not an end whose way to its boundary a
 * writable segment crosses (arm64's cc1: its data segment starts in the
 * region its text ends in).  0, or -1 when @path is not such a file.
 */
static int pad_ends(const char *path, bool *head, bool *tail)
{
	unsigned long pmd = pmd_size(), lo = 0, hi = 0, lo_b, hi_b, s, e;
	Elf64_Phdr ph[64];
	int i, n = elf_phdrs(path, ph, 64);

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			lo = ph[i].p_vaddr;
			hi = ph[i].p_vaddr + ph[i].p_memsz;
			break;
		}
	if (!pmd || hi <= lo)
		return -1;
	lo_b = lo & ~(pmd - 1);
	hi_b = (hi + pmd - 1) & ~(pmd - 1);
	*head = *tail = true;
	for (i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W))
			continue;
		s = ph[i].p_vaddr;
		e = s + ph[i].p_memsz;
		if (s < hi_b && e > hi)
			*tail = false;
		if (e > lo_b && s < lo)
			*head = false;
	}
	return 0;
}

/*
 * cc1 compiling a real file after a dropped cache, polled every 50 ms; with
 * @pad, its text padded at both ends where its layout lets it (pad_ends())
 */
static void test_cc1(bool pad)
{
	const char *cc1 = "/usr/bin/cc1", *src = "/opt/hugetext/big.c";
	unsigned long start = 0, end = 0, off = 0, ideal = 0;
	struct collapse_counts a, b;
	long max = 0, v, ms_full = -1, read, mapped;
	bool hdr;
	double t0;
	int status, polls = 0;
	char path[256];
	pid_t pid;

	if (access(cc1, X_OK) || access(src, R_OK)) {
		ksft_test_result_skip("cc1: %s or %s missing in this rootfs\n", cc1, src);
		return;
	}
	if (pad && (!knob_exists(KNOB_PAD_THRESHOLD) ||
		    !knob_exists(KNOB_PAD_RODATA))) {
		ksft_test_result_skip("cc1 padded: no hugetext padding in this kernel\n");
		return;
	}
	knob_write(KNOB_PAD_THRESHOLD, pad ? "4096" : "0");
	knob_write(KNOB_PAD_RODATA, pad ? "1" : "0");
	knob_write(KNOB_ENABLED, "1");
	drop_caches();
	counts(&a);
	t0 = mono_now();
	pid = fork();
	if (pid == 0) {
		execl(cc1, "cc1", "-quiet", "-nostdinc", "-O2", src, "-o", "/dev/null",
		      (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (!start && !find_exec_mapping(pid, "cc1", &start, &end, &off,
						 path, sizeof(path)))
			ideal = ideal_huge_bytes(start, end, off);
		if (start) {
			v = smaps_field(pid, start, end, "FilePmdMapped");
			if (v > max)
				max = v;
			if (ideal && v >= (long)ideal && ms_full < 0)
				ms_full = (long)((mono_now() - t0) * 1000);
			polls++;
		}
		usleep(50000);
	}
	counts(&b);
	read = b.fault_read - a.fault_read;
	mapped = b.file_mapped - a.file_mapped;
	ksft_print_msg("cc1%s: text %lx-%lx, ideal %lu KB, PMD-mapped at most %ld KB (all of it %ld ms after fork), %d polls, exit %d; hugetext_fault_read +%ld, fallback +%ld, hugetext_collapse_ok +%ld, thp_file_mapped +%ld\n",
		       pad ? " padded" : "", start, end, ideal >> 10, max >> 10,
		       ms_full, polls, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		       read, b.fault_fallback - a.fault_fallback,
		       b.collapse_ok - a.collapse_ok, mapped);
	knob_write(KNOB_PAD_THRESHOLD, "0");
	knob_write(KNOB_PAD_RODATA, "0");
	if (pad) {
		bool head = false, tail = false;
		int elf = pad_ends(cc1, &head, &tail);

		ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status) && ideal &&
				 !elf && (head || tail) &&
				 (!head || !(start % pmd_size())) &&
				 (!tail || !(end % pmd_size())) && max == (long)ideal,
				 "cc1 padded at %s: text %lx-%lx, all %lu regions PMD-mapped while it runs\n",
				 head && tail ? "both ends" : head ? "its head (a writable segment in its tail's region)" :
				 tail ? "its tail (a writable segment in its head's region)" : "neither end",
				 start, end, ideal / (2 << 20));
		return;
	}
	/* arm64's cc1: its text segment starts at offset 0 (read_huge()) */
	hdr = off == 0 && !(start % pmd_size());
	ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status) && ideal &&
			 max == (long)ideal && mapped >= (long)(ideal / (2 << 20)) &&
			 read_huge(&a, &b, ideal / (2 << 20), hdr),
			 "cc1: all %lu full regions PMD-mapped from their first fault (%ld read huge), no collapse%s\n",
			 ideal / (2 << 20), read, hdr ? " but maybe of the ELF header's region" : "");
}

/*
 * hugetext_biglib with readahead off on the device of its library: no 2M
 * read at its first faults, nothing PMD-mapped, no collapse
 */
static void test_ra_off(void)
{
	char prog[600], lib[600], ra[128], saved[32] = "";
	char *argv[] = { prog, "huge", "--timeout", "0", NULL };
	struct collapse_counts a, b;
	long got_kb, ideal_kb;
	struct stat st;
	ssize_t n;
	int rc, fd;

	snprintf(prog, sizeof(prog), "%s/hugetext_biglib", self_dir());
	snprintf(lib, sizeof(lib), "%s/libhugetext_big.so", self_dir());
	if (stat(lib, &st)) {
		ksft_test_result_fail("readahead off: %s: %s\n", lib, strerror(errno));
		return;
	}
	/* the disk's queue: the device itself, or the disk of its partition */
	snprintf(ra, sizeof(ra), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	if (access(ra, W_OK))
		snprintf(ra, sizeof(ra), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
	fd = open(ra, O_RDONLY);
	n = fd >= 0 ? read(fd, saved, sizeof(saved) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		ksft_test_result_skip("readahead off: %s's device %u:%u has no read_ahead_kb\n",
				      lib, major(st.st_dev), minor(st.st_dev));
		return;
	}
	saved[n] = '\0';
	saved[strcspn(saved, "\n")] = '\0';
	if (sysctl_write(ra, "0")) {
		ksft_test_result_fail("readahead off: cannot write 0 to %s\n", ra);
		return;
	}
	knob_write(KNOB_ENABLED, "1");
	drop_caches();
	counts(&a);
	rc = run_helper(argv, out, sizeof(out), NULL, false);
	counts(&b);
	if (sysctl_write(ra, saved))
		ksft_print_msg("could not restore %s to %s\n", ra, saved);
	print_indented(out);
	ideal_kb = parse_after(out, "ideal ");
	got_kb = parse_after(out, "# FilePmdMapped ");
	ksft_print_msg("readahead off (%s was %s): PMD-mapped %ld of %ld KB; hugetext_fault_read +%ld, fallback +%ld\n",
		       ra, saved, got_kb, ideal_kb, b.fault_read - a.fault_read,
		       b.fault_fallback - a.fault_fallback);
	/*
	 * the helper, told "huge", exits non-zero when its text is not all
	 * PMD-mapped, which is what this case wants: it must still have run
	 * every function with the right results
	 */
	ksft_test_result(rc >= 0 && strstr(out, "mapped text equals the file; 0 wrong results") &&
			 ideal_kb > 0 && got_kb == 0 &&
			 b.fault_read - a.fault_read == 0 && no_collapse(&a, &b),
			 "readahead off: no 2M read at a first fault, nothing PMD-mapped, no collapse\n");
}

int main(void)
{
	ksft_begin_needing(KNOB_ENABLED, "CONFIG_HUGETEXT");
	if (vmstat_read("hugetext_fault_read") < 0)
		ksft_exit_skip("this kernel has no first-fault read of program text (no hugetext_fault_read)\n");
	if (pmd_size() != 2 << 20)
		ksft_exit_skip("PMD size %lu: the helpers are built for 2M regions\n", pmd_size());
	ksft_set_plan(4);
	knobs_save();
	/* THP plays no part; khugepaged parked: one scan now, then 10 minutes */
	knob_write("enabled", "never");
	knob_write(KNOB_ENABLED, "1");
	knob_write("khugepaged/scan_sleep_millisecs", "600000");
	knob_write("khugepaged/alloc_sleep_millisecs", "600000");
	sleep(2);

	test_helper("DSO biglib", "hugetext_biglib");
	test_cc1(false);
	test_cc1(true);
	test_ra_off();
	knobs_restore();
	ksft_finished();
}
