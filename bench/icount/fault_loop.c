// SPDX-License-Identifier: GPL-2.0
/*
 * fault-loop: the guest side of bench/icount.  It runs counting windows,
 * each bracketed by icount markers (icount_marker.h), for icount-plugin.so
 * to count the instructions (kernel and user) that the vCPU executes in
 * them, and prints one line per window with the faults that the window
 * took (getrusage deltas, read outside the window), so the plugin's JSON
 * and this output join by window index.
 *
 *   fault-loop [-r REPEATS] [-c CPU] [options] MODE N
 *
 * Every repeat runs an empty window (no work, the same shape: the same
 * setup, the same mapping size) and then a work window of N; the figure
 * per unit of work is (count(N) - count(empty)) / N, and per fault the
 * same divided by the work window's faults less the empty window's.
 *
 * MODE file -f PATH [-s STRIDE] [-e require|try|none] [-x] [-R]
 *   maps PATH (N * STRIDE bytes from offset 0; created and filled with
 *   return instructions when missing or too short) PROT_READ|PROT_EXEC
 *   MAP_PRIVATE at a 2 MB-aligned address, evicts it from the page cache
 *   (POSIX_FADV_DONTNEED, checked with mincore: -e require, the default,
 *   fails unless no page is resident; try: reports the resident pages;
 *   none: no eviction), then in the window touches one byte every STRIDE
 *   bytes (default 4096): reads it, or with -x calls it (an instruction
 *   fetch fault; the byte must be a return instruction).  A 4 KB-fault
 *   kernel takes N faults, a kernel mapping 2 MB on the first fault one per
 *   2 MB region.  -R: madvise(MADV_RANDOM) on the mapping (no read-around:
 *   a kernel that honours it for the mapping reads 4 KB per fault; the
 *   window's majflt says whether it did).  mmap, madvise, eviction and
 *   munmap are outside the window.
 * MODE anon [-s STRIDE] [-H]
 *   a will-it-scale page_fault1-like loop: in the window, mmap N * STRIDE
 *   bytes of private anonymous memory, write one byte every STRIDE bytes,
 *   munmap.  The empty window maps and unmaps the same size and writes
 *   nothing.  -H: madvise(MADV_NOHUGEPAGE) before the writes.
 * MODE exec [-p PROG]
 *   in the window, N times: fork, execve PROG (default: icount-true beside
 *   this program, a static program that only exits), wait.  Faults are
 *   reported for this process (minflt, majflt) and its children (cminflt,
 *   cmajflt).
 *
 * -c CPU: pin to CPU (sched_setaffinity; default the CPU it starts on), so
 * that all windows are on one vCPU; children of exec inherit it.  The
 * plugin counts everything that vCPU executes in a window: interrupts and
 * other tasks too, which the empty windows measure.
 *
 * The output is "key=value" lines, one per window:
 *   window=I tag=T mode=M n=N cpu=C minflt=.. majflt=.. cminflt=.. cmajflt=..
 *   resident=R (file mode: pages resident before the window)
 * The tag is the marker's: 1 file, 2 anon, 3 exec; 0x80 | that for an
 * empty window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "icount_marker.h"

#ifndef ICOUNT_START
#error "fault-loop: no icount marker for this architecture (x86-64, arm64)"
#endif

#define MB2 (2UL << 20)
#define TAG_FILE 1
#define TAG_ANON 2
#define TAG_EXEC 3
#define TAG_EMPTY 0x80

#if defined(__x86_64__)
static const unsigned char ret_insn[] = { 0xc3 };
#elif defined(__aarch64__)
static const unsigned char ret_insn[] = { 0xc0, 0x03, 0x5f, 0xd6 };
#endif

/* the markers' tags are constants in the instruction: one per case */
static __attribute__((noinline)) void mark(int stop, int tag)
{
	switch (tag | stop << 8) {
	case TAG_FILE: ICOUNT_START(TAG_FILE); break;
	case TAG_ANON: ICOUNT_START(TAG_ANON); break;
	case TAG_EXEC: ICOUNT_START(TAG_EXEC); break;
	case TAG_FILE | TAG_EMPTY: ICOUNT_START(TAG_FILE | TAG_EMPTY); break;
	case TAG_ANON | TAG_EMPTY: ICOUNT_START(TAG_ANON | TAG_EMPTY); break;
	case TAG_EXEC | TAG_EMPTY: ICOUNT_START(TAG_EXEC | TAG_EMPTY); break;
	case 0x100 | TAG_FILE: ICOUNT_STOP(TAG_FILE); break;
	case 0x100 | TAG_ANON: ICOUNT_STOP(TAG_ANON); break;
	case 0x100 | TAG_EXEC: ICOUNT_STOP(TAG_EXEC); break;
	case 0x100 | TAG_FILE | TAG_EMPTY: ICOUNT_STOP(TAG_FILE | TAG_EMPTY); break;
	case 0x100 | TAG_ANON | TAG_EMPTY: ICOUNT_STOP(TAG_ANON | TAG_EMPTY); break;
	case 0x100 | TAG_EXEC | TAG_EMPTY: ICOUNT_STOP(TAG_EXEC | TAG_EMPTY); break;
	default: abort();
	}
}

