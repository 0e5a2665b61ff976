// SPDX-License-Identifier: GPL-2.0
/*
 * noitimer.so: LD_PRELOAD'ed into PostgreSQL in make bench, guest and
 * host alike, so that both run the same code.  setitimer() does nothing:
 * postgres arms a 10 s SIGALRM (its idle statistics timeout) that under
 * qemu-user 7.2 kills it with SIGSEGV when the alarm arrives (seen with
 * and without the iTLB plugin), and the replays run longer than 10 s.
 * The bench sets no timeout postgres would need.
 */
#include <string.h>
#include <sys/time.h>

int setitimer(int which, const struct itimerval *value, struct itimerval *old)
{
	(void)which;
	(void)value;
	if (old)
		memset(old, 0, sizeof(*old));
	return 0;
}
