# shellcheck shell=bash
# The one place that knows the base kernel. Sourced by the other scripts.
# Debian's linux-source-6.12 package, pinned; scripts/fetch-source.sh falls back
# to the newest 6.12 package served (with a warning) when this one is gone.
BASE_PKG=linux-source-6.12
BASE_VERSION=6.12.117-1~deb12u1
BASE_SERIES=6.12

# A hash of patches/series and every patch it lists: what out/src was built from.
series_hash() {
	local dir=$1/patches
	{ cat "$dir/series"; sed -e '/^\s*#/d' -e '/^\s*$/d' "$dir/series" |
		while read -r p; do cat "$dir/$p"; done; } 2>/dev/null | sha1sum | cut -d' ' -f1
}

# src_state DIR: what the kernel tree DIR holds: its HEAD and a hash of its
# uncommitted changes.  scripts/build-kernel.sh records it next to each
# image (IMAGE.src-state); the Makefile rebuilds an image whose record
# differs (a commit or an edit in out/src).  No index refresh: read-only.
src_state() {
	echo "$(git -C "$1" rev-parse HEAD 2>/dev/null)" \
	     "$(git --no-optional-locks -C "$1" diff HEAD 2>/dev/null | sha1sum | cut -d' ' -f1)"
}

# --- interruption safety (see README "Stopping a run") ----------------------
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
	trap 'rig_stop INT 130' INT
	trap 'rig_stop TERM 143' TERM
	trap 'rig_stop HUP 129' HUP
}
rig_stop() {
	trap '' INT TERM HUP
	if [ -n "${RIG_CHILD:-}" ]; then
		# the whole tree at once: a make under "sh -c" does not hear
		# of its parent's SIGTERM, and an orphan leaves the tree
		kill -TERM $(rig_tree "$RIG_CHILD") 2>/dev/null || true
		wait "$RIG_CHILD" 2>/dev/null || true
	fi
	[ -z "${RIG_ON_STOP:-}" ] || eval "$RIG_ON_STOP"
	echo "$RIG_NAME: interrupted (SIG$1)" >&2
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
# through the SIGTERM that rig_stop sends.)
rig_run() {
	local rc=0
	"$@" &
	RIG_CHILD=$!
	wait "$RIG_CHILD" || rc=$?
	RIG_CHILD=
	return $rc
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