static void die(const char *what)
{
	fprintf(stderr, "fault-loop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fault-loop [-r REPEATS] [-c CPU] file -f PATH [-s STRIDE] "
		"[-e require|try|none] [-x] [-R] N\n"
		"       fault-loop [-r REPEATS] [-c CPU] anon [-s STRIDE] [-H] N\n"
		"       fault-loop [-r REPEATS] [-c CPU] exec [-p PROG] N\n");
	exit(2);
}

struct opts {
	const char *mode;
	long n;
	int repeats;
	int cpu;
	const char *path;
	const char *prog;
	long stride;
	int evict;		/* 2 require, 1 try, 0 none */
	int fetch;
	int nohuge;
	int random;
};

struct faults {
	long min, maj, cmin, cmaj;
};

static struct faults faults_now(void)
{
	struct rusage s, c;

	if (getrusage(RUSAGE_SELF, &s) || getrusage(RUSAGE_CHILDREN, &c))
		die("getrusage");
	return (struct faults){ s.ru_minflt, s.ru_majflt, c.ru_minflt,
				c.ru_majflt };
}

static void report(int idx, int tag, const struct opts *o, long n,
		   const struct faults *a, const struct faults *b, int cpu,
		   long resident)
{
	int now = sched_getcpu();

	printf("window=%d tag=%d mode=%s n=%ld cpu=%d minflt=%ld majflt=%ld "
	       "cminflt=%ld cmajflt=%ld", idx, tag, o->mode, n, cpu,
	       b->min - a->min, b->maj - a->maj, b->cmin - a->cmin,
	       b->cmaj - a->cmaj);
	if (resident >= 0)
		printf(" resident=%ld", resident);
	if (now != cpu)
		printf(" migrated=1");
	printf("\n");
	fflush(stdout);
}

/* ---- file ---- */

static int file_ok(int fd, const struct opts *o, off_t len)
{
	struct stat st;
	unsigned char b[sizeof(ret_insn)];

	if (fstat(fd, &st))
		die("fstat");
	if (st.st_size < len)
		return 0;
	if (!o->fetch)
		return 1;
	for (long i = 0; i < o->n; i++)
		if (pread(fd, b, sizeof(b), i * o->stride) != (ssize_t)sizeof(b) ||
		    memcmp(b, ret_insn, sizeof(b)))
			return 0;
	return 1;
}

static void file_create(const char *path, off_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	static unsigned char buf[1 << 16];
	off_t done = 0;

	if (fd < 0)
		die(path);
	for (size_t i = 0; i < sizeof(buf); i += sizeof(ret_insn))
		memcpy(buf + i, ret_insn, sizeof(ret_insn));
	while (done < len) {
		size_t w = len - done < (off_t)sizeof(buf) ? (size_t)(len - done) :
			   sizeof(buf);
		ssize_t r = write(fd, buf, w);

		if (r <= 0)
			die("write");
		done += r;
	}
	/* clean pages, so that POSIX_FADV_DONTNEED can drop them */
	if (fsync(fd) || close(fd))
		die("fsync");
}

