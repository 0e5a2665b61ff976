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
# NAME:KERNEL:KERNEL COMMAND LINE:THP enabled
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
# the kernels the wanted modes boot (KERNEL of scripts/kernels.list, or
# KERNEL-stock: the same without the series), each checked before anything
# runs
kernels=
for m in "${all_modes[@]}"; do
	IFS=: read -r name kernel _ <<<"$m"
	case " $want " in *" $name "*) ;; *) continue ;; esac
	case " $kernels " in *" $kernel "*) ;; *) kernels="$kernels $kernel" ;; esac
	if ! (kernel_select "${kernel%-stock}") >/dev/null; then
		echo "bench: mode $name: no kernel '${kernel%-stock}' in scripts/kernels.list" >&2; exit 2
	fi
done
# kernel_image KERNEL: the image it boots
kernel_image() (
	kernel_select "${1%-stock}"
	if [ "$1" = "${1%-stock}" ]; then echo "$KOUT/bzImage"; else echo "$KOUT/bzImage-stock"; fi
)
rig_begin "make bench"
t0=$(date +%s)

"$top/scripts/deps.sh"
for k in $kernels; do
	img=$(kernel_image "$k")
	[ ! -f "$img" ] || continue
	echo "bench: no ${img#"$top"/}, building it"
	HUGETEXT_KERNEL=${k%-stock} "$top/scripts/fetch-source.sh"
	if [ "$k" = "${k%-stock}" ]; then
		HUGETEXT_KERNEL=$k rig_run "$top/scripts/build-kernel.sh"
	else
		HUGETEXT_KERNEL=${k%-stock} rig_run "$top/scripts/build-kernel.sh" --stock
	fi
done

# the rootfs: rebuilt when stale (the Makefile's graph: out/rootfs.img), or
# when it has no PostgreSQL data directory (an image older than the bench)
img="$out/rootfs.img"
rig_run make -s -C "$top" out/rootfs.img
if ! debugfs -R 'ls /opt/hugetext' "$img" 2>/dev/null | grep -q pgdata; then
	"$top/scripts/mkrootfs.sh"
fi

mkdir -p "$dir"
rm -rf "$dir/data" "$dir"/bzImage* "$dir"/console-*.log* "$dir"/output-*.txt* "$dir/results.json" "$dir/report.md" "$dir/coverage.png"
# every mode of a kernel boots the same image, even if it is replaced
# meanwhile; the report names each image's sha1, and each series' hash
ids=()
for k in $kernels; do
	cp "$(kernel_image "$k")" "$dir/bzImage-$k"
	ids+=(--kernel-sha1 "$k=$(sha1sum "$dir/bzImage-$k" | cut -d' ' -f1)")
	[ "$k" != "${k%-stock}" ] ||
		ids+=(--series "$k=$(kernel_select "$k" && series_hash "$top")")
done

specs=() failed=0
for m in "${all_modes[@]}"; do
	IFS=: read -r name kernel args thp <<<"$m"
	case " $want " in *" $name "*) ;; *) continue ;; esac
	log="$dir/console-$name.log" res="$dir/output-$name.txt"
	echo "bench: booting $kernel with $args, THP enabled=$thp ($name)"
	b0=$(date +%s)
	if rig_run "$top/scripts/run-qemu.sh" --log "$log" --results "$res" --timeout 600 \
		--kernel "$dir/bzImage-$kernel" -- \
		$args htrun=bench htthp="$thp" htbench="$progs"; then
		:
	else
		echo "bench: the $name guest FAILED (console: $log)"; failed=1
	fi
	grep -a '^== bench: ' "$res" | sed 's/^/  /' || true
	echo "bench: $name took $(( $(date +%s) - b0 )) s"
	specs+=(--mode "$name:$kernel:$args:$thp:$res")
done

rc=0
python3 "$top/scripts/bench-report.py" --out "$dir" "${ids[@]}" "${specs[@]}" || rc=$?
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
