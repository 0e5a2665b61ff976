#!/usr/bin/env bash
# make system: a real Debian 12 system booted from the kernel package that
# make deb builds, installed the normal way, with MariaDB under sysbench.
#
#  1. out/system/base: debootstrap of bookworm (systemd, Debian's userland,
#     initramfs-tools, mariadb-server, sysbench, python3) from the mirror
#     this machine's apt sources name; made once, reused.
#  2. out/system/root: a copy of it; the linux-image and linux-headers
#     packages of make deb (KOUT/deb/ARCH-*, the newest; none: make deb
#     TRIM=qemu first) installed by dpkg inside it (initramfs-tools makes
#     the initramfs), the hugetext tool in /usr/local/sbin, a check unit.
#  3. out/system/system.img (mke2fs -d), booted in QEMU from the installed
#     /boot/vmlinuz-* and /boot/initrd.img-*, once with file text on and
#     once off (scripts/kernels.list's on and off: hugetext=1 and 0 on
#     6.12, transparent_hugepage_exec=file and none on 7.3).  In the
#     guest, hugetext-system-check.service (after mariadb.service)
#     reports on the second serial port:
#       systemctl is-system-running (each failed unit with its result),
#       hugetext status, mariadb.service active, sysbench oltp_read_write
#       prepare and a fixed-event run, mariadbd's text coverage (hugetext
#       stat: every full 2 MB region PMD-mapped with file text on, none
#       off), the kernel log free of BUG/WARNING/Oops;
#     then powers off.  Here: every check must pass, the console must be
#     free of badness, and the machine must have powered off by itself.
#
# SYSTEM_TIMEOUT (seconds a boot may take, default 1800), SYSTEM_EVENTS
# (sysbench events, default 2000).  Ctrl-C stops it (the guest too).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin system
t0=$(date +%s)
die() { echo "system: $*" >&2; exit 1; }
host=$(dpkg --print-architecture)
[ "$DEBARCH" = "$host" ] || die "make system runs the host's arch ($host) only, not $ARCH_NAME"
out=$top/out/system
base=$out/base root=$out/root img=$out/system.img
mkdir -p "$out"

# --- the packages -----------------------------------------------------------
deb=$(ls -t "$KOUT"/deb/"$ARCH_NAME"-*/linux-image-*hugetext*.deb 2>/dev/null | grep -v -- -dbg_ | head -n1 || true)
if [ -z "$deb" ]; then
	echo "system: no package from make deb yet: building one (TRIM=qemu)"
	rig_run env TRIM=qemu "$top/scripts/deb.sh" || die "make deb failed"
	deb=$(ls -t "$KOUT"/deb/"$ARCH_NAME"-*/linux-image-*hugetext*.deb | grep -v -- -dbg_ | head -n1)
