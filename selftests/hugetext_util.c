// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
/* the knob table itself, not only its names (hugetext_util.h) */
#define HUGETEXT_KNOB_TABLE
#include "hugetext_util.h"

/* @file (relative to THP_DIR) into @buf, without its last newline */
static int file_read(const char *file, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), THP_DIR "%s", file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int file_write(const char *file, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), THP_DIR "%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(val))
		err = -EIO;
	close(fd);
	return err;
}

static bool file_exists(const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), THP_DIR "%s", file);
	return access(path, F_OK) == 0;
}

/*
 * Knob @name (the table's file, the 6.12 series' name) in the running
 * kernel: NULL where the kernel has it under that name, else its 7.3
 * series' file(s) (knobs.list's knob73) where the kernel has those: one
 * file, or bit files ("always"/"prctl") comma-separated, *@bits set.
 */
static const char *knob73(const char *name, bool *bits)
{
	char first[128];
	int i;

	if (file_exists(name))
		return NULL;
	for (i = 0; i < NR_KNOB_SPECS; i++) {
		const char *f = knob_specs[i].file73;

		if (strcmp(knob_specs[i].file, name) || !f)
			continue;
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(f, ","), f);
		if (!file_exists(first))
			return NULL;
		*bits = strchr(f, ',') != NULL;
		return f;
	}
	return NULL;
}

/* bit @i's file of @files (comma-separated) into @buf; false past the last */
static bool bit_file(const char *files, int i, char *buf, size_t len)
{
	for (; i > 0 && files; i--) {
		files = strchr(files, ',');
		files = files ? files + 1 : NULL;
	}
	if (!files)
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(files, ","), files);
	return true;
}

/*
 * A knob whose bits are files of their own reads as the number the bits
 * make (a file at "[always] prctl" is its bit set), and takes a number
 * 0..2^bits-1 (a newline after it allowed) as "always"/"prctl" to each
 * file.  Anything else goes to every bit file as it is: refused (the
 * first error) only when every file refuses it.
 */
static int bits_read(const char *files, char *buf, size_t len)
{
	char file[128], val[64];
	long mode = 0;
	int i, err;

	for (i = 0; bit_file(files, i, file, sizeof(file)); i++) {
		err = file_read(file, val, sizeof(val));
		if (err)
			return err;
		if (!strcmp(val, "[always] prctl"))
			mode |= 1L << i;
		else if (strcmp(val, "always [prctl]"))
			return -EINVAL;
	}
	snprintf(buf, len, "%ld", mode);
	return 0;
}

static int bits_write(const char *files, const char *val)
{
	char file[128], *end;
	int i, n, err, first = 0, taken = 0;
	long mode;

	for (n = 0; bit_file(files, n, file, sizeof(file)); n++)
		;
	errno = 0;
	mode = strtol(val, &end, 10);
	if (val[0] >= '0' && val[0] <= '9' && !errno && mode >= 0 &&
	    mode < 1L << n && (!*end || !strcmp(end, "\n"))) {
		for (i = 0; bit_file(files, i, file, sizeof(file)); i++) {
			err = file_write(file, mode & (1L << i) ? "always" : "prctl");
			if (err)
				return err;
		}
		return 0;
	}
	for (i = 0; bit_file(files, i, file, sizeof(file)); i++) {
		err = file_write(file, val);
		if (!err)
			taken++;
		else if (!first)
			first = err;
	}
	return taken ? 0 : first;
}

const char *knob_kernel_file(const char *name)
{
	bool bits;
	const char *f73 = knob73(name, &bits);

	return f73 ? f73 : name;
}

int knob_read(const char *name, char *buf, size_t len)
{
	bool bits = false;
	const char *f73 = knob73(name, &bits);

	if (f73 && bits)
		return bits_read(f73, buf, len);
	return file_read(f73 ? f73 : name, buf, len);
}

int knob_write(const char *name, const char *val)
{
	bool bits = false;
	const char *f73 = knob73(name, &bits);

	if (f73 && bits)
		return bits_write(f73, val);
	return file_write(f73 ? f73 : name, val);
}

