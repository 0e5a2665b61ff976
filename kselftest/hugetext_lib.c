// SPDX-License-Identifier: GPL-2.0
/*
 * The shared library of hugetext_placement.c's lib fixture: 2048
 * functions, one a 4K page from hugetext_lib_fn, function i returning i;
 * 8M of text, so at least three full 2M regions wherever the linker puts
 * it.  Built with -shared -nostdlib: nothing but this text, a dynamic
 * symbol table and the headers.
 */
#if defined(__x86_64__)
#define RET_I "movl $\\i, %eax\n\tret\n"
#elif defined(__aarch64__)
#define RET_I "mov w0, #\\i\n\tret\n"
#else
#error "no hugetext_lib_fn for this architecture"
#endif

asm(".text\n"
	".balign 4096\n"
	".globl hugetext_lib_fn\n"
	".type hugetext_lib_fn, %function\n"
	"hugetext_lib_fn:\n"
	".altmacro\n"
	".macro hugetext_lib_ret i\n\t"
	RET_I
	"\t.balign 4096\n"
	".endm\n"
	".set n, 0\n"
	".rept 2048\n"
	"hugetext_lib_ret %n\n"
	".set n, n + 1\n"
	".endr\n"
	".noaltmacro\n"
	".size hugetext_lib_fn, . - hugetext_lib_fn\n");
