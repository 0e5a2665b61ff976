// SPDX-License-Identifier: GPL-2.0
/*
 * What the hugetext selftests share that needs no harness: the code they
 * write and run, /proc and sysfs reads and writes, the test's own
 * executable and files, khugepaged's thread, the command line, the
 * kernel's log, and the padded program (the pad and rollback fixtures'
 * static ET_EXEC: written, started, compared with its file, reaped).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sched.h>
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
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>

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

/*
 * a /proc/vmstat counter, -1 if the kernel has none of that name or @name
 * is NULL (a counter the series does not have: hugetext_series.h)
 */
long read_vmstat(const char *name)
{
	return name ? proc_field("/proc/vmstat", name, ' ') : -1;
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
 * Register this mm with khugepaged (unless THP is "never"): a range of
 * its own, outside any code, advised MADV_HUGEPAGE.  The registration
 * lasts as long as the mm; the range is the caller's to unmap
 * (@pmdsize bytes), MAP_FAILED if it could not be mapped.
 */
char *khugepaged_register(size_t pmdsize)
{
	char *reg = mmap(NULL, pmdsize, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (reg != MAP_FAILED)
		madvise(reg, pmdsize, MADV_HUGEPAGE);
	return reg;
}

/*
 * Wake khugepaged (100 ms sleeps) and wait up to @secs seconds for
 * @passes full passes over the mms it scans, this mm one of them
 * (khugepaged_register()).  Returns the passes seen.
 */
int khugepaged_awake(struct thp_settings *settings, size_t pmdsize,
		     int passes, int secs)
{
	char *reg = khugepaged_register(pmdsize);
	unsigned long start = read_num(FULL_SCANS), n = 0;
	int i;

	if (reg != MAP_FAILED)
		reg[0] = 1;
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

/*
 * Wait, up to 2 s, until khugepaged (if it runs) sleeps: five looks 10 ms
 * apart that find it in S state.  A write of its settings or of the knob
 * wakes it for a pass, which a program started meanwhile can meet at its
 * first fault (a collapse of the program's region in flight, the region
 * left cached in small folios if it gives up): the fixtures that park
 * khugepaged start their program once that pass is over.
 */
void khugepaged_settle(void)
{
	char path[64], line[256], *p;
	pid_t pid = khugepaged_pid();
	int i, idle = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; pid > 0 && i < 200 && idle < 5; i++) {
		char state = 0;

		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(line, sizeof(line), f)) {
			p = strrchr(line, ')');
			if (p && p[1] == ' ')
				state = p[2];
		}
		fclose(f);
		idle = state == 'S' || state == 'I' ? idle + 1 : 0;
		usleep(10000);
	}
}

/* a jump at @p (address @from) to @to; its length, 0 on error */
static size_t emit_jump(unsigned char *p, unsigned long from, unsigned long to)
{
#if defined(__x86_64__)
	int rel = (int)(to - (from + 5));

	p[0] = 0xe9;			/* jmp rel32 */
	memcpy(p + 1, &rel, 4);
	return 5;
#elif defined(__aarch64__)
	unsigned int insn = 0x14000000 | (((to - from) >> 2) & 0x3ffffff);	/* b */

	memcpy(p, &insn, 4);
	return 4;
#else
	return 0;
#endif
}

/* store 1 to the 32-bit address @data, then spin */
static size_t emit_store_spin(unsigned char *p, unsigned int data)
{
#if defined(__x86_64__)
	unsigned int one = 1;

	p[0] = 0xc7;			/* movl $1, data */
	p[1] = 0x04;
	p[2] = 0x25;
	memcpy(p + 3, &data, 4);
	memcpy(p + 7, &one, 4);
	p[11] = 0xeb;			/* jmp . */
	p[12] = 0xfe;
	return 13;
#elif defined(__aarch64__)
	unsigned int insn[] = {
		0xd2a00000 | ((data >> 16) << 5),	/* movz x0, #data >> 16, lsl 16 */
		0x52800021,				/* mov w1, #1 */
		0xb9000001,				/* str w1, [x0] */
		0x14000000,				/* b . */
	};

	if (data & 0xffff)
		return 0;
	memcpy(p, insn, sizeof(insn));
	return sizeof(insn);
#else
	return 0;
#endif
}

/* @v as @size little-endian bytes at @p + @off */
static void pad_put(unsigned char *p, size_t off, unsigned long v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[off + i] = v >> (8 * i);
}

/* an ELF64 program header (elf(5)) at @p: a PT_LOAD of @len bytes */
static void pad_phdr(unsigned char *p, unsigned int flags, size_t off,
		     unsigned long vaddr, size_t len)
{
	pad_put(p, 0, PT_LOAD, 4);	/* p_type */
	pad_put(p, 4, flags, 4);	/* p_flags */
	pad_put(p, 8, off, 8);		/* p_offset */
	pad_put(p, 16, vaddr, 8);	/* p_vaddr */
	pad_put(p, 24, vaddr, 8);	/* p_paddr */
	pad_put(p, 32, len, 8);		/* p_filesz */
	pad_put(p, 40, len, 8);		/* p_memsz */
	pad_put(p, 48, 4096, 8);	/* p_align */
}

/* where @layout puts the program's data page, relative to its base */
size_t pad_data(enum pad_layout layout, size_t pmd, size_t tail)
{
	return layout == PAD_RW ? 2 * pmd + tail : layout == PAD_EOF ? 4 * pmd : 3 * pmd;
}

/*
 * The program, an ELF64 ET_EXEC: [base, +4K) headers (R), [base + 4K,
 * base + 2 PMD + tail) text (R+X), then 0xcc to the third boundary, mapped
 * by no segment (PAD_GAP) or as @layout says, and a data page (RW) at
 * pad_data().  Returns 0, or -errno.
 */
int pad_write_elf(const char *path, size_t pmd, size_t base, size_t tail,
		  enum pad_layout layout)
{
	size_t text_end = 2 * pmd + tail, data = pad_data(layout, pmd, tail);
	size_t len = layout == PAD_EOF ? text_end : 3 * pmd + 2 * 4096, n;
	unsigned char *img = malloc(3 * pmd + 2 * 4096);
	int fd, phnum = 3, ret = 0;

	if (!img)
		return -ENOMEM;
	memset(img, 0xcc, 3 * pmd + 2 * 4096);
	memset(img, 0, 4096);
	if (layout != PAD_EOF)
		memset(img + data, 0, 4096);
	/* the ELF header: 64 bytes, the program headers (56 each) after it */
	memcpy(img, ELFMAG, SELFMAG);
	img[EI_CLASS] = ELFCLASS64;
	img[EI_DATA] = ELFDATA2LSB;
	img[EI_VERSION] = EV_CURRENT;
	pad_put(img, 16, ET_EXEC, 2);			/* e_type */
#if defined(__x86_64__)
	pad_put(img, 18, EM_X86_64, 2);			/* e_machine */
#else
	pad_put(img, 18, EM_AARCH64, 2);
#endif
	pad_put(img, 20, EV_CURRENT, 4);		/* e_version */
	pad_put(img, 24, base + pmd / 2, 8);		/* e_entry */
	pad_put(img, 32, 64, 8);			/* e_phoff */
	pad_put(img, 52, 64, 2);			/* e_ehsize */
	pad_put(img, 54, 56, 2);			/* e_phentsize */
	pad_phdr(img + 64, PF_R, 0, base, 4096);
	pad_phdr(img + 64 + 56, PF_R | PF_X, 4096, base + 4096, text_end - 4096);
	/* the data page: file-backed, or bss past the end of the file */
	pad_phdr(img + 64 + 2 * 56, PF_R | PF_W, layout == PAD_EOF ? 0 : data,
		 base + data, 4096);
	if (layout == PAD_EOF)
		pad_put(img + 64 + 2 * 56, 32, 0, 8);	/* p_filesz */
	if (layout == PAD_SEG)		/* the bytes after the text, as they lie */
		pad_phdr(img + 64 + 56 * phnum++, PF_R, text_end, base + text_end,
			 3 * pmd - text_end);
	if (layout == PAD_NEAR)		/* 64K past the text: the data's neighbour */
		pad_phdr(img + 64 + 56 * phnum++, PF_R, 3 * pmd + 4096,
			 base + text_end + (64 << 10), 4096);
	pad_put(img, 56, phnum, 2);			/* e_phnum */
	/* head region -> full region -> tail -> store and spin */
	if (!emit_jump(img + pmd / 2, base + pmd / 2, base + pmd) ||
	    !emit_jump(img + pmd, base + pmd, base + 2 * pmd) ||
	    !emit_store_spin(img + 2 * pmd, base + data))
		ret = -EINVAL;
	fd = ret ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (!ret && fd < 0)
		ret = -errno;
	for (n = 0; !ret && n < len; n += 1 << 20)
		if (pwrite(fd, img + n, MIN(len - n, (size_t)1 << 20), n) < 0)
			ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(img);
	return ret;
}

/* @len bytes of @pid at @addr equal @path's bytes at @off: 1, else 0 */
int pad_same(pid_t pid, unsigned long addr, const char *path, size_t off, size_t len)
{
	static char a[1 << 16], b[1 << 16];
	char name[64];
	int mem, fd, same = 1;
	size_t n, k;

	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	mem = open(name, O_RDONLY);
	fd = open(path, O_RDONLY);
	for (n = 0; mem >= 0 && fd >= 0 && same && n < len; n += k) {
		k = MIN(sizeof(a), len - n);
		same = pread(mem, a, k, addr + n) == (ssize_t)k &&
		       pread(fd, b, k, off + n) == (ssize_t)k && !memcmp(a, b, k);
	}
	if (mem < 0 || fd < 0)
		same = 0;
	if (mem >= 0)
		close(mem);
	if (fd >= 0)
		close(fd);
	return same;
}

/* @pid's program stored 1 at @addr within 3 s: true */
bool pad_wait_store(pid_t pid, unsigned long addr)
{
	unsigned int flag = 0;
	char mem[64];
	int i, fd;

	snprintf(mem, sizeof(mem), "/proc/%d/mem", pid);
	for (i = 0; i < 300 && flag != 1; i++) {
		fd = open(mem, O_RDONLY);
		if (fd >= 0 && pread(fd, &flag, sizeof(flag), addr) != sizeof(flag))
			flag = 0;
		if (fd >= 0)
			close(fd);
		if (flag != 1)
			usleep(10000);
	}
	return flag == 1;
}

/*
 * @path's page cache evicted, and seen empty: a first fault in it is a
 * miss, as in a program started cold; 0, -EBUSY if pages stayed cached
 * through ten tries 10 ms apart, or -errno
 */
int pad_evict(const char *path)
{
	int fd = open(path, O_RDONLY), ret = 0, i;
	struct stat st;

	if (fd < 0)
		return -errno;
	for (i = 0; i < 10; i++) {
		ret = -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (ret || fstat(fd, &st) || !cached_pages(fd, st.st_size))
			break;
		ret = -EBUSY;
		usleep(10000);
	}
	close(fd);
	return ret;
}

/*
 * fork and exec ./@path with the per-process setting @pr, traced if @stop
 * (stopped by its exec's SIGTRAP); the child's pid
 */
pid_t pad_spawn(const char *path, enum pad_pr pr, bool stop)
{
	unsigned long set = pr == PAD_PR_TEXT ? PR_HT_SET | PR_HT_FILE : PR_HT_SET;
	char exe[80];
	pid_t pid;

	snprintf(exe, sizeof(exe), "./%s", path);
	pid = fork();
	if (pid)
		return pid;
	if (pr == PAD_PR_THP_DISABLE) {
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			_exit(126);
	} else if (pr != PAD_PR_KNOB && prctl(PR_SET_HT, set, 0, 0, 0)) {
		_exit(126);
	}
	if (pr == PAD_PR_BACK && prctl(PR_SET_HT, PR_HT_SYSTEM, 0, 0, 0))
		_exit(126);
	if (stop && ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(126);
	execle(exe, exe, (char *)NULL, (char *)NULL);
	_exit(127);
}

/*
 * pad_spawn() (untraced) into *@pid, the caller's to reap, and wait for
 * its store at @addr: 0; -errno if the fork failed, -ETIMEDOUT if the
 * program did not reach its store within 3 s
 */
int pad_start(pid_t *pid, const char *path, enum pad_pr pr, unsigned long addr)
{
	*pid = pad_spawn(path, pr, false);
	if (*pid < 0)
		return -errno;
	return pad_wait_store(*pid, addr) ? 0 : -ETIMEDOUT;
}

/*
 * Why the pad and rollback fixtures cannot run here (a reason for SKIP),
 * or NULL; @pmdsize is set when they can
 */
const char *pad_unsupported(size_t *pmdsize)
{
	static char why[64];
	unsigned char code[16];

	if (access(HT_KNOB, F_OK) || access(PAD_KNOB, F_OK) || access(RODATA_KNOB, F_OK))
		return "no hugetext padding in this kernel";
	if (!emit_jump(code, 0, 0))
		return "no code generator for this architecture";
	if (getpagesize() != 4096) {
		snprintf(why, sizeof(why), "page size %d: the program is laid out for 4K",
			 getpagesize());
		return why;
	}
	*pmdsize = read_pmd_pagesize();
	if (!*pmdsize)
		return "Unable to read PMD size";
	if (!huge_cache_fs())
		return "not ext4, xfs or btrfs: no PMD-sized page cache folios";
	return NULL;
}

/*
 * Save hugetext's knobs and THP's settings into @saved and @settings, set
 * THP's mode to @thp with khugepaged parked (a 600 s pace)
 */
void pad_save(struct pad_saved *saved, struct thp_settings *settings,
	      enum thp_enabled thp)
{
	saved->mode = mode_read();
	saved->thr = read_num(PAD_KNOB);
	saved->rodata = read_num(RODATA_KNOB);
	thp_save_settings();
	thp_read_settings(settings);
	settings->thp_enabled = thp;
	settings->khugepaged.scan_sleep_millisecs = 600000;
	settings->khugepaged.alloc_sleep_millisecs = 600000;
}

void pad_restore(const struct pad_saved *saved)
{
	mode_write(saved->mode);
	path_write_num(PAD_KNOB, saved->thr);
	path_write_num(RODATA_KNOB, saved->rodata);
	thp_restore_settings();
}

/* SIGKILL and reap *@pid if it is a child still to reap */
void pad_reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

/*
 * Run the caller, and the children it forks after, on the CPU it is on:
 * 0 or -errno.  A file the test writes or reads and a child then runs
 * leave their newest page cache folios in that CPU's LRU batch; the
 * collapse a child's fault queues drains only its own CPU's batch (the
 * rest is khugepaged's, which drains every CPU's), so a case that tests
 * that collapse keeps both on one CPU.  The harness forks each case, so
 * the affinity ends with it.
 */
int run_on_one_cpu(void)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}
