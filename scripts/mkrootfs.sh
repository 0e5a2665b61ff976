#!/usr/bin/env bash
# Build out/rootfs.img: an ext4 image (mke2fs -d, no root mounts needed) with
# busybox, the guest init, the selftests (static), the hugetext tool with the
# host's python3 and its stdlib, and real Debian programs with their DSOs
# (bench/programs: each program's install.sh).
# For another arch of scripts/arches.list (HUGETEXT_ARCH=arm64):
# ROOTOUT/rootfs.img (out/arm64/rootfs.img) with the selftests
# cross-compiled and Debian's packages for that arch (scripts/userland.list
# and the programs' PACKAGES; scripts/fetch-userland.sh unpacks them into
# ROOTOUT/sysroot); make bench's JVM, node and llc are the host arch's only
# (their program.py's arches).
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
# each series' own kselftest, mm_hugetext_* and mm_hugetext_mainline_*, with
# the uapi headers of that series' kernel build for this arch: AOUT's, and
# the mainline tree's for the arch, MKOUT/build-main)
mainline=$(mainline_kout)
mkout=$mainline
[ -z "$cross" ] || [ -z "$mainline" ] || mkout=$mainline/$ARCH_NAME
build_begin "$out/selftests"
rig_run make -s -C "$top/selftests" OUT="$out/selftests" KSFT="$top/out/src/tools/testing/selftests" \
	CC="${CROSS}gcc" KHDR="$AOUT/build-main/usr/include" MAINLINE="$mainline" \
	MAINLINE_KHDR="${mkout:+$mkout/build-main/usr/include}"
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

# make demo's and the tests' input for cc1
python3 "$top/scripts/gen-demo-input.py" 40 >"$root/opt/hugetext/big.c"
# make bench: its guest script, the iTLB replay's region reader, and its
# programs' definitions (bench/programs, as /opt/hugetext/programs)
install -m 0755 "$top/bench/guest/bench" "$root/opt/hugetext/bench"
install -m 0644 "$top/bench/itlb/kregions.py" "$root/opt/hugetext/kregions.py"
mkdir -p "$root/opt/hugetext/programs"
install -m 0644 "$top/bench/programs/__init__.py" "$root/opt/hugetext/programs/"
# the guest's users: root, and the one that owns PostgreSQL's data
# directory (pguser; bench/programs/pg/install.sh)
pguser=nobody
[ "$(id -u)" -eq 0 ] || pguser=$(id -un)
printf 'root:x:0:0:root:/root:/bin/sh\n%s:x:%d:%d::/tmp:/bin/sh\n' \
	"$pguser" "$(id -u "$pguser")" "$(id -g "$pguser")" >"$root/etc/passwd"
printf 'root:x:0:\n%s:x:%d:\n' "$(id -gn "$pguser")" "$(id -g "$pguser")" \
	>"$root/etc/group"
# the real programs (make bench's; the tests and make demo run cc1, gdb,
# the JVM and node too): each directory of bench/programs with a program
# this arch's rootfs has, its install.sh sourced in a subshell of this
# script (its variables and helpers; dir: the program's directory), and
# the directory itself for the guest's bench (program.py)
mapfile -t progdirs < <(python3 -B "$top/bench/programs" dirs "$ARCH_NAME")
[ ${#progdirs[@]} -gt 0 ] ||
	{ echo "mkrootfs: no program of bench/programs runs on $ARCH_NAME" >&2; exit 1; }
for d in "${progdirs[@]}"; do
	dir=$top/bench/programs/$d
	( . "$dir/install.sh" )
	rsync -a --exclude __pycache__ "$dir/" "$root/opt/hugetext/programs/$d/"
done
echo "mkrootfs: $ARCH_NAME: programs ${progdirs[*]}"

# the image: content + 256 MB of room for the tests
size_kb=$(( $(du -sk "$root" | cut -f1) + 262144 ))
# written aside and renamed: an interrupted build never leaves a partial image
rm -f "$out/rootfs.img.tmp"
mke2fs -q -t ext4 -L hugetext -d "$root" "$out/rootfs.img.tmp" "${size_kb}k"
mv "$out/rootfs.img.tmp" "$out/rootfs.img"
echo "mkrootfs: $out/rootfs.img ($(( size_kb / 1024 )) MB)"