long knob_read_long(const char *name)
{
	char buf[64];

	if (knob_read(name, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

int knob_read_mode(const char *name, char *out, size_t len)
{
	char buf[256], *s, *e;

	if (knob_read(name, buf, sizeof(buf)))
		return -1;
	s = strchr(buf, '[');
	e = s ? strchr(s, ']') : NULL;
	if (!s || !e)
		return -1;
	*e = '\0';
	snprintf(out, len, "%s", s + 1);
	return 0;
}

void knob_label(const char *val, char *buf, size_t len)
{
	char *p;

	if (strlen(val) > 24)
		snprintf(buf, len, "<%zu bytes>", strlen(val));
	else
		snprintf(buf, len, "%s", val);
	for (p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = '~';
}

bool knob_exists(const char *name)
{
	bool bits;

	return file_exists(name) || knob73(name, &bits);
}

void ksft_begin_needing(const char *name, const char *what)
{
	ksft_print_header();
	if (!knob_exists(name))
		ksft_exit_skip("kernel without %s (no %s%s)\n", what, THP_DIR, name);
}

void ksft_need_program(const char *prog, const char *input)
{
	if (access(prog, X_OK) || access(input, R_OK))
		ksft_exit_skip("no %s or %s in this root file system\n", prog, input);
}

void knob_write_or_fail(const char *name, const char *value)
{
	if (knob_write(name, value))
		ksft_exit_fail_msg("cannot set %s%s=%s\n", THP_DIR, name, value);
}

FILE *proc_entry_open(const struct dirent *e, const char *file)
{
	char path[300];

	if (e->d_name[0] < '0' || e->d_name[0] > '9')
		return NULL;
	snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, file);
	return fopen(path, "r");
}

/*
 * every knob a hugetext test may touch: the knob table's
 * (tools/lib/hugetext/knobs.list, made into hugetext_knobs.h by "hugetext
 * knobs --format=c"), then THP's
 */
static const char *const thp_names[] = {
	"enabled", "defrag", "hugepages-2048kB/enabled",
	"khugepaged/scan_sleep_millisecs", "khugepaged/pages_to_scan",
	"khugepaged/alloc_sleep_millisecs", "khugepaged/defrag",
};
#define NR_SAVED (NR_KNOB_SPECS + sizeof(thp_names) / sizeof(thp_names[0]))
static char saved_vals[NR_SAVED][64];
static bool saved_ok[NR_SAVED];
static bool saved;

static const char *saved_name(size_t i)
{
	return i < NR_KNOB_SPECS ? knob_specs[i].file : thp_names[i - NR_KNOB_SPECS];
}

void knobs_restore(void)
{
	size_t i;

	if (!saved)
		return;
	/* hugetext first, so THP knobs are restored with it already in place */
	for (i = 0; i < NR_SAVED; i++) {
		if (saved_ok[i])
			knob_write(saved_name(i), saved_vals[i]);
	}
}

static void restore_on_signal(int sig)
{
	knobs_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

void knobs_save(void)
{
	size_t i;

	for (i = 0; i < NR_SAVED; i++) {
		char *v = saved_vals[i];

		saved_ok[i] = false;
		if (!knob_exists(saved_name(i)))
			continue;
		if (knob_read(saved_name(i), v, sizeof(saved_vals[i])))
			continue;
		/* "always [madvise] never" files are restored by their selected word */
		if (strchr(v, '[') &&
		    knob_read_mode(saved_name(i), v, sizeof(saved_vals[i])))
			continue;
		saved_ok[i] = true;
	}
	if (!saved) {
		saved = true;
		atexit(knobs_restore);
		signal(SIGINT, restore_on_signal);
		signal(SIGTERM, restore_on_signal);
	}
}

static const struct knob_spec *knob_spec(const char *name)
{
	size_t i;

	for (i = 0; i < NR_KNOB_SPECS; i++)
		if (!strcmp(knob_specs[i].file, name))
			return &knob_specs[i];
	printf("# %s is not in the knob table (tools/lib/hugetext/knobs.list)\n", name);
	return NULL;
}

const char *knob_table_file(int i)
{
	return i >= 0 && i < NR_KNOB_SPECS ? knob_specs[i].file : NULL;
}

/* a number of the table on this machine: PMD-relative ones on its PMD size */
static long knob_num(const struct knob_num *v)
{
	return v->pmd ? (long)pmd_size() + v->n : v->n;
}

long knob_min(const char *name)
{
	const struct knob_spec *k = knob_spec(name);

	return k ? knob_num(&k->min) : -1;
}

long knob_max(const char *name)
{
	const struct knob_spec *k = knob_spec(name);

	return k ? knob_num(&k->max) : -1;
}

/* write @val to @name; a failure unless it gives @want_err and reads @want */
static int knob_expect(const char *name, const char *val, int want_err, long want)
{
	char got[64], lbl[64], now[64];
	int err = knob_write(name, val);

	if (knob_read(name, got, sizeof(got)))
		snprintf(got, sizeof(got), "unreadable");
	if (err == want_err && knob_read_long(name) == want)
		return 0;
	knob_label(val, lbl, sizeof(lbl));
	knob_label(got, now, sizeof(now));
	printf("# %s: writing \"%s\": %s, now %s (want %s, %ld)\n", name, lbl,
	       err ? strerror(-err) : "accepted", now,
	       want_err ? strerror(-want_err) : "accepted", want);
	return 1;
}

int knob_check_range(const char *name, int *n)
{
	const struct knob_spec *k = knob_spec(name);
	long vals[3], before = knob_read_long(name);
	char buf[32];
	int i, nl, fails = 0;

	*n = 0;
	if (!k)
		return 1;
	vals[0] = knob_num(&k->min);
	vals[1] = knob_num(&k->max);
	vals[2] = knob_num(&k->def);
	for (i = 0; i < 3; i++)
		for (nl = 0; nl < 2; nl++, ++*n) {
			snprintf(buf, sizeof(buf), "%ld%s", vals[i], nl ? "\n" : "");
			fails += knob_expect(name, buf, 0, vals[i]);
		}
	snprintf(buf, sizeof(buf), "%ld", before);
	knob_write(name, buf);
	return fails;
}

int knob_check_bad(const char *name, int *n)
{
	const struct knob_spec *k = knob_spec(name);
	long before = knob_read_long(name), keep;
	char buf[32], bad[64];
	int i, j, fails = 0;

	*n = 0;
	if (!k)
		return 1;
	/* from both ends of the range: a bad value taken as either shows */
	for (j = 0; j < 2; j++) {
		keep = knob_num(j ? &k->max : &k->min);
		for (i = 0; i < k->nbad; i++) {
			const struct knob_bad *b = &k->bad[i];
			const char *val = b->s;

			if (b->pmd) {	/* the PMD size + n, then the string */
				struct knob_num num = { b->pmd, b->n };

				snprintf(bad, sizeof(bad), "%ld%s", knob_num(&num), b->s);
				val = bad;
			}
			snprintf(buf, sizeof(buf), "%ld", keep);
			knob_write(name, buf);
			/* a zero-length write never reaches ->store(): it changes nothing */
			fails += knob_expect(name, val, *val ? -EINVAL : 0, keep);
		}
	}
	*n = k->nbad;
	snprintf(buf, sizeof(buf), "%ld", before);
	knob_write(name, buf);
	return fails;
}

void khugepaged_fast(void)
{
	knob_write("khugepaged/scan_sleep_millisecs", "100");
	knob_write("khugepaged/alloc_sleep_millisecs", "100");
	knob_write("khugepaged/pages_to_scan", "16384");
}

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned long pmd_size(void)
{
	long v = knob_read_long("hpage_pmd_size");

	return v > 0 ? (unsigned long)v : 2UL << 20;
}

static bool parse_map_line(const char *line, unsigned long *s, unsigned long *e,
			   char *perms, unsigned long *off, char *path, size_t plen)
{
	int pos = 0;

	if (sscanf(line, "%lx-%lx %4s %lx %*s %*s%n", s, e, perms, off, &pos) < 4)
		return false;
	line += pos;
	while (*line == ' ')
		line++;
	snprintf(path, plen, "%s", line);
	path[strcspn(path, "\n")] = '\0';
	/* a file replaced while mapped (rename over it) */
	if (strlen(path) > 10 && !strcmp(path + strlen(path) - 10, " (deleted)"))
		path[strlen(path) - 10] = '\0';
	return true;
}

static FILE *open_proc(int pid, const char *what)
{
	char path[64];

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	else
		snprintf(path, sizeof(path), "/proc/self/%s", what);
	return fopen(path, "r");
}

long smaps_field(int pid, unsigned long start, unsigned long end,
		 const char *field)
{
	char line[512], perms[8], path[256];
	unsigned long s, e, off;
	bool in = false;
	long total = 0, v;
	size_t flen = strlen(field);
	FILE *f = open_proc(pid, "smaps");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (parse_map_line(line, &s, &e, perms, &off, path, sizeof(path)) &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = s < end && e > start;
			continue;
		}
		if (in && !strncmp(line, field, flen) && line[flen] == ':') {
			v = strtol(line + flen + 1, NULL, 10);
			total += v * 1024;
		}
	}
	fclose(f);
	return total;
}

int find_exec_mapping(int pid, const char *suffix, unsigned long *start,
		      unsigned long *end, unsigned long *offset, char *opath,
		      size_t opathlen)
{
	char line[512], perms[8], path[256];
	unsigned long s, e, off;
	size_t sl = strlen(suffix), pl;
	FILE *f = open_proc(pid, "maps");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_map_line(line, &s, &e, perms, &off, path, sizeof(path)))
			continue;
		pl = strlen(path);
		if (perms[2] != 'x' || pl < sl || strcmp(path + pl - sl, suffix))
			continue;
		*start = s;
		*end = e;
		*offset = off;
		if (opath)
			snprintf(opath, opathlen, "%s", path);
		fclose(f);
		return 0;
	}
	fclose(f);
	return -1;
}

unsigned long ideal_huge_bytes(unsigned long start, unsigned long end,
			       unsigned long offset)
{
	unsigned long pmd = pmd_size(), a, b;

	if ((start - offset) % pmd)
		return 0;
	a = (start + pmd - 1) & ~(pmd - 1);
	b = end & ~(pmd - 1);
	return b > a ? b - a : 0;
}

bool khugepaged_wait(int n, int timeout_ms, bool (*poll)(void *), void *arg)
{
	long base = knob_read_long("khugepaged/full_scans");
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int waited = 0;

	for (;;) {
		if (poll && poll(arg))
			return true;
		if (knob_read_long("khugepaged/full_scans") >= base + n)
			break;
		if (waited >= timeout_ms)
			break;
		nanosleep(&ts, NULL);
		waited += 50;
	}
	return poll ? poll(arg) : false;
}

/*
 * khugepaged counts a pass (full_scans) each time its scan wraps around the
 * mms registered with it, and sleeps while none is: a process it was never
 * told about (hugetext=0 or an opt-out, as a case expecting nothing wants)
 * leaves the count still, and a wait for passes would only end at its
 * timeout -- a minute of nothing per case.  So a child registers an mm of
 * its own for the wait: an anonymous read-write-execute VMA with
 * MADV_HUGEPAGE, which khugepaged takes under THP madvise or always (the
 * flag) and under hugetext bit 1 (executable).  It registers only a VMA
 * that has an anon_vma, i.e. a touched page, and a VMA holding a full PMD
 * range: the child maps one PMD range and a page either side and touches
 * the page below it, which no PMD range holds, so khugepaged passes over
 * an empty range and has nothing to collapse.  An mm registered by
 * mistake is scanned in each of the @n passes.
 */
int khugepaged_passes(int n, int timeout_ms, long *ms)
{
	unsigned long pmd = pmd_size(), page = getpagesize();
	int go[2];
	long base;
	double t0 = mono_now();
	pid_t pid;
	char c;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *area, *v;
		int bad = 1;

		close(go[1]);
		/* an opt-out the tested process made is inherited: undone */
		prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
		area = mmap(NULL, 4 * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area != MAP_FAILED) {
			v = (char *)((((unsigned long)area + pmd - 1) & ~(pmd - 1)) +
				     pmd - page);
			if (mmap(v, pmd + 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == v) {
				*(volatile char *)v = 1;
				bad = madvise(v, pmd + 2 * page, MADV_HUGEPAGE);
			}
		}
		/* until the parent closes its end (or dies) */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(bad);
	}
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		return -1;
	}
	base = knob_read_long("khugepaged/full_scans");
	khugepaged_wait(n, timeout_ms, NULL, NULL);
	close(go[1]);
	waitpid(pid, NULL, 0);
	if (ms)
		*ms = (long)((mono_now() - t0) * 1000);
	return (int)(knob_read_long("khugepaged/full_scans") - base);
}

