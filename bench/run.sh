#!/usr/bin/env bash
# make bench: boot the patched kernel once per mode under QEMU (TCG) and run
# real programs in the guest (bench/guest/bench).  The programs are those
# of bench/programs (a directory each), the modes (a kernel command line and
# THP `enabled` each: hugetext, upstream's THP always, the distribution
# default, padding, the cap) those of bench/modes.list.
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
# the modes: bench/modes.list, the one list of them, as
# NAME:KERNEL:ARCH:KERNEL COMMAND LINE:THP enabled
mapfile -t all_modes < <(python3 -B "$top/bench/modes.py")
if [ ${#all_modes[@]} -eq 0 ]; then
	echo "bench: no modes read from bench/modes.list" >&2; exit 1
fi
all_names=$(for m in "${all_modes[@]}"; do echo "${m%%:*}"; done)
all_names=$(echo $all_names)
want=$(echo ${HUGETEXT_BENCH_MODES:-$all_names})
for n in $want; do
	case " $all_names " in *" $n "*) ;; *)
		echo "bench: HUGETEXT_BENCH_MODES: no mode '$n' in bench/modes.list" >&2; exit 2 ;;
	esac
done
# the programs: bench/programs, the one home of them
all_progs=$(python3 -B "$top/bench/programs" names)
progs=${HUGETEXT_BENCH_PROGRAMS:-$all_progs}
for n in ${progs//,/ }; do
	case ",$all_progs," in *",$n,"*) ;; *)
		echo "bench: HUGETEXT_BENCH_PROGRAMS: no program '$n' in bench/programs" >&2; exit 2 ;;
	esac
done
# the kernels the wanted modes boot, as KEY: KERNEL (of scripts/kernels.list,
# or KERNEL-stock: the same without the series) for the first arch of
# scripts/arches.list, KERNEL@ARCH for another; each checked before
# anything runs; and the arches they boot
first_arch=$(arch_names | head -n1)
mode_key() { if [ "$2" = "$first_arch" ]; then echo "$1"; else echo "$1@$2"; fi; }
kernels= arches=
for m in "${all_modes[@]}"; do
	IFS=: read -r name kernel arch _ <<<"$m"
	case " $want " in *" $name "*) ;; *) continue ;; esac
	key=$(mode_key "$kernel" "$arch")
	case " $kernels " in *" $key "*) ;; *) kernels="$kernels $key" ;; esac
	case " $arches " in *" $arch "*) ;; *) arches="$arches $arch" ;; esac
	if ! (kernel_select "${kernel%-stock}") >/dev/null; then
		echo "bench: mode $name: no kernel '${kernel%-stock}' in scripts/kernels.list" >&2; exit 2
	fi
	if ! (arch_select "$arch") >/dev/null; then
		echo "bench: mode $name: no arch '$arch' in scripts/arches.list" >&2; exit 2
	fi
	if [ "$arch" != "$first_arch" ] && [ "$kernel" != "${kernel%-stock}" ]; then
		echo "bench: mode $name: a stock kernel is built for $first_arch only" >&2; exit 2
	fi
