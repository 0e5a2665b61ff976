#!/usr/bin/env python3
"""Emit an x86-64 assembly file with NFUNCS functions, one per 4 KB page:
ht_fn_<i> returns i * 2654435761 mod 2**32 (a value no neighbouring page
returns), and ht_fn_table[] points at each.  The text spans NFUNCS pages, so
a test program gets a text segment of known size made of real code."""
import sys

n = int(sys.argv[1])
out = ["\t.text"]
for i in range(n):
    out += ["\t.p2align 12", f"\t.globl ht_fn_{i}", f"\t.type ht_fn_{i},@function",
            f"\t.hidden ht_fn_{i}", f"ht_fn_{i}:", f"\tmovl ${(i * 2654435761) & 0xffffffff}, %eax", "\tret",
            f"\t.size ht_fn_{i},.-ht_fn_{i}"]
# .data.rel.ro: the table is relocated at load time in a PIE or a DSO
out += ['\t.section .data.rel.ro,"aw"', "\t.p2align 3", "\t.globl ht_fn_table",
        "\t.type ht_fn_table,@object", f"\t.size ht_fn_table,{8 * n}", "ht_fn_table:"]
out += [f"\t.quad ht_fn_{i}" for i in range(n)]
out += ["\t.globl ht_nr_fns", "\t.type ht_nr_fns,@object", "\t.size ht_nr_fns,8",
        "ht_nr_fns:", f"\t.quad {n}",
        '\t.section .note.GNU-stack,"",@progbits']
sys.stdout.write("\n".join(out) + "\n")
