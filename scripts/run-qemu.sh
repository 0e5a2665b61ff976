#!/usr/bin/env bash
# Boot out/bzImage on out/rootfs.img under QEMU and return the guest's verdict.
#
#   run-qemu.sh --log FILE [--results FILE] [--timeout SEC] [--cpus N]
#               [--kernel IMG] [--rootfs IMG] [--snapshot] [--] CMDLINE-ARGS...
#
# The arch (scripts/arches.list: its emulator, machine, console and status
# devices) is the image's: out/arm64/Image boots in qemu-system-aarch64 on
# out/arm64/rootfs.img (base.sh's image_arch; --rootfs overrides).
# --log FILE: the console (ttyS0, ttyAMA0): the kernel's messages and /init's lines.
# --results FILE (default: the --log FILE with .out for .log): what the
# guest's run printed (TAP, the demo's report, the bench's records), on a
# channel of its own, not the console: a 9p share (mount tag htresults) of
# the directory FILE.9p, which the guest's /init mounts at /results and
# writes "output" into; moved to FILE when the guest is gone (while it
# runs: FILE.9p/output).  Always made, empty if the guest wrote nothing.
# --cpus N (default 2) vCPUs; the guest's init fails the run unless exactly
# N CPUs are online (htcpus=N on the kernel command line).
# --snapshot: the guest's writes to its root filesystem go to a temporary
# overlay that QEMU drops at exit, so several guests can boot one image at
# once (make check's boots that run side by side, scripts/boots.list).
# Multi-threaded TCG by default (one host thread per vCPU); HUGETEXT_KVM=1 opts in to KVM.
# The guest's exit status comes back on a channel of its own (the second
# serial port, ttyS1; on arm64 a virtio console, hvc0: arches.list) as
# "HUGETEXT-EXIT <nonce> <status>" with a nonce made here, never guessed from
# console text.  The console log is then scanned for kernel badness.  A
# timeout, a missing status, or any badness fails with the results' and
# the console's tails.
# A Ctrl-C, SIGTERM or SIGHUP stops the guest at once and exits 130/143/129
# ("run-qemu: interrupted"); qemu stays in the caller's process group
# (timeout --foreground), so a kill of that group reaches it too.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_signals run-qemu
log= results= timeout=600 cpus=2 kernel="$top/out/bzImage" rootfs= snap=
while [ $# -gt 0 ]; do
	case "$1" in
	--log) log=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--rootfs) rootfs=$2; shift 2 ;;
	--snapshot) snap=,snapshot=on; shift ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ -n "$log" ] || { echo "run-qemu: --log FILE is required" >&2; exit 2; }
arch_select "$(image_arch "$kernel")"
[ -n "$rootfs" ] || rootfs=$ROOTOUT/rootfs.img
[ -f "$kernel" ] || { echo "run-qemu: no kernel image $kernel" >&2; exit 2; }
[ -f "$rootfs" ] || { echo "run-qemu: no root filesystem $rootfs" >&2; exit 2; }
case "$cpus" in [1-9]|[1-9][0-9]) ;; *) echo "run-qemu: --cpus wants 1..99, not '$cpus'" >&2; exit 2 ;; esac
[ -n "$results" ] || results=${log%.log}.out
[ "$results" != "$log" ] || results=$log.out
statusf="$log.status"
share="$results.9p"
rm -rf "$log" "$statusf" "$results" "$share"
mkdir -p "$share"
# the results file, also when the run is stopped (rig_stop runs this)
collect() {
	if [ -f "$share/output" ]; then mv -f "$share/output" "$results"; else : >"$results"; fi
	rm -rf "$share"
}
RIG_ON_STOP=collect
nonce=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
# tb-size: QEMU 7.2's translation cache defaults to 1 GiB, so translations
# of code pages that the guest has long freed pile up (a PIE or DSO run at
# a new address each exec is translated again each time); when such a
# page is reused, every store into it invalidates them, one by one.
# Measured in a guest after 300 execs of python3 and gdb and a
# drop_caches: faulting 1500 MB of fresh anonymous memory took 62.7 s
# with one 4K fault of 1.1 s (hugetext=1; RCU stalls in the storm and
# in hugetext_real came from this); with a 64 MB cache 10.9 s, the
# slowest fault 21 ms.
# httcg=single on the guest's command line (a boot of scripts/boots.list)
# runs the vCPUs in turn on one host thread: HotSpot patches compiled code
# while other threads run it (cross-modifying code), and with 2 vCPUs in
# parallel (MTTCG) and the 64 MB cache the JVM died of SIGSEGV at a fresh
# method's entry in 6 of 8 javac runs; with one thread, in none of 3
# (each about 2.5 times slower).
tcg_thread=multi
case " $* " in *" httcg=single "*) tcg_thread=single ;; esac
accel=(-accel tcg,thread=$tcg_thread,tb-size=64 -cpu "$QEMU_CPU")
[ "${HUGETEXT_KVM:-0}" = 1 ] && accel=(-accel kvm -cpu host)
machine=()
[ -z "$QEMU_MACHINE" ] || machine=(-M "$QEMU_MACHINE")
case "$STATUS_DEV" in
ttyS1) status=(-serial file:"$statusf") ;;
hvc0)  status=(-chardev file,id=htstatus,path="${statusf//,/,,}" -device virtio-serial-pci
	       -device virtconsole,chardev=htstatus) ;;
