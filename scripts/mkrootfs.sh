#!/usr/bin/env bash
# Build out/rootfs.img: an ext4 image (mke2fs -d, no root mounts needed) with
# busybox, the guest init, the selftests (static), the hugetext tool with the
# host's python3 and its stdlib, and real Debian programs with their DSOs.
# For another arch of scripts/arches.list (HUGETEXT_ARCH=arm64):
# ROOTOUT/rootfs.img (out/arm64/rootfs.img) with the selftests
# cross-compiled and the programs of scripts/userland.list, Debian's
# packages for that arch (scripts/fetch-userland.sh unpacks them into
# ROOTOUT/sysroot); make bench's JVM, node and llc are the host arch's only.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin mkrootfs
out="$ROOTOUT"
root="$out/rootfs"
cross=
if [ "$DEBARCH" != "$(dpkg --print-architecture)" ]; then
	rig_run "$top/scripts/fetch-userland.sh"
	cross=1 sys=$out/sysroot
fi
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,var/tmp,mnt,opt/hugetext,usr/bin,usr/lib}
chmod 1777 "$root/tmp" "$root/var/tmp"

# copy FILE and the DSOs ldd names for it, keeping their absolute paths
copy_with_libs() {
	local f lib
	[ -z "$cross" ] || { cross_copy "$@"; return; }
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
}