bool khugepaged_running(void)
{
	char comm[64];
	struct dirent *d;
	bool found = false;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		f = proc_entry_open(d, "comm");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "khugepaged\n"))
			found = true;
		fclose(f);
	}
	closedir(dir);
	return found;
}

void *map_range_aligned(const char *path, off_t offset, size_t len)
{
	unsigned long pmd = pmd_size();
	char *area, *aligned, *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return MAP_FAILED;
	area = mmap(NULL, len + pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		close(fd);
		return MAP_FAILED;
	}
	aligned = (char *)(((unsigned long)area + pmd - 1) & ~(pmd - 1));
	p = mmap(aligned, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, offset);
	close(fd);
	if (aligned > area)
		munmap(area, aligned - area);
	munmap(aligned + len, area + len + pmd - (aligned + len));
	return p;
}

void *map_text_aligned(const char *path, size_t *len)
{
	struct stat st;

	if (stat(path, &st))
		return MAP_FAILED;
	*len = st.st_size & ~(getpagesize() - 1UL);
	return map_range_aligned(path, 0, *len);
}

int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (fsync(out) || close(out) || n < 0)
		return -1;
	return 0;
}

static long vmstat_read_one(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, n) && line[n] == ' ') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* counter @name, or the 7.3 series' name of it (counters.list); -1: none */
long vmstat_read(const char *name)
{
	long v = vmstat_read_one(name);
	int i;

	for (i = 0; v < 0 && i < NR_COUNTER_NAMES; i++)
		if (!strcmp(counter_names[i][0], name))
			v = vmstat_read_one(counter_names[i][1]);
	return v;
}

