#!/usr/bin/env python3
"""Write a self-contained C file of N mid-sized functions (default 120): the
input cc1 compiles in the demo and the bench, long enough under TCG for the
compiler's text to be sampled while it runs.  With --llvm-ir N: N LLVM IR
functions instead, the input of the bench's llc-14.  With --java N: one Java
source file of N classes (40 methods each), the input javac compiles in the
guest's JVM test: enough work for HotSpot to fill megabytes of code cache."""
import random
import sys


def gen_ir(n):
    out = []
    for i in range(n):
        out.append("""define i32 @f%(i)d(i32* %%a, i32 %%n) {
entry:
  br label %%loop
loop:
  %%k = phi i32 [0, %%entry], [%%k1, %%next]
  %%s = phi i32 [%(i)d, %%entry], [%%s3, %%next]
  %%p = getelementptr i32, i32* %%a, i32 %%k
  %%v = load i32, i32* %%p
  %%m = mul i32 %%v, %(a)d
  %%sh = ashr i32 %%s, %(b)d
  %%x = xor i32 %%m, %%sh
  %%s1 = add i32 %%s, %%x
  %%c = and i32 %%s1, %(c)d
  %%z = icmp eq i32 %%c, 0
  br i1 %%z, label %%even, label %%odd
even:
  %%km = mul i32 %%k, %(d)d
  %%s2 = add i32 %%s1, %%km
  br label %%next
odd:
  %%q = sdiv i32 %%s1, 3
  br label %%next
next:
  %%s3 = phi i32 [%%s2, %%even], [%%q, %%odd]
  %%k1 = add i32 %%k, 1
  %%e = icmp slt i32 %%k1, %%n
  br i1 %%e, label %%loop, label %%done
done:
  ret i32 %%s3
}
""" % {'i': i, 'a': i % 97 + 3, 'b': i % 7 + 1, 'c': i % 255 + 1,
       'd': i % 31 + 3})
    return ''.join(out)



def gen_java(n):
    out = ["import java.util.*;\n", "public class Gen { public static void main(String[] a) {} }\n"]
    for c in range(n):
        out.append("class C%d {\n" % c)
        for m in range(40):
            out.append("  static int m%(m)d(List<Integer> l, Map<String, Integer> mp) {"
                       " int s = %(m)d; for (Integer x : l) { s += x * %(c)d;"
                       " if (s %% 7 == %(r)d) mp.put(\"k\" + s, s); }"
                       " return s + C%(nc)d.x%(nm)d(); }\n"
                       "  static int x%(m)d() { return %(cm)d; }\n"
                       % dict(m=m, c=c, r=m % 7, nc=(c + 1) % n, nm=(m + 1) % 40, cm=c * m))
        out.append("}\n")
    return "".join(out)


if sys.argv[1:2] == ['--java']:
    sys.stdout.write(gen_java(int(sys.argv[2])))
    sys.exit(0)
if sys.argv[1:2] == ['--llvm-ir']:
    sys.stdout.write(gen_ir(int(sys.argv[2])))
    sys.exit(0)
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
