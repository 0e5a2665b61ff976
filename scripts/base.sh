# shellcheck shell=bash
# The rig's shell library, sourced by the other scripts.  The kernels it
# builds are the lines of scripts/kernels.list; kernel_select NAME (or
# HUGETEXT_KERNEL=NAME in the environment, inherited by the scripts a script
# runs) picks one, the first line by default, and sets:
#   KERNEL        its name (6.12, 7.3)
#   BASE_PKG BASE_VERSION BASE_SERIES   Debian's package, pinned version,
#                 and the Linux series it is (the part of the name after
#                 linux-source-)
#   BASE_SUITE    its Debian suite, empty for this machine's own
#   KPATCHES KFRAG KOUT   absolute: the series' directory, the Kconfig
#                 fragment, the output directory (KOUT/src is the tree)
#   BOOT_ON BOOT_OFF  the kernel command line's hugetext for file text,
#                 and without it (hugetext=1; transparent_hugepage_exec=file)
# (top, the checkout, is set by the script that sources this file)
top=${top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# kernel_lines: the kernels' lines of scripts/kernels.list, in order (the
# one reader of its format; kernel_names: their names)
kernel_lines() { sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$top/scripts/kernels.list"; }
kernel_names() { kernel_lines | awk '{print $1}'; }
kernel_select() {
	local want=$1 name pkg ver suite pdir frag out on off
	while read -r name pkg ver suite pdir frag out on off; do
		[ -n "$want" ] || want=$name
		[ "$name" = "$want" ] || continue
		KERNEL=$name BASE_PKG=$pkg BASE_VERSION=$ver BASE_SERIES=${pkg#linux-source-}
		BASE_SUITE=$suite
		[ "$suite" != - ] || BASE_SUITE=
		KPATCHES=$top/$pdir KFRAG=$top/$frag KOUT=$top/$out
		BOOT_ON=$on BOOT_OFF=$off
		export HUGETEXT_KERNEL=$name
		return 0
	done < <(kernel_lines)
	echo "${0##*/}: no kernel '$want' in scripts/kernels.list (have:" \
	     "$(kernel_names | tr '\n' ' '))" >&2
	exit 2
}
kernel_select "${HUGETEXT_KERNEL:-}"

# arch_lines, arch_names: scripts/arches.list (its one reader).
# arch_select NAME (or HUGETEXT_ARCH=NAME; the first line by default) sets:
#   ARCH_NAME KARCH DEBARCH QEMU QEMU_CPU IMAGE_PATH CONSOLE STATUS_DEV
#   CROSS        the cross prefix, empty for none
#   QEMU_MACHINE its -M, empty for QEMU's default
#   AFRAG        the arch's boot fragment (absolute)
#   AOUT         where this arch's output of the selected kernel goes: KOUT
#                for the first arch, KOUT/NAME for the others
#   ROOTOUT      where this arch's rootfs and selftests go: out/ or out/NAME
#   IMAGE        the image's name (bzImage, Image): AOUT/IMAGE[-NAME]
arch_lines() { sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$top/scripts/arches.list"; }
arch_names() { arch_lines | awk '{print $1}'; }
arch_select() {
	local want=$1 first= name karch cross deb qemu mach cpu image cons stat frag vars
	while read -r name karch cross deb qemu mach cpu image cons stat frag vars; do
		[ -n "$first" ] || first=$name
		[ -n "$want" ] || want=$name
		[ "$name" = "$want" ] || continue
		ARCH_NAME=$name KARCH=$karch DEBARCH=$deb QEMU=$qemu QEMU_CPU=$cpu IMAGE_PATH=$image
		CONSOLE=$cons STATUS_DEV=$stat AFRAG=$top/$frag IMAGE=${image##*/}
		CROSS=$cross QEMU_MACHINE=$mach ARCH_VARIANTS=${vars:--}
		[ "$cross" != - ] || CROSS=
		[ "$mach" != - ] || QEMU_MACHINE=
		if [ "$name" = "$first" ]; then
			AOUT=$KOUT ROOTOUT=$top/out
		else
			AOUT=$KOUT/$name ROOTOUT=$top/out/$name
		fi
		export HUGETEXT_ARCH=$name
		return 0
	done < <(arch_lines)
	echo "${0##*/}: no arch '$want' in scripts/arches.list (have:" \
	     "$(arch_names | tr '\n' ' '))" >&2
	exit 2
}
arch_select "${HUGETEXT_ARCH:-}"
# arch_others: "NAME IMAGE FRAGMENT VARIANTS" for each arch after the
# first, whose output is out/NAME/ (the Makefile's rules for them,
# check.sh's steps); VARIANTS: NAME=FRAGMENT,... or "-"
arch_others() {
	local a
	for a in $(arch_names | tail -n +2); do
		(arch_select "$a" && echo "$ARCH_NAME $IMAGE ${AFRAG#"$top"/} $ARCH_VARIANTS")
	done
}
# image_lines: "KERNEL ARCH KOUT IMAGE PATCHES FRAGMENT AFRAGMENT VARIANTS"
# for every kernel of kernels.list on every arch of arches.list, paths
# relative to the checkout: IMAGE is the series' image (out/bzImage,
# out/7.3/bzImage, out/arm64/Image); VARIANTS as in arch_others (the
# Makefile's per-kernel rules)
image_lines() {
	local k a
	for k in $(kernel_names); do
		for a in $(arch_names); do
			(kernel_select "$k" && arch_select "$a" &&
			 echo "$k $a ${KOUT#"$top"/} ${AOUT#"$top"/}/$IMAGE ${KPATCHES#"$top"/}" \
			      "${KFRAG#"$top"/} ${AFRAG#"$top"/} $ARCH_VARIANTS")
		done
	done
}
# image_arch PATH: the arch of a kernel image path under out/ (a directory
# of it named after an arch: out/arm64/Image, out/7.3/arm64/Image), else the
# first arch (out/bzImage)
image_arch() {
	local a
	for a in $(arch_names); do
		case "/$1/" in */"$a"/*) echo "$a"; return 0 ;; esac
	done
	arch_names | head -n1
}

# mainline_kout: the output directory (KOUT) of the mainline kernel (the
# last of kernels.list after the first, the main one), whose series'
# selftest (tools/testing/selftests/mm/hugetext_*.c, hugetext_series.h)
# and upstream mm programs selftests/Makefile builds from its tree, or
# nothing when that tree is not there yet
mainline_kout() {
	local name pkg ver suite pdir frag out rest found= first=1
	while read -r name pkg ver suite pdir frag out rest; do
		[ -z "$first" ] || { first=; continue; }
		[ ! -f "$top/$out/src/tools/testing/selftests/mm/hugetext_series.h" ] || found=$top/$out
	done < <(kernel_lines)
	echo "$found"
}

# A hash of the series file and every patch it lists: what KOUT/src was
# built from.  series_hash TOP [PATCHES-DIR] (default: the selected kernel's).
series_hash() {
	local dir=${2:-$KPATCHES}
	{ cat "$dir/series"; sed -e '/^\s*#/d' -e '/^\s*$/d' "$dir/series" |
		while read -r p; do cat "$dir/$p"; done; } 2>/dev/null | sha1sum | cut -d' ' -f1
}

# apt_suite_opts SUITE: apt options (one a line) for a private apt state in
# out/apt/SUITE that reads SUITE from the Debian mirror this machine's own
# apt sources name (never a host of ours); its lists are fetched on first
# use and by apt_suite_update.
apt_suite_opts() {
	local dir=$top/out/apt/$1
	echo "-oDir::Etc::sourcelist=$dir/sources.list"
	echo "-oDir::Etc::sourceparts=$dir/none"
	echo "-oDir::State::Lists=$dir/lists"
	echo "-oDir::Cache=$dir/cache"
	echo "-oDir::State::status=/var/lib/dpkg/status"
}
apt_suite_update() {
	local suite=$1 dir=$top/out/apt/$1 uri key
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/none"
	# the mirror: the URI of this machine's source that serves Debian's
	# "main" for a release suite (not -security, not a third party)
	read -r uri key < <(debian_mirror) || true
	[ -n "${uri:-}" ] || { echo "apt: no Debian mirror in this machine's apt sources" >&2; return 1; }
	echo "deb [signed-by=$key] $uri $suite main" >"$dir/sources.list"
	local opts; mapfile -t opts < <(apt_suite_opts "$suite")
	apt-get "${opts[@]}" -q update >"$dir/update.log" 2>&1 ||
		{ echo "apt: apt-get update of $suite on $uri failed:" >&2; tail -n 5 "$dir/update.log" >&2; return 1; }
	touch "$dir/updated"
}
# debian_mirror: "URI KEYRING" of the machine's Debian archive source
debian_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822 stanzas: the first whose Suites has a plain release name
		awk -v RS= '/Suites:/ && /Components:.*main/ {
			uri = suite = key = ""
			n = split($0, l, "\n")
			for (i = 1; i <= n; i++) {
				if (l[i] ~ /^URIs:/) { split(l[i], a, " "); uri = a[2] }
				if (l[i] ~ /^Suites:/) { split(l[i], a, " "); suite = a[2] }
				if (l[i] ~ /^Signed-By:/) { split(l[i], a, " "); key = a[2] }
			}
			if (uri ~ /debian\/?$/ && suite !~ /-security|\// && suite != "") {
				if (key == "") key = "/usr/share/keyrings/debian-archive-keyring.gpg"
				print uri, key; exit
			}
		}' "$f"
	done | head -n1 | grep . && return 0
	sed -n 's/^deb \(\[[^]]*\] \)\?\(\S*debian\/\?\) \S.*main.*/\2 \/usr\/share\/keyrings\/debian-archive-keyring.gpg/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n1 | grep .
}

# src_state DIR: what the kernel tree DIR holds: its HEAD and a hash of its
# uncommitted changes.  scripts/build-kernel.sh records it next to each
# image (IMAGE.src-state); the Makefile rebuilds an image whose record
# differs (a commit or an edit in out/src).  No index refresh: read-only.
src_state() {
	echo "$(git -C "$1" rev-parse HEAD 2>/dev/null)" \
	     "$(git --no-optional-locks -C "$1" diff HEAD 2>/dev/null | sha1sum | cut -d' ' -f1)"
}

# --- interruption safety (see Documentation/testing.md) ---------------------
# One Ctrl-C stops any target; no interruption (SIGINT, SIGTERM, SIGHUP, or a
# SIGKILL of the process group) leaves state that breaks the next run.
#
# rig_signals NAME: on SIGINT/SIGTERM/SIGHUP stop the child started with
# rig_run and everything under it (SIGTERM), print
# "NAME: interrupted" and exit 128+signal.  Long children run in the
# background and are waited for, so that the trap runs at once, not when a
# 15-minute guest ends (bash defers traps while a foreground child runs).
rig_signals() {
	RIG_NAME=$1 RIG_CHILD=
	# the stderr the script started with: rig_stop reports there, also
	# when the signal comes while a step's output is redirected to its log
	# (a Ctrl-C of make check once said "interrupted" only in the log of
	# the step it stopped, and nothing on the terminal)
	exec {RIG_ERR}>&2
	trap 'rig_stop INT 130' INT
	trap 'rig_stop TERM 143' TERM
	trap 'rig_stop HUP 129' HUP
}
rig_stop() {
	trap '' INT TERM HUP
	if [ -n "${RIG_CHILD:-}" ]; then
		# the whole tree at once: a make under "sh -c" does not hear
		# of its parent's SIGTERM, and an orphan leaves the tree
		# (RIG_CHILD may list several: make check's boots side by side)
		local c
		kill -TERM $(for c in $RIG_CHILD; do rig_tree "$c"; done) 2>/dev/null || true
		for c in $RIG_CHILD; do wait "$c" 2>/dev/null || true; done
	fi
	[ -z "${RIG_ON_STOP:-}" ] || { eval "$RIG_ON_STOP"; } 2>&"$RIG_ERR"
	echo "$RIG_NAME: interrupted (SIG$1)" >&"$RIG_ERR"
	exit "$2"
}
# rig_tree PID: PID and all its descendants
rig_tree() {
	ps -e -o pid=,ppid= | awk -v r="$1" '{ c[$2] = c[$2] " " $1 }
		END { q[1] = r; h = 1; t = 1
		      while (h <= t) { p = q[h++]; print p
				       n = split(c[p], a, " "); for (i = 1; i <= n; i++) q[++t] = a[i] } }'
}
# rig_run CMD...: run CMD as the child rig_stop stops; returns its status.
# (Background children of a script ignore SIGINT: they hear of a Ctrl-C
# through the SIGTERM that rig_stop sends.)  RIG_LANES: the pids of work
# the script runs beside its steps (make check's lanes): rig_stop stops
# them with the step.
rig_run() {
	local rc=0 c
	"$@" &
	c=$!
	RIG_CHILD="$c${RIG_LANES:+ $RIG_LANES}"
	wait "$c" || rc=$?
	RIG_CHILD=${RIG_LANES:-}
	return $rc
}

# rig_begin NAME: what a rig script that runs a target starts with: the
# lock (rig_lock) and the signal handling (rig_signals) under one name
rig_begin() {
	rig_lock "$1"
	rig_signals "$1"
}

# rig_lock NAME: one hugetext target at a time in this out/ (an flock, so a
# killed run never leaves it held).  Nested rig scripts inherit it.  Holding
# it makes stale git lock files safe to remove (rig_git_unlock).
rig_lock() {
	[ -z "${HUGETEXT_RIG_LOCKED:-}" ] || return 0
	local out=$top/out
	mkdir -p "$out"
	exec 9>>"$out/.rig.lock"
	if ! flock -n 9; then
		echo "$1: another hugetext run holds out/.rig.lock:" \
		     "$(cat "$out/.rig.owner" 2>/dev/null || echo unknown); wait for it or stop it" >&2
		exit 2
	fi
	echo "pid $$, $1, since $(date '+%F %T')" >"$out/.rig.owner"
	export HUGETEXT_RIG_LOCKED=$$
}
# rig_git_unlock GITDIR: lock files a killed git left behind (call with the
# rig lock held: no other git of the rig runs then).
rig_git_unlock() {
	local f
	[ -d "$1" ] || return 0
	while IFS= read -r f; do
		echo "rig: removing $f (left by an interrupted git)" >&2
		rm -f "$f"
	done < <(find "$1" -name '*.lock' -not -path '*/objects/*' 2>/dev/null)
}

# A build killed by SIGKILL runs no cleanup: a compiler or linker may leave a
# truncated output newer than its inputs, which make then takes as up to
# date.  build_begin DIR marks DIR as being built; if the mark is already
# there, the last build in DIR was killed, and every file it wrote (newer
# than the mark) is deleted first, so that make redoes exactly those
# (ccache makes that cheap).  build_end DIR removes the mark.
build_begin() {
	local mark=$1/.hugetext-building n
	if [ -f "$mark" ]; then
		n=$(find "$1" -type f -newer "$mark" ! -name .config ! -name '*.log' \
			-print -delete | wc -l)
		echo "rig: the last build in ${1#"$top"/} was interrupted; redoing the $n files it wrote" >&2
	fi
	mkdir -p "$1"
	touch "$mark"
}
build_end() { rm -f "$1/.hugetext-building"; }
