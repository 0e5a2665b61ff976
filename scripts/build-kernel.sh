#!/usr/bin/env bash
# Configure and build the kernel in KOUT/src (out/src; HUGETEXT_KERNEL picks
# the kernel of scripts/kernels.list) for the arch HUGETEXT_ARCH picks
# (scripts/arches.list; cross-compiled when it names a prefix) into
# AOUT/build-NAME (O=), copy the image to AOUT/IMAGE (out/bzImage,
# out/arm64/Image; base.sh's arch_select).  Config = tinyconfig + the arch's
# boot fragment (scripts/qemu.config, scripts/qemu-arm64.config) + the
# kernel's fragment (Kconfig.fragment, patches/7.3/Kconfig.fragment) (+ extra
# fragments given as arguments), merged by the kernel's merge_config.sh,
# then verified: every symbol a fragment asks for must be in the final
# .config (a symbol the tree does not define is reported, not checked).
#
#   build-kernel.sh [--name NAME] [--src DIR --build DIR [--targets "T..."]]
#                   [--stock] [FRAGMENT...]
# NAME (default "main") selects AOUT/build-NAME and AOUT/IMAGE[-NAME].
# --stock builds the kernel without the series, AOUT/IMAGE-stock, from a
# git worktree of KOUT/src at hugetext-base (KOUT/stock-src), same
# configuration (make bench's NAME-stock modes: upstream, measured).
# --src/--build build another tree (scripts/bisect-build.sh) and copy no image;
# --targets makes those targets (objects) instead of the image.
# A build killed midway is redone where it left off (build_begin, base.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
name=main src="$KOUT/src" build= image= targets=$IMAGE stock=
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--src) src=$(cd "$2" && pwd); shift 2 ;;
	--build) mkdir -p "$2"; build=$(cd "$2" && pwd); shift 2 ;;
	--targets) targets=$2; shift 2 ;;
	--stock) stock=1 name=stock src="$KOUT/stock-src"; shift ;;
	--) shift; break ;;
	-*) echo "build-kernel: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ -z "$build" ]; then
	build="$AOUT/build-$name"
	image="$AOUT/$IMAGE"
	[ "$name" = main ] || image="$AOUT/$IMAGE-$name"
fi
rig_begin build-kernel
if [ -n "$stock" ]; then
	# a worktree left by an older KOUT/src (fetch-source.sh made it anew)
	# is stale: made again
	if [ ! -e "$src/.git" ] || ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$src"
		git -C "$KOUT/src" worktree prune
		git -C "$KOUT/src" worktree add -q --detach "$src" hugetext-base
	fi
	git -C "$src" checkout -q --detach hugetext-base
fi
frags=("$AFRAG" "$KFRAG")
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done
build_begin "$build"
jobs=$(( $(nproc) + 1 ))
cc=${CROSS}gcc
command -v ccache >/dev/null && cc="ccache $cc"
# outside out/ so that "make clean" and fresh clones on this machine reuse it
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hugetext-ccache}"
# hash paths relative to the checkout, so that clones at other paths hit
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}"
# depend mode: a miss costs one compile, no extra preprocessor run to hash
# (measured on the 7.3 tree's mm/, fs/ext4/ and kernel/sched/, empty
# cache: 42 s in depend mode, 51 s in ccache's default mode, 42 s without
# ccache; all hits: 2.4 s either way).  A cold make check compiles six
# kernels.
export CCACHE_DEPEND="${CCACHE_DEPEND:-1}"