*) echo "run-qemu: scripts/arches.list: no way to give a guest a status channel $STATUS_DEV" >&2; exit 2 ;;
esac

cmdline="console=$CONSOLE root=/dev/vda rw rootfstype=ext4 init=/init panic=-1"
cmdline+=" oops=panic softlockup_panic=1 hung_task_panic=1 loglevel=7 htnonce=$nonce htcpus=$cpus"
cmdline+=" htstatus=$STATUS_DEV $*"

# the guest writes to its root filesystem: keep the image's mtime, so that
# make still sees an image older than the selftests changed since it was built
rootfs_mtime=$(stat -c %y "$rootfs")
rig_run timeout --foreground --kill-after=10 "$timeout" "$QEMU" "${machine[@]}" "${accel[@]}" \
	-smp "$cpus" -m 3G -kernel "$kernel" -append "$cmdline" \
	-drive file="$rootfs",format=raw,if=none,id=htroot,cache=unsafe$snap \
	-device virtio-blk-pci,drive=htroot \
	-fsdev local,id=htresults,path="${share//,/,,}",security_model=none \
	-device virtio-9p-pci,fsdev=htresults,mount_tag=htresults \
	-display none -monitor none -no-reboot \
	-serial file:"$log" "${status[@]}" </dev/null
qrc=$?
touch -d "$rootfs_mtime" "$rootfs"
collect

fail=0
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "run-qemu: TIMEOUT after ${timeout}s ($*)" >&2; fail=1
fi
status=$(tr -d '\r' <"$statusf" 2>/dev/null | grep -a "^HUGETEXT-EXIT $nonce " | awk '{print $3}' | tail -n1)
if [ -z "$status" ]; then
	echo "run-qemu: the guest reported no exit status (qemu exit $qrc)" >&2; fail=1
elif [ "$status" != 0 ]; then
	echo "run-qemu: the guest's run failed with status $status" >&2; fail=1
fi
# rcutorture's console-badness, plus KASAN/lockdep/hung tasks
bad_re='BUG:|WARNING:|Call Trace:|Oops|KASAN|UBSAN|possible recursive locking|possible circular locking|inconsistent lock state|blocked for more than|Kernel panic|general protection fault|list_add corruption|list_del corruption'
if grep -a -n -E "$bad_re" "$log" >"$log.badness"; then
	echo "run-qemu: kernel badness in the console log:" >&2
	head -n 20 "$log.badness" >&2; fail=1
else
	rm -f "$log.badness"
fi
if [ $fail -ne 0 ]; then
	echo "run-qemu: results tail ($results):" >&2
	tail -n 20 "$results" >&2
	echo "run-qemu: console tail ($log):" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
exit 0
