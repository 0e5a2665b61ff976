/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code of hugetext_hotcold: HT_PAGES pages, each one step of a chain
 * that runs through %ecx pages and returns.  ht_run(start, n) enters the
 * chain at @start.  Every page is code that can run, so a region "called"
 * with n = 512 has each of its 4 KB pages executed once per call.
 *
 * Section .text.unlikely.hotcold: the linker puts it at the start of .text,
 * right after hugetext_hotcold.c's own code in the same section, so the
 * program's loop and this chain's entry sit in the text's first, partial
 * 2 MB region, which can never be PMD-mapped; libc follows the chain.
 */
#if defined(__x86_64__)
	.section .text.unlikely.hotcold,"ax",@progbits
	.globl ht_run
	.type ht_run,@function
ht_run:
	movl %esi, %ecx
	jmp *%rdi
	.size ht_run,.-ht_run

	.p2align 12
	.globl ht_blob_start
ht_blob_start:
	.rept HT_PAGES
	decl %ecx
	jz 1f
	jmp 2f
1:	ret
	.p2align 12
2:
	.endr
#elif defined(__aarch64__)
/* the same chain on arm64: the count in w1, the entry in x0 */
	.section .text.unlikely.hotcold,"ax",%progbits
	.globl ht_run
	.type ht_run,%function
ht_run:
	br x0
	.size ht_run,.-ht_run

	.p2align 12
	.globl ht_blob_start
ht_blob_start:
	.rept HT_PAGES
	subs w1, w1, #1
	b.ne 2f
	ret
	.p2align 12
2:
	.endr
#else
#error "hotcold.S: x86-64 or arm64"
#endif
	.globl ht_blob_end
ht_blob_end:
	.section .note.GNU-stack,"",%progbits
