/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text and data for the tail-padding helpers (mk_padtext.sh): FILL bytes
 * of nops ending in a function that returns 42, so that the program's text
 * ends where mk_padtext.sh wants it; a 1 MB .rodata array with BIG_RODATA;
 * a 2 MB section that is not loaded, with FILE_FILLER, so that the file
 * goes on well past the text.
 */
	.text
	.globl	pad_fill
	.type	pad_fill, %function
pad_fill:
#if defined(__x86_64__)
	.fill	FILL, 1, 0x90
	movl	$42, %eax
	ret
#else
	/* arm64: whole instructions (nop), so up to 3 bytes more than FILL */
	.fill	(FILL + 3) / 4, 4, 0xd503201f
	mov	w0, #42
	ret
#endif
	.size	pad_fill, . - pad_fill

#ifdef BIG_RODATA
	.section .rodata
	.globl	pad_rodata
	.type	pad_rodata, %object
pad_rodata:
	.fill	1048576, 1, 0x5a
	.size	pad_rodata, . - pad_rodata
#endif

#ifdef FILE_FILLER
	.section .hugetext_filler, "", %progbits
	.fill	2097152, 1, 0
#endif
	.section .note.GNU-stack, "", %progbits