const char *self_dir(void)
{
	static char dir[512];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *slash;

	if (n < 0)
		return ".";
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}

static int thp_disable_setup(void *arg)
{
	return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

int run_helper(char *const argv[], char *out, size_t outlen, struct rusage *ru,
	       bool thp_disable)
{
	return run_helper_setup(argv, out, outlen, ru, thp_disable ? thp_disable_setup : NULL,
				NULL);
}

int run_helper_setup(char *const argv[], char *out, size_t outlen, struct rusage *ru,
		     int (*setup)(void *arg), void *arg)
{
	size_t used = 0;
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pfd[0]);
		dup2(pfd[1], 1);
		if (setup && setup(arg))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	while (out && used + 1 < outlen &&
	       (n = read(pfd[0], out + used, outlen - used - 1)) > 0)
		used += n;
	if (out)
		out[used] = '\0';
	close(pfd[0]);
	if (wait4(pid, &status, 0, ru) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void print_indented(const char *out)
{
	const char *p = out, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		printf("#   %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

long parse_after(const char *out, const char *key)
{
	const char *p = strstr(out, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

long meminfo_kb(const char *key)
{
	size_t n = strlen(key);
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			kb = atol(line + n + 1);
			break;
		}
	if (f)
		fclose(f);
	return kb;
}

/* FileHugePages of /proc/meminfo in kB, -1 if absent */
static long file_huge_kb(void)
{
	return meminfo_kb("FileHugePages");
}

/*
 * Drop the page cache.  A huge folio that is briefly referenced (per-CPU
 * LRU batches, a collapse just finishing) survives one drop and would be
 * PMD-mapped by the next program whatever the knobs say: drop again until
 * no file THP is left, for at most 2 s.
 */
void drop_caches(void)
{
	int i, fd;

	sync();
	for (i = 0; i < 20; i++) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0)
			return;
		if (write(fd, "3", 1) != 1)
			perror("drop_caches");
		close(fd);
		if (file_huge_kb() <= 0)
			return;
		usleep(100000);
	}
}

void khugepaged_defaults(void)
{
	knob_write("khugepaged/scan_sleep_millisecs", "10000");
	knob_write("khugepaged/alloc_sleep_millisecs", "60000");
	knob_write("khugepaged/pages_to_scan", "4096");
}

int sysctl_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755), ok;

	ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len && !fsync(fd);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

long mapping_diff_file(const void *p, size_t len, const char *path)
{
	size_t region = pmd_size(), off, n;
	char *buf = malloc(region);
	int fd = open(path, O_RDONLY);
	long bad = 0;

	if (!buf || fd < 0) {
		bad = -1;
		goto out;
	}
	for (off = 0; off < len; off += region) {
		n = len - off < region ? len - off : region;
		if (pread(fd, buf, n, off) != (ssize_t)n ||
		    memcmp(buf, (const char *)p + off, n))
			bad++;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return bad;
}

size_t ht_emit_ret_imm(unsigned char *p, unsigned int v)
{
#if defined(__x86_64__)
	p[0] = 0xb8;			/* mov $imm32, %eax */
	memcpy(p + 1, &v, 4);
	p[5] = 0xc3;			/* ret */
	return 6;
#else
	uint32_t insn[3] = {
		0x52800000u | ((v & 0xffffu) << 5),	/* movz w0, #lo */
		0x72a00000u | ((v >> 16) << 5),		/* movk w0, #hi, lsl #16 */
		0xd65f03c0u,				/* ret */
	};

	memcpy(p, insn, sizeof(insn));
	return sizeof(insn);
#endif
}

unsigned int ht_ret_imm_of(const unsigned char *p)
{
	uint32_t v;
#if defined(__x86_64__)
	memcpy(&v, p + 1, 4);
	return v;
#else
	uint32_t insn[2];

	memcpy(insn, p, sizeof(insn));
	v = ((insn[0] >> 5) & 0xffff) | (((insn[1] >> 5) & 0xffff) << 16);
	return v;
#endif
}

void ht_code_written(void *p, size_t len)
{
	__builtin___clear_cache((char *)p, (char *)p + len);
}

int elf_phdrs(const char *path, Elf64_Phdr *ph, int max)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY), n = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(*ph) && eh.e_phnum <= max &&
	    pread(fd, ph, eh.e_phnum * sizeof(*ph), eh.e_phoff) ==
	    (ssize_t)(eh.e_phnum * sizeof(*ph)))
		n = eh.e_phnum;
	close(fd);
	return n;
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

int collapse_retry(int pidfd, void *addr, size_t len, int tries, int *used)
{
	struct iovec iov = { addr, len };
	int err, n = 0;

	do {
		n++;
		if (pidfd < 0)
			err = madvise(addr, len, MADV_COLLAPSE) ? errno : 0;
		else
			err = syscall(SYS_process_madvise, pidfd, &iov, 1,
				      MADV_COLLAPSE, 0) < 0 ? errno : 0;
		if (err == EAGAIN && n < tries)
			usleep(20000);
	} while (err == EAGAIN && n < tries);
	if (used)
		*used = n;
	return err;
}
