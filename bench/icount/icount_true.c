// SPDX-License-Identifier: GPL-2.0
/*
 * icount-true: a static program that only exits 0, the program fault-loop's
 * exec mode runs.  No libc: its own work is a handful of instructions, so
 * an exec window's count is the kernel's exec, fork, exit and wait paths.
 */
void _start(void) __attribute__((noreturn));

void _start(void)
{
#if defined(__x86_64__)
	__asm__ volatile("syscall" :: "a"(231), "D"(0));	/* exit_group */
#elif defined(__aarch64__)
	register long x0 __asm__("x0") = 0;
	register long x8 __asm__("x8") = 94;			/* exit_group */

	__asm__ volatile("svc #0" :: "r"(x0), "r"(x8));
#else
#error "icount-true: x86-64 and arm64 only"
#endif
	for (;;)
		;
}
