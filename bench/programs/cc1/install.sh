# SPDX-License-Identifier: GPL-2.0
# gcc's cc1 (20 MB of ET_EXEC text; make demo and the tests run it too) and
# its input: a real translation unit, the kernel's scheduler
# (kernel/sched/core.c, 4 MB preprocessed), as this arch's kernel of the rig
# compiles it: preprocessed by the kernel's own make in that kernel's build
# tree, with the code-generation options of its compile command (.core.o.cmd;
# the Makefile builds the arch's kernel before its rootfs)
if [ -z "$cross" ]; then
	cc1=$(gcc -print-prog-name=cc1)
else
	cc1=$(ls "$sys"/usr/lib/gcc/"$libdir"/*/cc1 | tail -n1)
fi
copy_with_libs "$cc1"
ln -sf "${cc1#"$H"}" "$root/usr/bin/cc1"
kbuild=$AOUT/build-main
if [ ! -f "$kbuild/kernel/sched/.core.o.cmd" ]; then
	echo "mkrootfs: ${kbuild#"$top"/} has no built kernel/sched/core.o: build this arch's kernel first (make ${AOUT#"$top"/}/$IMAGE)" >&2
	exit 1
fi
make -s -C "$KOUT/src" O="$kbuild" ARCH="$KARCH" ${CROSS:+CROSS_COMPILE=$CROSS} kernel/sched/core.i
mv "$kbuild/kernel/sched/core.i" "$root/opt/hugetext/cc1-input.i"
python3 - "$kbuild/kernel/sched/.core.o.cmd" >"$root/opt/hugetext/cc1-input.flags" <<'PY'
import shlex, sys
# the compile command's options that are cc1's own (code generation, the
# language); the preprocessor's, the driver's and the warnings' stay out
line = open(sys.argv[1]).readline()
words = shlex.split(line.split(':=', 1)[1].split(';')[0])
keep = [w for w in words
        if w.startswith(('-f', '-m', '-O', '-std=', '-pg'))
        and not w.startswith(('-fmacro-prefix-map', '-fplugin', '-fdiagnostics'))]
print(' '.join(keep))
PY
