#!/usr/bin/env python3
"""Write a self-contained C file of N mid-sized functions (default 120): the
input cc1 compiles in the demo and the bench, long enough under TCG for the
compiler's text to be sampled while it runs."""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
rnd = random.Random(1)
out = []
for i in range(n):
    r = [rnd.randint(2, 99), rnd.randint(1, 7), rnd.randint(1, 255), rnd.randint(3, 33)]
    out.append(f"""
int f{i}(int *a, int n)
{{
	int s = {i};
	for (int k = 0; k < n; k++) {{
		s += a[k] * {r[0]} ^ (s >> {r[1]});
		if (s & {r[2]})
			s -= a[(k + {i}) % n];
		else
			s += k * {r[3]};
	}}
	switch (s & 7) {{
	case 0: s++; break;
	case 1: s *= 3; break;
	case 2: s ^= 0x55; break;
	case 3: s -= 9; break;
	case 4: s = s / 3 + 1; break;
	default: s += n;
	}}
	return s;
}}""")
out.append("\nint main(void)\n{\n\tint a[64] = {0}, s = 0;\n")
out += [f"\ts += f{i}(a, 64);" for i in range(n)]
out.append("\treturn s & 1;\n}\n")
sys.stdout.write("\n".join(out))