done
# kernel_image KEY: the image it boots (out/bzImage, out/7.3/bzImage-stock,
# out/arm64/Image)
kernel_image() (
	local k=${1%@*} a=$first_arch
	[ "$1" = "${1%@*}" ] || a=${1#*@}
	kernel_select "${k%-stock}"
	arch_select "$a"
	if [ "$k" = "${k%-stock}" ]; then echo "$AOUT/$IMAGE"; else echo "$AOUT/$IMAGE-stock"; fi
)
# arch_progs ARCH: the wanted programs its rootfs has (their arches)
arch_progs() {
	local have p out=
	have=$(python3 -B "$top/bench/programs" names "$1")
	for p in ${progs//,/ }; do
		case ",$have," in *",$p,"*) out="$out${out:+,}$p" ;; esac
	done
	echo "$out"
}
rig_begin "make bench"
t0=$(date +%s)

"$top/scripts/deps.sh"
# each mode's image from the Makefile's graph (out/bzImage,
# out/7.3/bzImage-stock, out/arm64/Image: rebuilt when stale)
for key in $kernels; do
	img=$(kernel_image "$key")
	rig_run make -s -C "$top" "${img#"$top"/}"
done

# each arch's rootfs: rebuilt when stale (the Makefile's graph:
# out/rootfs.img, out/arm64/rootfs.img), or when it lacks the PostgreSQL or
# the MariaDB data directory (an image older than the bench's databases)
for a in $arches; do
	rootout=$(arch_select "$a" && echo "$ROOTOUT")
	rig_run make -s -C "$top" "${rootout#"$top"/}/rootfs.img"
	have=$(debugfs -R 'ls /opt/hugetext' "$rootout/rootfs.img" 2>/dev/null || true)
	if ! grep -Eq '(^|[[:space:]])pgdata([[:space:]]|$)' <<<"$have" ||
		! grep -Eq '(^|[[:space:]])mariadb([[:space:]]|$)' <<<"$have"; then
		HUGETEXT_ARCH=$a "$top/scripts/mkrootfs.sh"
	fi
done

mkdir -p "$dir"
rm -rf "$dir/data" "$dir"/bzImage* "$dir/images" "$dir"/console-*.log* "$dir"/output-*.txt* "$dir/results.json" "$dir/report.md" "$dir/coverage.png"
# every mode of a kernel boots the same image, even if it is replaced
# meanwhile (out/bench/images/ARCH/KERNEL: run-qemu.sh reads the arch from
# the path); the report names each image's sha1, and each series' hash
ids=()
bench_image() { local a=$first_arch; [ "$1" = "${1%@*}" ] || a=${1#*@}; echo "$dir/images/$a/${1%@*}"; }
for k in $kernels; do
	mkdir -p "$(dirname "$(bench_image "$k")")"
	cp "$(kernel_image "$k")" "$(bench_image "$k")"
	ids+=(--kernel-sha1 "$k=$(sha1sum "$(bench_image "$k")" | cut -d' ' -f1)")
	[ "${k%@*}" != "${k%-stock}" ] ||
		ids+=(--series "$k=$(kernel_select "${k%@*}" && series_hash "$top")")
done

specs=() failed=0
for m in "${all_modes[@]}"; do
	IFS=: read -r name kernel arch args thp <<<"$m"
	case " $want " in *" $name "*) ;; *) continue ;; esac
	key=$(mode_key "$kernel" "$arch")
	mprogs=$(arch_progs "$arch")
	if [ -z "$mprogs" ]; then
		echo "bench: $name: none of $progs is in the $arch rootfs (bench/programs), not booted"
		continue
	fi
	log="$dir/console-$name.log" res="$dir/output-$name.txt"
	echo "bench: booting $kernel for $arch with $args, THP enabled=$thp ($name: $mprogs)"
	b0=$(date +%s)
	if rig_run "$top/scripts/run-qemu.sh" --log "$log" --results "$res" --timeout 900 \
		--kernel "$(bench_image "$key")" -- \
		$args htrun=bench htthp="$thp" htbench="$mprogs"; then
		:
	else
		echo "bench: the $name guest FAILED (console: $log)"; failed=1
	fi
	grep -a '^== bench: ' "$res" | sed 's/^/  /' || true
	echo "bench: $name took $(( $(date +%s) - b0 )) s"
	specs+=(--mode "$name:$key:$args:$thp:$res")
done

rc=0
python3 "$top/bench/report.py" --out "$dir" "${ids[@]}" "${specs[@]}" || rc=$?
# the iTLB model on the regions the guests mapped (model under QEMU TCG)
if [ -f "$dir/results.json" ]; then
	i0=$(date +%s)
	# another arch's programs replay under its qemu-user, from its rootfs
	foreign=()
	for a in $arches; do
		[ "$a" != "$first_arch" ] || continue
		foreign+=(--foreign "$(arch_select "$a" && echo "$a=${QEMU/qemu-system-/qemu-}=$ROOTOUT/rootfs")")
	done
	python3 "$top/bench/report_itlb.py" --results "$dir/results.json" \
		--rootfs "$out/rootfs" "${foreign[@]}" --out "$dir" || rc=1
	echo "bench: iTLB replays took $(( $(date +%s) - i0 )) s"
fi
echo "bench: $dir/report.md, $dir/results.json, $dir/coverage.png, $dir/itlb.png"
echo "bench: done in $(( $(date +%s) - t0 )) s"
[ $failed -eq 0 ] && [ $rc -eq 0 ]