kmake=(make -s -C "$src" O="$build" ARCH="$KARCH" ${CROSS:+CROSS_COMPILE=$CROSS})
# The configuration is made again only when what it is made of changed:
# the tree's Kconfig files, kconfig and the top Makefile (index and
# working tree), the fragments, the arch and the compiler (Kconfig asks it
# what it supports).  A bisect prefix that changes no Kconfig file keeps
# its predecessor's .config: tinyconfig, merge, olddefconfig and the
# check below cost 12 s of a prefix's 18 s (6.12, measured).
cfgkey=$( {
	echo "$KARCH ${CROSS:-}"
	"${CROSS}gcc" --version | head -n 1
	git -C "$src" ls-files -s -- ':(glob)**/Kconfig*' scripts/kconfig Makefile
	git -C "$src" status --porcelain -- ':(glob)**/Kconfig*' scripts/kconfig Makefile
	cat "${frags[@]}"
} | sha256sum | cut -d' ' -f1)
# make_config: tinyconfig + the fragments, merged, then every symbol they
# ask for checked in the .config
make_config() {
	"${kmake[@]}" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "${frags[@]}" >"$build/merge.log"
	"${kmake[@]}" olddefconfig >/dev/null

	# merge_config.sh only warns: fail on any requested symbol that did not stick.
	# The last fragment that names a symbol wins, as in merge_config.sh.
	declare -A want=()
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) want[${line%%=*}]=n ;;
		CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; want[${sym%% *}]=n ;;
		esac
	done < <(cat "${frags[@]}" | sed 's/[[:space:]]*$//')
	bad=0
	for sym in "${!want[@]}"; do
		have=$(grep -E "^$sym=" "$build/.config" | cut -d= -f2- || true)
		if [ "${want[$sym]}" = n ]; then
			[ -z "$have" ] || { echo "build-kernel: $sym=n requested, .config has $sym=$have" >&2; bad=1; }
		elif [ "$have" != "${want[$sym]}" ]; then
			# a prefix of the series before the patch that adds the symbol
			if [ -z "$have" ] && ! grep -rqsE --include='Kconfig*' \
				"^[[:space:]]*(menu)?config ${sym#CONFIG_}\$" "$src"; then
				echo "build-kernel: $sym is not defined in this tree: not checked"
				continue
			fi
			echo "build-kernel: $sym=${want[$sym]} requested, .config has ${have:-it unset}" \
			     "(a missing dependency?)" >&2
			bad=1
		fi
	done
	[ $bad -eq 0 ] || { echo "build-kernel: config verification failed" >&2; exit 1; }
}
cfgmark=$build/.hugetext-config
if [ -f "$build/.config" ] && [ -f "$cfgmark" ] &&
   [ "$(cat "$cfgmark")" = "$cfgkey $(sha256sum <"$build/.config" | cut -d' ' -f1)" ]; then
	echo "build-kernel: the configuration's inputs are unchanged: $build/.config kept"
else
	rm -f "$cfgmark"
	make_config
	echo "$cfgkey $(sha256sum <"$build/.config" | cut -d' ' -f1)" >"$cfgmark"
fi

echo "build-kernel: building $name for $ARCH_NAME ($(grep -c '=y' "$build/.config") symbols =y, -j$jobs)${targets:+: $targets}"
# shellcheck disable=SC2086 # targets: a list
if ! rig_run "${kmake[@]}" CC="$cc" -j"$jobs" $targets >"$build/build.log" 2>&1; then
	build_end "$build"
	grep -E -B2 -A8 'error|Error' "$build/build.log" | head -n 60 >&2
	echo "build-kernel: build failed, see $build/build.log" >&2
	exit 1
fi
if grep -E 'warning:' "$build/build.log" | grep -v -e 'objtool' >"$build/warnings.log"; then
	echo "build-kernel: compiler warnings:" >&2; cat "$build/warnings.log" >&2
fi
# the uapi headers the tree's own selftests build with (usr/include)
if [ "$name" = main ] && ! rig_run "${kmake[@]}" headers \
		>"$build/headers.log" 2>&1; then
	build_end "$build"
	tail -n 20 "$build/headers.log" >&2
	echo "build-kernel: make headers failed, see $build/headers.log" >&2
	exit 1
fi
build_end "$build"
if [ -n "$image" ]; then
	src_state "$src" >"$image.src-state.tmp"
	cp "$build/$IMAGE_PATH" "$image.tmp" && mv "$image.tmp" "$image"
	mv "$image.src-state.tmp" "$image.src-state"
fi
if [ "$targets" = "$IMAGE" ]; then
	echo "build-kernel: ${image:-$build/$IMAGE_PATH} ($(git -C "$src" describe --always --tags 2>/dev/null))"
else
	echo "build-kernel: built $targets ($(git -C "$src" describe --always --tags 2>/dev/null))"
fi