static long resident_pages(void *p, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE), n = 0;
	size_t np = (len + pg - 1) / pg;
	unsigned char *v = malloc(np);

	if (!v)
		die("malloc");
	if (mincore(p, len, v))
		die("mincore");
	for (size_t i = 0; i < np; i++)
		n += v[i] & 1;
	free(v);
	return n;
}

static void run_file(const struct opts *o)
{
	size_t len = (size_t)(o->n > 0 ? o->n : 1) * o->stride;
	int fd = open(o->path, O_RDONLY), idx = 0;

	if (fd < 0 || !file_ok(fd, o, len)) {
		if (fd >= 0)
			close(fd);
		file_create(o->path, (off_t)len);
		fd = open(o->path, O_RDONLY);
		if (fd < 0)
			die(o->path);
	}
	for (int r = 0; r < o->repeats; r++) {
		for (int empty = 1; empty >= 0; empty--) {
			long n = empty ? 0 : o->n, resident;
			int tag = TAG_FILE | (empty ? TAG_EMPTY : 0);
			/* a reservation to place the file 2 MB-aligned in */
			char *res = mmap(NULL, len + MB2, PROT_NONE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			char *p;
			volatile unsigned char sink = 0;
			struct faults a, b;

			if (res == MAP_FAILED)
				die("mmap reservation");
			p = (char *)(((uintptr_t)res + MB2 - 1) & ~(MB2 - 1));
			if (mmap(p, len, PROT_READ | PROT_EXEC,
				 MAP_PRIVATE | MAP_FIXED, fd, 0) != p)
				die("mmap file");
			if (o->random && madvise(p, len, MADV_RANDOM))
				die("madvise");
			for (int t = 0; ; t++) {
				if (o->evict &&
				    posix_fadvise(fd, 0, len, POSIX_FADV_DONTNEED))
					die("posix_fadvise");
				resident = resident_pages(p, len);
				if (!resident || o->evict < 2)
					break;
				if (t == 4) {
					fprintf(stderr, "fault-loop: %s: %ld pages "
						"still resident after "
						"POSIX_FADV_DONTNEED (mapped "
						"elsewhere? a tmpfs?); -e try "
						"runs anyway\n", o->path,
						resident);
					exit(1);
				}
				usleep(100000);
			}
			a = faults_now();
			mark(0, tag);
			if (o->fetch)
				for (long i = 0; i < n; i++)
					((void (*)(void))(p + i * o->stride))();
			else
				for (long i = 0; i < n; i++)
					sink += *(volatile unsigned char *)
						(p + i * o->stride);
			mark(1, tag);
			b = faults_now();
			(void)sink;
			if (munmap(res, len + MB2))
				die("munmap");
			report(idx++, tag, o, n, &a, &b, o->cpu, resident);
		}
	}
	close(fd);
}

/* ---- anon ---- */

static void run_anon(const struct opts *o)
{
	size_t len = (size_t)(o->n > 0 ? o->n : 1) * o->stride;
	int idx = 0;

	for (int r = 0; r < o->repeats; r++) {
		for (int empty = 1; empty >= 0; empty--) {
			long n = empty ? 0 : o->n;
			int tag = TAG_ANON | (empty ? TAG_EMPTY : 0);
			struct faults a, b;
			char *p;
			int err = 0;

			a = faults_now();
			mark(0, tag);
			p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				err = errno;
			} else {
				if (o->nohuge)
					madvise(p, len, MADV_NOHUGEPAGE);
				for (long i = 0; i < n; i++)
					*(volatile char *)(p + i * o->stride) = 1;
				munmap(p, len);
			}
			mark(1, tag);
			b = faults_now();
			if (err) {
				errno = err;
				die("mmap");
			}
			report(idx++, tag, o, n, &a, &b, o->cpu, -1);
		}
	}
}

