#!/usr/bin/env bash
# make stress: build the series with scripts/debug.config (KASAN, lockdep,
# DEBUG_VM, DEBUG_LIST, PREEMPT, fault injection) and run
# selftests/hugetext_stress.sh twice, with two different seeds, each for
# HUGETEXT_STRESS_SECS (default 600) on a guest with 4 vCPUs and fault
# injection on (htstress_inject=1).  The first seed is HUGETEXT_STRESS_SEED
# (default random), the second the next number; both are printed, and a
# failure is reproduced with the same seed.  Pass = every run correct,
# injected failures hit the collapse paths, no file THP left afterwards,
# console clean (no BUG/WARNING/KASAN/lockdep/hung task), clean shutdown.
# One summary line per seed, then "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin "make stress"
secs=${HUGETEXT_STRESS_SECS:-600}
cpus=4
seed=${HUGETEXT_STRESS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
case "$seed" in ''|*[!0-9]*) echo "stress: HUGETEXT_STRESS_SEED must be a number, not '$seed'" >&2; exit 2 ;; esac
case "$secs" in ''|*[!0-9]*|0) echo "stress: HUGETEXT_STRESS_SECS must be a positive number, not '$secs'" >&2; exit 2 ;; esac
mkdir -p "$top/out/stress"
# the debug image from the Makefile's graph (out/bzImage-debug: rebuilt
# when stale)
"$top/scripts/deps.sh" &&
	rig_run make -s -C "$top" "${AOUT#"$top"/}/$IMAGE-debug" &&
	"$top/scripts/mkrootfs.sh" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
p=0 f=0
summaries=()
for s in "$seed" $(( (seed + 1) % 65536 )); do
	log="$top/out/stress/console-$s.log" tap="$top/out/stress/tap-$s.tap"
	# a copy of the image: other guests (make bench, make demo) may use rootfs.img
	img="$top/out/stress/rootfs-$s.img"
	cp --sparse=always "$top/out/rootfs.img" "$img"
	echo "stress: seed $s, $secs s, $cpus vCPUs, fault injection on, debug kernel out/bzImage-debug"
	t0=$(date +%s)
	rc=0
	rig_run "$top/scripts/run-qemu.sh" --kernel "$top/out/bzImage-debug" --log "$log" --results "$tap" \
		--rootfs "$img" --cpus $cpus \
		--timeout $(( secs * 3 + 900 )) -- hugetext=1 htrun=check:stress \
		htstress_secs="$secs" htstress_seed="$s" htstress_inject=1 htstress_memcg=1 || rc=$?
	rm -f "$img"
	grep -E '^(ok|not ok|# (seed|run|counters))' "$tap"
	sp=$(grep -cE '^ok [0-9]' "$tap")
	sf=$(grep -cE '^not ok [0-9]' "$tap")
	[ $rc -eq 0 ] || sf=$((sf + 1))
	badness=$(grep -c . "$log.badness" 2>/dev/null || echo 0)
	sum=$(sed -n 's/^# summary //p' "$tap" | tail -n1)
	summaries+=("stress: ${sum:-seed=$s (no summary: the guest did not finish)} badness=$badness guest_secs=$(( $(date +%s) - t0 )) result=$([ $sf -eq 0 ] && echo pass || echo FAIL)")
	echo "stress: seed $s (reproduce: HUGETEXT_STRESS_SEED=$s make stress)"
	p=$((p + sp)) f=$((f + sf))
done
printf '%s\n' "${summaries[@]}"
echo "$p passed, $f failed"
[ $f -eq 0 ]