fi
release=$(dpkg-deb -f "$deb" Package); release=${release#linux-image-}
hdr=$(ls "$(dirname "$deb")"/linux-headers-"$release"_*.deb 2>/dev/null | head -n1 || true)
echo "system: kernel $release: ${deb#"$top"/}${hdr:+ and linux-headers}"

# --- 1. the base system -----------------------------------------------------
pkgs=systemd,systemd-sysv,udev,dbus,initramfs-tools,kmod,procps,python3,mariadb-server,mariadb-client,sysbench,e2fsprogs,zstd
if [ "$(cat "$base/.hugetext-base" 2>/dev/null)" != "$pkgs" ]; then
	read -r mirror _ < <(debian_mirror) || die "no Debian mirror in this machine's apt sources"
	echo "system: debootstrap bookworm from $mirror (once; ${base#"$top"/})"
	rm -rf "$base" "$base.tmp"
	rig_run debootstrap --variant=minbase --include="$pkgs" bookworm "$base.tmp" "$mirror" \
		>"$out/debootstrap.log" 2>&1 || { tail -n 20 "$out/debootstrap.log" >&2; die "debootstrap failed"; }
	echo "$pkgs" >"$base.tmp/.hugetext-base"
	mv "$base.tmp" "$base"
fi

# --- 2. the installed system ------------------------------------------------
rm -rf "$root"
cp -a "$base" "$root"
rm -f "$root/.hugetext-base"
mkdir -p "$root/tmp/hugetext"
cp "$deb" ${hdr:+"$hdr"} "$root/tmp/hugetext/"
# dpkg in the chroot, as apt would run it on the machine (its postinst runs
# initramfs-tools' hook); /proc for the maintainer scripts
mount -t proc proc "$root/proc"
RIG_ON_STOP='umount "$root/proc" 2>/dev/null || true'
if ! chroot "$root" sh -c 'DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/hugetext/*.deb' >"$out/dpkg.log" 2>&1; then
	umount "$root/proc"
	tail -n 20 "$out/dpkg.log" >&2; die "dpkg -i of the packages failed in the system"
fi
umount "$root/proc"
RIG_ON_STOP=
rm -rf "$root/tmp/hugetext"
[ -f "$root/boot/vmlinuz-$release" ] && [ -f "$root/boot/initrd.img-$release" ] ||
	die "the package installed no /boot/vmlinuz-$release and initrd.img-$release"
python3 "$top/tools/mkzipapp" "$root/usr/local/sbin/hugetext"
echo "hugetext-system" >"$root/etc/hostname"
echo "/dev/vda / ext4 defaults 0 1" >"$root/etc/fstab"
install -m 0755 "$top/scripts/system-check" "$root/usr/local/sbin/hugetext-system-check"
cat >"$root/etc/systemd/system/hugetext-system-check.service" <<'EOF'
[Unit]
Description=hugetext: check this system (make system)
After=multi-user.target mariadb.service
Wants=mariadb.service

[Service]
Type=exec
ExecStart=/usr/local/sbin/hugetext-system-check
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/hugetext-system-check.service \
	"$root/etc/systemd/system/multi-user.target.wants/hugetext-system-check.service"
rm -f "$img"
size=$(( $(du -sm "$root" | cut -f1) + 3072 ))
mke2fs -q -t ext4 -L hugetext-system -d "$root" "$img" "${size}M" || die "mke2fs failed"
echo "system: ${img#"$top"/} (${size} MB)"

# --- 3. boot it -------------------------------------------------------------
boot() {
	local mode=$1 log=$out/console-$1.log st=$out/status-$1.log rc=0 param=$BOOT_OFF
	[ "$mode" = 0 ] || param=$BOOT_ON
	echo "system: booting $release with $param (console: ${log#"$top"/})"
	rm -f "$log" "$st"
	rig_run timeout --foreground --kill-after=10 "${SYSTEM_TIMEOUT:-1800}" \
		"$QEMU" -accel tcg,thread=multi,tb-size=64 -cpu "$QEMU_CPU" -smp 2 -m 3G \
		-kernel "$root/boot/vmlinuz-$release" -initrd "$root/boot/initrd.img-$release" \
		-append "root=/dev/vda rw console=ttyS0 $param htmode=$mode panic=-1 htevents=${SYSTEM_EVENTS:-2000}" \
		-drive file="$img",format=raw,if=virtio,cache=unsafe \
		-display none -monitor none -no-reboot \
		-serial file:"$log" -serial file:"$st" </dev/null || rc=$?
	[ $rc -ne 124 ] || { echo "system: TIMEOUT: the guest ran ${SYSTEM_TIMEOUT:-1800} s" >&2; }
	sed -n 's/^HTSYS //p' "$st" | tr -d '\r' | sed 's/^/  /'
	local bad=0
	if ! grep -q "^HTSYS done" "$st"; then
		echo "system: $param: the check did not finish (qemu exit $rc)" >&2; bad=1
	fi
	if grep -a "^HTSYS" "$st" | grep -q " FAIL"; then bad=1; fi
	# the kernel's own lines (the check's, echoed to the console, are not)
	if grep -a -v HTSYS "$log" | grep -a -n -E 'BUG:|WARNING:|Oops|Call Trace:|Kernel panic|general protection fault' |
	   head -n 5 | grep .; then
		echo "system: $param: kernel badness on the console" >&2; bad=1
	fi
	if ! grep -a -q "reboot: Power down" "$log"; then
		echo "system: $param: the machine did not power off cleanly" >&2; bad=1
	fi
	return $bad
}
fail=0
boot 1 || fail=1
boot 0 || fail=1
echo "system: $([ $fail -eq 0 ] && echo PASS || echo FAIL) in $(( $(date +%s) - t0 )) s"
exit $fail
