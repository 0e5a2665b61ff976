#!/usr/bin/env python3
"""Emit an assembly file (x86-64, or arm64 with --arch aarch64) with NFUNCS
functions, one per 4 KB page: ht_fn_<i> returns i * 2654435761 mod 2**32 (a
value no neighbouring page returns), and ht_fn_table[] points at each.  The
text spans NFUNCS pages, so a test program gets a text segment of known size
made of real code.
    gen_bigtext.py [--arch x86_64|aarch64] NFUNCS"""
import sys

args = sys.argv[1:]
arch = "x86_64"
if args[:1] == ["--arch"]:
    arch, args = args[1], args[2:]
if arch not in ("x86_64", "aarch64") or len(args) != 1:
    sys.exit("usage: gen_bigtext.py [--arch x86_64|aarch64] NFUNCS")
n = int(args[0])


def body(v):
    if arch == "x86_64":
        return [f"\tmovl ${v}, %eax", "\tret"]
    return [f"\tmovz w0, #{v & 0xffff}", f"\tmovk w0, #{v >> 16}, lsl #16", "\tret"]


out = ["\t.text"]
for i in range(n):
    out += ["\t.p2align 12", f"\t.globl ht_fn_{i}", f"\t.type ht_fn_{i},%function",
            f"\t.hidden ht_fn_{i}", f"ht_fn_{i}:"] + body((i * 2654435761) & 0xffffffff) + \
           [f"\t.size ht_fn_{i},.-ht_fn_{i}"]
# .data.rel.ro: the table is relocated at load time in a PIE or a DSO
out += ['\t.section .data.rel.ro,"aw"', "\t.p2align 3", "\t.globl ht_fn_table",
        "\t.type ht_fn_table,%object", f"\t.size ht_fn_table,{8 * n}", "ht_fn_table:"]
out += [f"\t.quad ht_fn_{i}" for i in range(n)]
out += ["\t.globl ht_nr_fns", "\t.type ht_nr_fns,%object", "\t.size ht_nr_fns,8",
        "ht_nr_fns:", f"\t.quad {n}",
        '\t.section .note.GNU-stack,"",%progbits']
sys.stdout.write("\n".join(out) + "\n")