/* ---- exec ---- */

static void run_exec(const struct opts *o)
{
	char *const argv[] = { (char *)o->prog, NULL };
	char *const envp[] = { NULL };
	int idx = 0;

	for (int r = 0; r < o->repeats; r++) {
		for (int empty = 1; empty >= 0; empty--) {
			long n = empty ? 0 : o->n, bad = 0;
			int tag = TAG_EXEC | (empty ? TAG_EMPTY : 0);
			struct faults a, b;

			a = faults_now();
			mark(0, tag);
			for (long i = 0; i < n; i++) {
				int st;
				pid_t pid = fork();

				if (pid == 0) {
					execve(o->prog, argv, envp);
					_exit(127);
				}
				if (pid < 0 || waitpid(pid, &st, 0) != pid ||
				    !WIFEXITED(st) || WEXITSTATUS(st))
					bad++;
			}
			mark(1, tag);
			b = faults_now();
			if (bad) {
				fprintf(stderr, "fault-loop: %ld of %ld execs of "
					"%s failed\n", bad, n, o->prog);
				exit(1);
			}
			report(idx++, tag, o, n, &a, &b, o->cpu, -1);
		}
	}
}

static long num(const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min)
		usage();
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "+r:c:f:s:e:xHRp:")) != -1) {
		switch (c) {
		case 'r': o->repeats = (int)num(optarg, 1); break;
		case 'c': o->cpu = (int)num(optarg, 0); break;
		case 'f': o->path = optarg; break;
		case 's': o->stride = num(optarg, (long)sizeof(ret_insn)); break;
		case 'e':
			if (!strcmp(optarg, "require")) o->evict = 2;
			else if (!strcmp(optarg, "try")) o->evict = 1;
			else if (!strcmp(optarg, "none")) o->evict = 0;
			else usage();
			break;
		case 'x': o->fetch = 1; break;
		case 'H': o->nohuge = 1; break;
		case 'R': o->random = 1; break;
		case 'p': o->prog = optarg; break;
		default: usage();
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .repeats = 5, .cpu = -1, .stride = 4096, .evict = 2 };
	static char prog[PATH_MAX];
	cpu_set_t set;

	parse_opts(argc, argv, &o);
	/* options may also follow the mode */
	if (optind >= argc)
		usage();
	o.mode = argv[optind++];
	parse_opts(argc, argv, &o);
	if (optind != argc - 1)
		usage();
	o.n = num(argv[optind], 1);
	if (o.fetch && o.stride % sizeof(ret_insn))
		usage();

	if (o.cpu < 0)
		o.cpu = sched_getcpu();
	if (o.cpu < 0)
		die("sched_getcpu");
	CPU_ZERO(&set);
	CPU_SET(o.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");

	printf("# fault-loop %s n=%ld repeats=%d cpu=%d stride=%ld: one line "
	       "per window, faults from getrusage; the instruction counts are "
	       "icount-plugin.so's (TCG instruction counts, not time), joined "
	       "by window index\n", o.mode, o.n, o.repeats, o.cpu, o.stride);
	fflush(stdout);
	if (!strcmp(o.mode, "file")) {
		if (!o.path)
			usage();
		run_file(&o);
	} else if (!strcmp(o.mode, "anon")) {
		run_anon(&o);
	} else if (!strcmp(o.mode, "exec")) {
		if (!o.prog) {
			ssize_t l = readlink("/proc/self/exe", prog,
					     sizeof(prog) - 16);
			char *slash;

			if (l < 0)
				die("/proc/self/exe");
			prog[l] = 0;
			slash = strrchr(prog, '/');
			strcpy(slash ? slash + 1 : prog, "icount-true");
			o.prog = prog;
		}
		run_exec(&o);
	} else {
		usage();
	}
	return 0;
}
