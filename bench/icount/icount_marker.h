/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The window markers of bench/icount: instructions with no architectural
 * effect that a guest program executes to open (start) and close (stop) a
 * counting window of icount-plugin.so.  Each carries a tag, 0..255.  The
 * plugin recognises them by their bytes at translation time; the guest
 * program executes them through ICOUNT_START(tag) / ICOUNT_STOP(tag), where
 * tag must be a compile-time constant.
 *
 * x86-64: nopl DISP32(%rax), bytes 0f 1f 80 and the 32-bit displacement
 *   0x4854KKTT (little-endian: TT KK 54 48), "HT" + KK + the tag TT, with
 *   KK = 0x53 ('S') for start and 0x45 ('E') for stop.  A NOP with a memory
 *   operand does not access memory.  Compilers and assemblers emit
 *   multi-byte NOPs only as alignment padding, and always with a zero
 *   displacement (nopl 0x0(%rax), nopw 0x0(%rax,%rax,1)); so do the
 *   kernel's alternatives (x86_nops).  An instruction with these 7 bytes
 *   is therefore only ever executed on purpose (bytes that are never
 *   executed, data, are never translated and cannot match).
 *
 * arm64: orr xzr, x8, xM, ror #IMM6 (ORR, shifted register, 64-bit), word
 *   0xaac0011f | M << 16 | IMM6 << 10, with M = tag & 31 and IMM6 =
 *   0x28 | tag >> 5 for start, 0x30 | tag >> 5 for stop.  In this form
 *   Rd = 31 is XZR, so the result is discarded and nothing changes: no
 *   register, no flags (ORR does not set flags), no memory.  Compilers
 *   never emit an ORR whose destination is XZR (it would be dead code;
 *   the MOV alias is orr xD, xzr, xM, with XZR as a source), and padding
 *   is NOP (hint #0).  HINT space was not used: it has only 128 values,
 *   many allocated (BTI, PAC, ...), and compilers emit those.
 */
#ifndef ICOUNT_MARKER_H
#define ICOUNT_MARKER_H

#define ICOUNT_X86_DISP(stop, tag) \
	(0x48540000u | ((stop) ? 0x4500u : 0x5300u) | ((tag) & 0xffu))
#define ICOUNT_A64_WORD(stop, tag) \
	(0xaac0011fu | (((tag) & 31u) << 16) | \
	 ((((stop) ? 0x30u : 0x28u) | (((tag) >> 5) & 7u)) << 10))

#if defined(__x86_64__)
#define ICOUNT_MARK_(stop, tag) \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0" \
			 :: "i"(ICOUNT_X86_DISP(stop, tag)) : "memory")
#elif defined(__aarch64__)
#define ICOUNT_MARK_(stop, tag) \
	__asm__ volatile(".inst %c0" \
			 :: "i"(ICOUNT_A64_WORD(stop, tag)) : "memory")
#endif

#ifdef ICOUNT_MARK_
/* "memory": the compiler moves no memory access across a marker */
#define ICOUNT_START(tag) ICOUNT_MARK_(0, tag)
#define ICOUNT_STOP(tag)  ICOUNT_MARK_(1, tag)
#endif

#endif
