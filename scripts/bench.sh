#!/usr/bin/env bash
# make bench: boot the patched kernel once per mode under QEMU (TCG) and run
# real programs in the guest (scripts/guest/bench): gcc's cc1, gdb (a PIE),
# llc-14 (a 97 MB-text DSO) and a JIT-like program.  Modes:
#   hugetext    hugetext=3, THP enabled=madvise
#   thp-always  hugetext=0, THP enabled=always   (upstream's best today)
#   default     hugetext=0, THP enabled=madvise  (the distribution default)
# Writes out/bench/results.json, report.md and coverage.png (gnuplot).
#   HUGETEXT_BENCH_MODES="hugetext default"   run some modes only
#   HUGETEXT_BENCH_PROGRAMS=cc1,gdb           run some programs only
# TCG timing is not hardware timing: the report shows coverage, faults and
# memory, not speed.  tools/hugetext bench measures speed on real hardware.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/out"
dir="$out/bench"
. "$top/scripts/base.sh"
rig_lock "make bench"
rig_signals "make bench"
t0=$(date +%s)

"$top/scripts/deps.sh"
if [ ! -f "$out/bzImage" ]; then
	echo "bench: no out/bzImage, building it"
	"$top/scripts/fetch-source.sh"
	rig_run "$top/scripts/build-kernel.sh"
fi

# the rootfs: rebuilt when stale (the Makefile's graph: out/rootfs.img), or
# when it has no PostgreSQL data directory (an image older than the bench)
img="$out/rootfs.img"
rig_run make -s -C "$top" out/rootfs.img
if ! debugfs -R 'ls /opt/hugetext' "$img" 2>/dev/null | grep -q pgdata; then
	"$top/scripts/mkrootfs.sh"
fi

mkdir -p "$dir"
rm -rf "$dir/data" "$dir"/console-*.log* "$dir"/output-*.txt* "$dir/results.json" "$dir/report.md" "$dir/coverage.png"
# every mode boots the same kernel, even if out/bzImage is replaced meanwhile
cp "$out/bzImage" "$dir/bzImage"
ksha=$(sha1sum "$dir/bzImage" | cut -d' ' -f1)
series=$(series_hash "$top")

# NAME:BOOT ARGS:THP enabled.  htknobs= are written under
# /sys/kernel/mm/transparent_hugepage by the guest; scripts/bench-itlb.py
# makes a "tail only" row of a padding mode and an oracle row of a capped one
pad=hugetext_pad_threshold=4096,hugetext_pad_rodata=1
all_modes=(hugetext:hugetext=3:madvise thp-always:hugetext=0:always
	default:hugetext=0:madvise
	"hugetext-pad:hugetext=3 htknobs=$pad:madvise"
	"cap2:hugetext=3 htknobs=$pad,khugepaged/max_nr_hugetext=2:madvise"
	"cap4:hugetext=3 htknobs=$pad,khugepaged/max_nr_hugetext=4:madvise"
	"cap8:hugetext=3 htknobs=$pad,khugepaged/max_nr_hugetext=8:madvise")
want=${HUGETEXT_BENCH_MODES:-$(for m in "${all_modes[@]}"; do echo "${m%%:*}"; done)}
want=$(echo $want)
# the programs: tools/bench/programs.list, the one list of them
all_progs=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import programs
print(",".join(p["name"] for p in programs.read()))' "$top/tools/bench")
progs=${HUGETEXT_BENCH_PROGRAMS:-$all_progs}
specs=() failed=0
for m in "${all_modes[@]}"; do
	IFS=: read -r name args thp <<<"$m"
	case " $want " in *" $name "*) ;; *) continue ;; esac
	log="$dir/console-$name.log" res="$dir/output-$name.txt"
	echo "bench: booting with $args, THP enabled=$thp ($name)"
	b0=$(date +%s)
	if rig_run "$top/scripts/run-qemu.sh" --log "$log" --results "$res" --timeout 600 \
		--kernel "$dir/bzImage" -- \
		$args htrun=bench htthp="$thp" htbench="$progs"; then
		:
	else
		echo "bench: the $name guest FAILED (console: $log)"; failed=1
	fi
	grep -a '^== bench: ' "$res" | sed 's/^/  /' || true
	echo "bench: $name took $(( $(date +%s) - b0 )) s"
	specs+=(--mode "$name:$args:$thp:$res")
done

rc=0
python3 "$top/scripts/bench-report.py" --out "$dir" --series "$series" \
	--kernel-sha1 "$ksha" "${specs[@]}" || rc=$?
# the iTLB model on the regions the guests mapped (model under QEMU TCG)
if [ -f "$dir/results.json" ]; then
	i0=$(date +%s)
	python3 "$top/scripts/bench-itlb.py" --results "$dir/results.json" \
		--rootfs "$out/rootfs" --out "$dir" || rc=1
	echo "bench: iTLB replays took $(( $(date +%s) - i0 )) s"
fi
echo "bench: $dir/report.md, $dir/results.json, $dir/coverage.png, $dir/itlb.png"
echo "bench: done in $(( $(date +%s) - t0 )) s"
[ $failed -eq 0 ] && [ $rc -eq 0 ]
