#!/usr/bin/env bash
# Every patch of the series must build on its own.  First the whole series
# in out/src itself (out/build-main, image out/bzImage), then each prefix of
# the series but the last in out/bisect/src, a detached git worktree of
# out/src (build dir out/bisect/build; after the first, each build is
# incremental), then the whole series once more with CONFIG_HUGETEXT=n
# (out/build-nohugetext).  (For the kernel HUGETEXT_KERNEL picks, read KOUT
# for out: out/7.3/src, ...)
#
# A prefix compiles what the series touches, not the whole kernel: every
# object of this configuration (as out/build-main has it) whose .c file
# some patch of the series changes, so each prefix compiles each such file
# as that prefix has it, with that prefix's headers.  A header change
# that broke a file no patch touches would be found by the full builds
# (the whole series, CONFIG_HUGETEXT=n), not at its prefix.  Measured on
# the 7.3 series: a prefix that changes vm_event_item.h or mm_types.h cost
# a full rebuild of the kernel (about 8 minutes cold on 2 cores) and now
# costs seconds.
#
# out/src never moves: a bisect build stopped at any moment (Ctrl-C, SIGTERM,
# SIGKILL) leaves the applied series where it was, and the next run puts the
# worktree where it needs it.  out/bisect/{src,build} sit at the same relative
# distance as out/{src,build-main}, so ccache (CCACHE_BASEDIR) serves one
# tree's objects to the other.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin bisect-build
src="$KOUT/src"
wt="$KOUT/bisect/src"
GIT=(git -c advice.detachedHead=false)

# the worktree: (re)made when missing or not a worktree of out/src
if [ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
     "$(git -C "$src" rev-parse --path-format=absolute --git-common-dir)" ]; then
	rm -rf "$wt"
	git -C "$src" worktree prune
	rig_git_unlock "$src/.git"
	echo "== making the bisect worktree ${wt#"$top"/}"
	"${GIT[@]}" -C "$src" worktree add -q --detach "$wt" hugetext-base
fi
rig_git_unlock "$(git -C "$wt" rev-parse --path-format=absolute --git-dir)"

commits=($(git -C "$src" rev-list --reverse hugetext-base..HEAD))
n=${#commits[@]}
echo "== [$n/$n] $(git -C "$src" log -1 --format='%h %s') (${src#"$top"/})"
rig_run "$top/scripts/build-kernel.sh"
# the objects of this configuration whose .c file the series changes
objs=()
while IFS= read -r f; do
	[ ! -f "$KOUT/build-main/${f%.c}.o" ] || objs+=("${f%.c}.o")
done < <(git -C "$src" diff --name-only hugetext-base HEAD -- '*.c')
[ ${#objs[@]} -gt 0 ] || objs=(prepare)
echo "== the prefixes compile: ${objs[*]}"
for ((i = 0; i < n - 1; i++)); do
	c=${commits[i]}
	# -f: a checkout that was killed midway is completed, not refused
	"${GIT[@]}" -C "$wt" checkout -q -f --detach "$c"
	echo "== [$((i + 1))/$n] $(git -C "$wt" log -1 --format='%h %s')"
	# (a file a later patch adds is not there yet)
	pobjs=()
	for o in "${objs[@]}"; do
		[ "$o" = prepare ] || [ -f "$wt/${o%.o}.c" ] && pobjs+=("$o")
	done
	rig_run "$top/scripts/build-kernel.sh" --name bisect --src "$wt" --build "$KOUT/bisect/build" \
		--targets "${pobjs[*]:-prepare}"
done
echo "== whole series with CONFIG_HUGETEXT=n"
echo "# CONFIG_HUGETEXT is not set" >"$KOUT/hugetext-n.config"
rig_run "$top/scripts/build-kernel.sh" --name nohugetext "$KOUT/hugetext-n.config"
