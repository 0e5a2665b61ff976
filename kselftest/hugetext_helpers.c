// SPDX-License-Identifier: GPL-2.0
/*
 * What the hugetext selftests share that needs no harness: the code they
 * write and run, /proc and sysfs reads and writes, the test's own
 * executable and files, khugepaged's thread, the command line and the
 * kernel's log.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/mman.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#include "hugetext_series.h"
#include "hugetext_helpers.h"

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC		0x58465342
#endif

/* a function returning @n, at @p */
size_t emit_fn(unsigned char *p, unsigned int n)
{
#if defined(__x86_64__)
	p[0] = 0xb8;			/* mov $n, %eax */
	memcpy(p + 1, &n, 4);
	p[5] = 0xc3;			/* ret */
	return 6;
#elif defined(__aarch64__)
	unsigned int insn[2] = {
		0x52800000 | ((n & 0xffff) << 5),	/* mov w0, #n */
		0xd65f03c0,				/* ret */
	};

	memcpy(p, insn, sizeof(insn));
	return sizeof(insn);
#else
	return 0;
#endif
}

/* the number after "@name@sep" in the file @path, -1 if no line has it */
long proc_field(const char *path, const char *name, char sep)
{
	char line[128];
	size_t len = strlen(name);
	long v = -1;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == sep)
			v = strtol(line + len + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* a /proc/vmstat counter, -1 if the kernel has none of that name */
long read_vmstat(const char *name)
{
	return proc_field("/proc/vmstat", name, ' ');
}

int path_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -errno;
}

/* @v in decimal to @path: 0 or -errno */
int path_write_num(const char *path, unsigned long v)
{
	char val[24];

	snprintf(val, sizeof(val), "%lu", v);
	return path_write(path, val);
}

/* is the current directory on a filesystem with PMD-sized page cache folios? */
bool huge_cache_fs(void)
{
	struct statfs sfs;

	return !statfs(".", &sfs) &&
	       (sfs.f_type == EXT4_SUPER_MAGIC || sfs.f_type == XFS_SUPER_MAGIC ||
		sfs.f_type == BTRFS_SUPER_MAGIC);
}

/* @path: @len bytes of functions, one a 4K page returning its number */
int write_functions(const char *path, size_t len)
{
	unsigned char page[4096];
	int fd, ret = 0;
	size_t off;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	for (off = 0; !ret && off < len; off += sizeof(page)) {
		memset(page, 0xcc, sizeof(page));	/* int3 / padding */
		emit_fn(page, off / sizeof(page));
		if (pwrite(fd, page, sizeof(page), off) != (ssize_t)sizeof(page))
			ret = -EIO;
	}
	if (!ret && fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* the path of this test's executable into @buf: 0, or -1 */
int self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* copy @from to a new file @to (mode 0755), synced: 0, or -1 */
int file_copy(const char *from, const char *to)
{
	static char buf[1 << 16];
	int in = open(from, O_RDONLY), out = -1, ret = -1;
	ssize_t n = -1;

	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (out >= 0 && n == 0 && !fsync(out))
		ret = 0;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

/* the pid of the khugepaged thread, 0 if it does not run */
pid_t khugepaged_pid(void)
{
	char path[64], comm[32];
	struct dirent *d;
	pid_t pid = 0;
	DIR *dir = opendir("/proc");
	FILE *f;

	while (dir && !pid && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "khugepaged\n"))
			pid = atoi(d->d_name);
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return pid;
}

/* pages of @fd's first @len bytes in the page cache (mincore()); 0 on error */
long cached_pages(int fd, size_t len)
{
	size_t n = (len + 4095) / 4096, i;
	unsigned char *vec = malloc(n ? n : 1);
	void *p = len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	long cached = 0;

	if (vec && p != MAP_FAILED && !mincore(p, len, vec))
		for (i = 0; i < n; i++)
			cached += vec[i] & 1;
	if (p != MAP_FAILED)
		munmap(p, len);
	free(vec);
	return cached;
}

/* /proc/meminfo's @name in kB, -1 if absent */
long meminfo_kb(const char *name)
{
	return proc_field("/proc/meminfo", name, ':');
}

int remove_entry(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	return remove(path);
}

/* @name in the directory of this test's executable, into @buf */
int lib_beside_self(const char *name, char *buf, size_t size)
{
	char self[PATH_MAX];
	char *slash;

	if (self_exe(self, sizeof(self)))
		return -1;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return snprintf(buf, size, "%s/%s", self, name) < (int)size ? 0 : -1;
}

/* the value of @name= on the kernel command line, NULL if it has none */
const char *cmdline_value(const char *name)
{
	static char cmdline[4096];
	size_t len = strlen(name);
	const char *val = NULL;
	char *arg;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return NULL;
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = '\0';
	fclose(f);
	for (arg = strtok(cmdline, "\n "); arg; arg = strtok(NULL, "\n "))
		if (!strncmp(arg, name, len) && arg[len] == '=')
			val = arg + len + 1;
	return val;
}

/* how many times @what is in the kernel's log buffer, -1 if unreadable */
int klog_count(const char *what)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n = 0;
	char *log = len > 0 ? malloc(len + 1) : NULL, *p;

	if (!log)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, len);
	if (len < 0) {
		free(log);
		return -1;
	}
	log[len] = '\0';
	for (p = log; (p = strstr(p, what)); p++)
		n++;
	free(log);
	return n;
}

