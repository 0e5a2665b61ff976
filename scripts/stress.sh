#!/usr/bin/env bash
# make stress: build the series with scripts/debug.config (KASAN, lockdep,
# DEBUG_VM, DEBUG_LIST, ...) and run selftests/hugetext_stress.sh in the guest
# for HUGETEXT_STRESS_SECS (default 600) with seed HUGETEXT_STRESS_SEED
# (default random; printed, and a failure is reproduced with the same seed).
# Pass = every run correct, console clean (no BUG/WARNING/KASAN/lockdep/hung
# task), clean shutdown.  Last line "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${HUGETEXT_STRESS_SECS:-600}
seed=${HUGETEXT_STRESS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
mkdir -p "$top/out/stress"
log="$top/out/stress/console-$seed.log"
"$top/scripts/deps.sh" && "$top/scripts/fetch-source.sh" >/dev/null &&
	"$top/scripts/build-kernel.sh" --name debug "$top/scripts/debug.config" &&
	"$top/scripts/mkrootfs.sh" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
# a copy of the image: other guests (make bench, make demo) may use rootfs.img
img="$top/out/stress/rootfs-$seed.img"
cp --sparse=always "$top/out/rootfs.img" "$img"
echo "stress: seed $seed, $secs s, debug kernel out/bzImage-debug"
"$top/scripts/run-qemu.sh" --kernel "$top/out/bzImage-debug" --log "$log" \
	--rootfs "$img" \
	--timeout $(( secs * 3 + 900 )) -- hugetext=1 htrun=check:stress \
	htstress_secs="$secs" htstress_seed="$seed"
rc=$?
rm -f "$img"
tr -d '\r' <"$log" | grep -E '^(ok|not ok|# (seed|run|counters))'
p=$(tr -d '\r' <"$log" | grep -cE '^ok [0-9]')
f=$(tr -d '\r' <"$log" | grep -cE '^not ok [0-9]')
[ $rc -eq 0 ] || f=$((f + 1))
echo "stress: seed $seed (reproduce: HUGETEXT_STRESS_SEED=$seed make stress)"
echo "$p passed, $f failed"
[ $f -eq 0 ]
