#!/usr/bin/env bash
# make bench: boot the patched kernel once per mode under QEMU (TCG) and run
# real programs in the guest (scripts/guest/bench).  The programs are the
# lines of tools/bench/programs.list, the modes (a kernel command line and
# THP `enabled` each: hugetext, upstream's THP always, the distribution
# default, padding, the cap) those of tools/bench/modes.list.
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
# the modes: tools/bench/modes.list, the one list of them, as
# NAME:KERNEL COMMAND LINE:THP enabled
mapfile -t all_modes < <(python3 -B "$top/tools/bench/programs.py" modes)
if [ ${#all_modes[@]} -eq 0 ]; then
	echo "bench: no modes read from tools/bench/modes.list" >&2; exit 1
fi
all_names=$(for m in "${all_modes[@]}"; do echo "${m%%:*}"; done)
all_names=$(echo $all_names)
want=$(echo ${HUGETEXT_BENCH_MODES:-$all_names})
for n in $want; do
	case " $all_names " in *" $n "*) ;; *)
		echo "bench: HUGETEXT_BENCH_MODES: no mode '$n' in tools/bench/modes.list" >&2; exit 2 ;;
	esac
done
# the programs: tools/bench/programs.list, the one list of them
all_progs=$(python3 -B "$top/tools/bench/programs.py" names)
progs=${HUGETEXT_BENCH_PROGRAMS:-$all_progs}
for n in ${progs//,/ }; do
	case ",$all_progs," in *",$n,"*) ;; *)
		echo "bench: HUGETEXT_BENCH_PROGRAMS: no program '$n' in tools/bench/programs.list" >&2; exit 2 ;;
	esac
done
rig_begin "make bench"
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