/* is a khugepaged thread running? */
bool khugepaged_thread(void)
{
	return khugepaged_pid() > 0;
}

/*
 * khugepaged_thread() == @want within 2 s: a stopped kthread stays in
 * /proc until it is reaped
 */
bool khugepaged_running(bool want)
{
	int i;

	for (i = 0; i < 20 && khugepaged_thread() != want; i++)
		usleep(100000);
	return khugepaged_thread();
}

/*
 * Call every function of [@start, @start + @len) of @text (file offsets)
 * once: the number of page faults that took, or -1 if a function returned
 * the wrong number (bytes executed that are not the file's).
 */
long run_range(char *text, size_t start, size_t len)
{
	struct rusage r0, r1;
	long bad = 0;
	size_t off;

	getrusage(RUSAGE_SELF, &r0);
	for (off = start; off < start + len; off += 4096)
		if (((fn_t)(text + off))() != off / 4096)
			bad++;
	getrusage(RUSAGE_SELF, &r1);
	if (bad)
		return -1;
	return (r1.ru_minflt - r0.ru_minflt) + (r1.ru_majflt - r0.ru_majflt);
}

/*
 * MADV_COLLAPSE of [@p, @p + @len), again every 20 ms (50 times at most)
 * while it loses a race (EAGAIN): 0, or the errno of the last call
 */
int collapse_retry(char *p, size_t len)
{
	int i, ret = 0;

	for (i = 0; i < 50; i++) {
		ret = madvise(p, len, MADV_COLLAPSE) ? errno : 0;
		if (ret != EAGAIN)
			break;
		usleep(20000);
	}
	return ret;
}

/* CLOCK_MONOTONIC, in seconds */
double storm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* map the code range @code, @len over the reservation with @prot, @flags */
char *jit_map(char *code, size_t len, int prot, int flags)
{
	return mmap(code, len, prot,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | flags, -1, 0);
}

/* write a function into every page of the code range */
void jit_emit(char *code, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += 4096) {
		memset(code + off, 0xcc, 4096);
		emit_fn((unsigned char *)code + off, off / 4096);
	}
	__builtin___clear_cache(code, code + len);
}

/*
 * Wake khugepaged (100 ms sleeps) and wait up to @secs seconds for
 * @passes full passes over the mms it scans.  This mm is one of them
 * unless THP is "never": a range of its own, outside the code, advised
 * MADV_HUGEPAGE registers it.  Returns the passes seen.
 */
int khugepaged_awake(struct thp_settings *settings, size_t pmdsize,
		     int passes, int secs)
{
	char *reg = mmap(NULL, pmdsize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long start = read_num(FULL_SCANS), n = 0;
	int i;

	if (reg != MAP_FAILED) {
		madvise(reg, pmdsize, MADV_HUGEPAGE);
		reg[0] = 1;
	}
	settings->khugepaged.scan_sleep_millisecs = 100;
	settings->khugepaged.alloc_sleep_millisecs = 100;
	settings->khugepaged.pages_to_scan = 16384;
	thp_write_settings(settings);
	for (i = 0; i < secs * 10; i++) {
		n = read_num(FULL_SCANS) - start;
		if (n >= (unsigned long)passes)
			break;
		usleep(100000);
	}
	if (reg != MAP_FAILED)
		munmap(reg, pmdsize);
	return n;
}

/* call every function: the number that returned a wrong value */
long jit_run(char *code, size_t len)
{
	long bad = 0;
	size_t off;

	for (off = 0; off < len; off += 4096)
		if (((fn_t)(code + off))() != off / 4096)
			bad++;
	return bad;
}

/* @pid's executable mappings of @path: their span, FilePmdMapped in bytes */
long pad_smaps(pid_t pid, const char *path, unsigned long *start,
	       unsigned long *end)
{
	char name[64], line[512], perms[8], file[256];
	unsigned long s, e;
	long kb, sum = 0;
	bool in = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/smaps", pid);
	f = fopen(name, "r");
	if (!f)
		return -1;
	*start = ULONG_MAX;
	*end = 0;
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &s, &e, perms, file) >= 3) {
			size_t fl = strlen(file), pl = strlen(path);

			in = strchr(perms, 'x') && fl >= pl && !strcmp(file + fl - pl, path);
			if (in) {
				*start = MIN(*start, s);
				*end = MAX(*end, e);
			}
		} else if (in && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1) {
			sum += kb << 10;
		}
	}
	fclose(f);
	return sum;
}
