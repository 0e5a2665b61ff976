// SPDX-License-Identifier: GPL-2.0
/*
 * What a program's exec gave it, reported by the program itself: see
 * hugetext_report.h.  Linked into the tests that run themselves again.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "hugetext_series.h"
#include "hugetext_report.h"

extern const char hugetext_blob[];
asm(".pushsection .text.hugetext_blob, \"ax\"\n"
	".globl hugetext_blob\n"
	".hidden hugetext_blob\n"
	"hugetext_blob:\n"
	".skip 0x400000\n"
	".popsection\n");

/*
 * FilePmdMapped (kB) of the smaps entry holding @region, -1 if @region is
 * 0; the congruence and the load base of the mapping holding @addr
 */
static long report_smaps(unsigned long region, unsigned long addr, unsigned long pmd,
			 int *congruent, unsigned long *base)
{
	unsigned long start, end, off;
	int in_region = 0;
	long pmd_kb = -1, kb;
	char line[512];
	FILE *smaps;

	smaps = fopen("/proc/self/smaps", "r");
	while (smaps && fgets(line, sizeof(line), smaps)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3) {
			in_region = region && start <= region && region < end;
			if (start <= addr && addr < end) {
				*congruent = pmd && (start - off) % pmd == 0;
				*base = start - off;
			}
		} else if (in_region && sscanf(line, "FilePmdMapped: %ld kB", &kb) == 1) {
			pmd_kb = kb;
		}
	}
	if (smaps)
		fclose(smaps);
	return pmd_kb;
}

static void __attribute__((constructor)) hugetext_report(void)
{
	/* this function is in the text segment, with the blob */
	unsigned long addr = (unsigned long)hugetext_report;
	const char *fd = getenv("HUGETEXT_REPORT");
	unsigned long pmd, region, base = 0;
	long pmd_kb_start, pmd_kb;
	int congruent = -1;

	if (!fd)
		return;
	pmd = read_pmd_pagesize();
	region = pmd ? ((unsigned long)hugetext_blob + pmd - 1) & ~(pmd - 1) : 0;
	if (!region || region + pmd > (unsigned long)hugetext_blob + BLOB_SIZE)
		region = 0;
	/* before the blob's first touch: what its exec mapped */
	pmd_kb_start = report_smaps(region, addr, pmd, &congruent, &base);
	if (region)
		FORCE_READ(*(char *)region);
	pmd_kb = report_smaps(region, addr, pmd, &congruent, &base);
	dprintf(atoi(fd), "%d %d %lu %lx %ld %ld\n", prctl(PR_GET_HT, 0, 0, 0, 0),
		congruent, getauxval(AT_SECURE), base, pmd_kb, pmd_kb_start);
	_exit(0);
}

int drop_to(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

int run_report(const char *exe, unsigned long pr, uid_t uid, struct report *r)
{
	char buf[80], env[32];
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char *argv[2], *envp[2];

		argv[0] = (char *)exe;
		argv[1] = NULL;
		envp[0] = env;
		envp[1] = NULL;
		close(p[0]);
		snprintf(env, sizeof(env), "HUGETEXT_REPORT=%d", p[1]);
		if (pr != PR_KEEP && prctl(PR_SET_HT, pr, 0, 0, 0))
			_exit(2);
		if (uid && drop_to(uid))
			_exit(3);
		execve(exe, argv, envp);
		_exit(4);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%d %d %d %lx %ld %ld", &r->prctl, &r->congruent, &r->secure,
		      &r->base, &r->pmd_kb, &r->pmd_kb_start) == 6 ? 0 : -1;
}

/*
 * Read from its ELF header (64-bit, native order): e_type at 16, e_phoff
 * at 32, e_phentsize at 54, e_phnum at 56; p_type first in a phdr.
 */
bool self_is_pie(void)
{
	unsigned short type, phentsize, phnum;
	unsigned char eh[64];
	unsigned long phoff;
	bool interp = false;
	unsigned int ptype;
	int fd, i;

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return false;
	if (pread(fd, eh, sizeof(eh), 0) == sizeof(eh) && eh[EI_CLASS] == ELFCLASS64) {
		memcpy(&type, eh + 16, sizeof(type));
		memcpy(&phoff, eh + 32, sizeof(phoff));
		memcpy(&phentsize, eh + 54, sizeof(phentsize));
		memcpy(&phnum, eh + 56, sizeof(phnum));
		for (i = 0; type == ET_DYN && i < phnum; i++)
			if (pread(fd, &ptype, sizeof(ptype), phoff + i * phentsize) ==
			    sizeof(ptype) && ptype == PT_INTERP)
				interp = true;
	}
	close(fd);
	return interp;
}