# cross_copy FILE...: FILE (an absolute path in the sysroot) and the DSOs
# it needs (its DT_NEEDED, read with readelf, found in the sysroot's
# library directories, recursively) into the rootfs; /lib/X goes to
# /usr/lib/X (usr-merge, as the rootfs's /lib is a link)
cross_copy() {
	local f n d found
	for f in "$@"; do
		local dst=${f#"$sys"}
		case "$dst" in /lib/*|/lib64/*) dst=/usr$dst ;; esac
		[ ! -e "$root$dst" ] || continue
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$sys${f#"$sys"}" "$root$dst"
		n=$(readelf -l "$root$dst" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
		[ -z "$n" ] || cross_copy "$n"
		for n in $(readelf -d "$root$dst" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			found=
			for d in /lib/$libdir /usr/lib/$libdir /lib /usr/lib; do
				[ -e "$sys$d/$n" ] && { found=$d/$n; break; }
			done
			[ -n "$found" ] || { echo "mkrootfs: $n (needed by $dst) not in ${sys#"$top"/}" >&2; exit 1; }
			cross_copy "$found"
		done
	done
}
# the arch's multiarch directory (x86_64-linux-gnu, aarch64-linux-gnu)
libdir=$(${CROSS}gcc -print-multiarch 2>/dev/null || true)
[ -n "$libdir" ] || libdir=$(gcc -print-multiarch)
# (the host's own programs, or the sysroot's)
H=
[ -z "$cross" ] || H=$sys

# busybox: the shell and the usual tools (busybox --list: the host's own
# lists the same applets as the foreign arch's busybox-static)
cp "$H/bin/busybox" "$root/bin/busybox"
for app in $(/bin/busybox --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done
# Debian's usr-merge layout for the DSOs ldd names
ln -s usr/lib "$root/lib"
ln -s usr/lib "$root/lib64"
mkdir -p "$root/usr/lib/$libdir"

# the guest init and its helpers
install -m 0755 "$top/scripts/guest/init" "$root/init"
install -m 0755 "$top/scripts/guest/run-tests" "$root/opt/hugetext/run-tests"
install -m 0755 "$top/scripts/guest/demo" "$root/opt/hugetext/demo"
install -m 0644 "$top/scripts/guest/lib.sh" "$root/opt/hugetext/lib.sh"

# selftests (built static by selftests/Makefile, with the arch's compiler;
# the mainline series' own test needs that tree's uapi headers for the
# arch: the host arch's only)
mainline=
[ -n "$cross" ] || mainline=$(mainline_kout)
build_begin "$out/selftests"
rig_run make -s -C "$top/selftests" OUT="$out/selftests" KSFT="$top/out/src/tools/testing/selftests" \
	CC="${CROSS}gcc" MAINLINE="$mainline"
build_end "$out/selftests"
mkdir -p "$root/opt/hugetext/selftests"
find "$out/selftests" -maxdepth 1 -type f ! -name "*.S" ! -name "*.h" -exec cp {} "$root/opt/hugetext/selftests/" \;
cp "$top/selftests/list" "$root/opt/hugetext/selftests/list"

# the tool, with python3 and its standard library (the host's, or the
# arch's from the sysroot): one file, a zipapp of its package with the knob
# table inside (tools/mkzipapp)
python3 "$top/tools/mkzipapp" "$root/opt/hugetext/hugetext"
py=$(readlink -f "$H/usr/bin/python3")
copy_with_libs "$py"
ln -sf "${py#"$H"}" "$root/usr/bin/python3"
pyver=${py##*/}
rsync -a --exclude test --exclude idlelib --exclude tkinter --exclude turtledemo \
	--exclude ensurepip --exclude lib2to3 --exclude '__pycache__' \
	--exclude site-packages --exclude dist-packages \
	"$H/usr/lib/$pyver/" "$root/usr/lib/$pyver/"

# real programs: gcc's cc1 (20 MB of ET_EXEC text) and a preprocessed input
if [ -z "$cross" ]; then
	cc1=$(gcc -print-prog-name=cc1)
else
	cc1=$(ls "$sys"/usr/lib/gcc/"$libdir"/*/cc1 | tail -n1)
fi
copy_with_libs "$cc1"
ln -sf "${cc1#"$H"}" "$root/usr/bin/cc1"
python3 "$top/scripts/gen-demo-input.py" 40 >"$root/opt/hugetext/big.c"
# a real PIE with 6 MB of text and 50-odd DSOs: Debian's gdb
copy_with_libs "$H/usr/bin/gdb"
# make bench: its guest script and inputs
install -m 0755 "$top/bench/guest/bench" "$root/opt/hugetext/bench"
install -m 0644 "$top/bench/programs.list" "$top/bench/programs.py" "$root/opt/hugetext/"
# cc1's input: a real translation unit, the kernel's scheduler
# (kernel/sched/core.c, 4 MB preprocessed), as this arch's kernel of the rig
# compiles it: preprocessed by the kernel's own make in that kernel's build
# tree, with the code-generation options of its compile command (.core.o.cmd;
# the Makefile builds the arch's kernel before its rootfs)
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
install -m 0644 "$top/bench/itlb/kregions.py" "$root/opt/hugetext/kregions.py"
# the guest's users: root, and the PostgreSQL data directory's owner
pguser=nobody
[ "$(id -u)" -eq 0 ] || pguser=$(id -un)
printf 'root:x:0:0:root:/root:/bin/sh\n%s:x:%d:%d::/tmp:/bin/sh\n' \
	"$pguser" "$(id -u "$pguser")" "$(id -g "$pguser")" >"$root/etc/passwd"
printf 'root:x:0:\n%s:x:%d:\n' "$(id -gn "$pguser")" "$(id -g "$pguser")" \
	>"$root/etc/group"
# a JIT-like program (static; bench/guest/jitbench.c emits the arch's code)
"${CROSS}gcc" -static -O2 -Wall -Wextra -o "$root/opt/hugetext/jitbench" "$top/bench/guest/jitbench.c"
# PostgreSQL 15 for make bench (the arch's server and share files), UTC,
# and a data directory made here by the host's initdb, owned by an
# unprivileged user (postgres refuses to run as root; the guest copies it
# before each run).  One directory serves x86-64 and arm64: pg_control's
# layout checks (MAXALIGN 8, little-endian, 8 KB blocks, float8 by value,
# catalog version of the same PostgreSQL 15) are equal, and the server
# refuses a directory that fails them ("database files are incompatible")
pgbin=/usr/lib/postgresql/15/bin
copy_with_libs "$H$pgbin/postgres"
mkdir -p "$root/usr/share/postgresql"
rsync -a "$H/usr/share/postgresql/15/" "$root/usr/share/postgresql/15/"
mkdir -p "$root/usr/share/zoneinfo/Etc"
cp -L /usr/share/zoneinfo/UTC "$root/usr/share/zoneinfo/UTC"
cp -L /usr/share/zoneinfo/Etc/UTC "$root/usr/share/zoneinfo/Etc/UTC"
install -m 0644 "$top/bench/guest/pg-queries.sql" "$root/opt/hugetext/pg-queries.sql"
"${CROSS}gcc" -O2 -Wall -Wextra -shared -fPIC -o "$root/opt/hugetext/noitimer.so" "$top/bench/guest/noitimer.c"
# (made under /tmp: the unprivileged user may not reach out/)
pgtmp=$(mktemp -d /tmp/hugetext-pgdata.XXXXXX)
trap 'rm -rf "$pgtmp"' EXIT
if [ "$(id -u)" -eq 0 ]; then
	chown "$pguser:" "$pgtmp"
	run_pg() { runuser -u "$pguser" -- "$@"; }
else
	run_pg() { "$@"; }
fi
run_pg "$pgbin/initdb" -D "$pgtmp/pgdata" --no-sync -A trust -U postgres \
	--wal-segsize=1 --locale=C -E UTF8 >"$out/initdb.log" 2>&1 ||
	{ echo "mkrootfs: initdb failed, see $out/initdb.log"; exit 1; }
mv "$pgtmp/pgdata" "$root/opt/hugetext/pgdata"
# MariaDB 10.11 for make bench (the arch's mariadbd, the mariadb client for
# its SHUTDOWN, sysbench and their share files), its options
# (bench/guest/mariadb.cnf), its client (bench/guest/sysbench-client), and a
# data directory with sysbench's table made here by the host's MariaDB:
# like PostgreSQL's, one directory serves x86-64 and arm64 (InnoDB's and
# Aria's files are the same on both little-endian 64-bit arches)
copy_with_libs "$H/usr/sbin/mariadbd" "$H/usr/bin/mariadb" "$H/usr/bin/sysbench"
for d in /usr/share/mysql/english /usr/share/mysql/charsets /usr/share/sysbench; do
	mkdir -p "$root$d"
	rsync -a "$H$d/" "$root$d/"
done
install -m 0644 "$top/bench/guest/mariadb.cnf" "$root/opt/hugetext/mariadb.cnf"
install -m 0755 "$top/bench/guest/sysbench-client" "$root/opt/hugetext/sysbench-client"
mdbtmp=$(mktemp -d /tmp/hugetext-mariadb.XXXXXX)
trap 'rm -rf "$pgtmp"; [ -z "${mdbpid:-}" ] || kill "$mdbpid" 2>/dev/null; rm -rf "$mdbtmp"' EXIT
mdbcnf=--defaults-file=$top/bench/guest/mariadb.cnf
mariadb-install-db "$mdbcnf" --datadir="$mdbtmp/data" --skip-test-db \
	--auth-root-authentication-method=normal --skip-name-resolve \
	>"$out/mariadb-prepare.log" 2>&1 ||
	{ echo "mkrootfs: mariadb-install-db failed, see $out/mariadb-prepare.log"; exit 1; }
mariadbd "$mdbcnf" --datadir="$mdbtmp/data" --socket="$mdbtmp/sock" \
	>>"$out/mariadb-prepare.log" 2>&1 &
mdbpid=$!
"$top/bench/guest/sysbench-client" "$mdbtmp/sock" prepare >>"$out/mariadb-prepare.log" 2>&1 ||
	{ echo "mkrootfs: sysbench prepare failed, see $out/mariadb-prepare.log"; exit 1; }
wait "$mdbpid" ||
	{ echo "mkrootfs: mariadbd failed, see $out/mariadb-prepare.log"; exit 1; }
mdbpid=
mv "$mdbtmp/data" "$root/opt/hugetext/mariadb"
if [ -n "$cross" ]; then
	# llc, the JVM and node are the host's x86-64 packages, not in a
	# foreign arch's rootfs (bench/programs.list's arches)
	echo "mkrootfs: $ARCH_NAME: cc1, gdb, PostgreSQL, MariaDB, jitbench, python3 and the selftests"
else
	# llc-14, which does its work in a DSO with 97 MB of text
	# (libLLVM-14.so.1)
	llc=$(readlink -f /usr/bin/llc-14)
	copy_with_libs "$llc"
	ln -sf "$llc" "$root/usr/bin/llc-14"
	python3 "$top/scripts/gen-demo-input.py" --llvm-ir 300 >"$root/opt/hugetext/bench.ll"
	# a real JIT: Debian's OpenJDK 17 (java, javac; bin, conf, lib), with the
	# DSOs its programs and libraries need, and a Java source for javac
	jdk=$(readlink -f /usr/lib/jvm/java-17-openjdk-amd64)
	mkdir -p "$root$jdk"
	rsync -aL --exclude src.zip "$jdk/bin" "$jdk/conf" "$jdk/lib" "$jdk/release" "$root$jdk/"
	find "$jdk/bin" "$jdk/lib" -name '*.so' -o -path "$jdk/bin/*" -type f |
		while read -r f; do copy_with_libs "$f"; done
	ln -sf "$jdk/bin/java" "$root/usr/bin/java"
	ln -sf "$jdk/bin/javac" "$root/usr/bin/javac"
	python3 "$top/scripts/gen-demo-input.py" --java 24 >"$root/opt/hugetext/Gen.java"
	# V8: Debian's node and a JS workload
	copy_with_libs "$(readlink -f /usr/bin/node)"
	[ -e "$root/usr/bin/node" ] || ln -s "$(readlink -f /usr/bin/node)" "$root/usr/bin/node"
	install -m 0644 "$top/bench/guest/work.js" "$root/opt/hugetext/work.js"
fi

# the image: content + 256 MB of room for the tests
size_kb=$(( $(du -sk "$root" | cut -f1) + 262144 ))
# written aside and renamed: an interrupted build never leaves a partial image
rm -f "$out/rootfs.img.tmp"
mke2fs -q -t ext4 -L hugetext -d "$root" "$out/rootfs.img.tmp" "${size_kb}k"
mv "$out/rootfs.img.tmp" "$out/rootfs.img"
echo "mkrootfs: $out/rootfs.img ($(( size_kb / 1024 )) MB)"
