#!/usr/bin/env bash
# Every patch of the series must build on its own.  Build each prefix of the
# series but the last in out/bisect/src, a detached git worktree of out/src
# (build dir out/bisect/build; after the first, each build is incremental),
# then the whole series in out/src itself (out/build-main, image out/bzImage),
# then the whole series once more with CONFIG_HUGETEXT=n (out/build-nohugetext).
# (For the kernel HUGETEXT_KERNEL picks, read KOUT for out: out/7.3/src, ...)
#
# out/src never moves: a bisect build stopped at any moment (Ctrl-C, SIGTERM,
# SIGKILL) leaves the applied series where it was, and the next run puts the
# worktree where it needs it.  out/bisect/{src,build} sit at the same relative
# distance as out/{src,build-main}, so ccache (CCACHE_BASEDIR) serves one
# tree's objects to the other.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_lock bisect-build
rig_signals bisect-build
src="$KOUT/src"
wt="$KOUT/bisect/src"
GIT=(git -c advice.detachedHead=false)

# the worktree: (re)made when missing or not a worktree of out/src
if [ "$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" != \
     "$(git -C "$src" rev-parse --path-format=absolute --git-common-dir)" ]; then
	rm -rf "$wt"
	git -C "$src" worktree prune
	rig_git_unlock "$src/.git"
	echo "== making the bisect worktree out/bisect/src"
	"${GIT[@]}" -C "$src" worktree add -q --detach "$wt" hugetext-base
fi
rig_git_unlock "$(git -C "$wt" rev-parse --path-format=absolute --git-dir)"

commits=($(git -C "$src" rev-list --reverse hugetext-base..HEAD))
n=${#commits[@]}
for ((i = 0; i < n - 1; i++)); do
	c=${commits[i]}
	# -f: a checkout that was killed midway is completed, not refused
	"${GIT[@]}" -C "$wt" checkout -q -f --detach "$c"
	echo "== [$((i + 1))/$n] $(git -C "$wt" log -1 --format='%h %s')"
	rig_run "$top/scripts/build-kernel.sh" --name bisect --src "$wt" --build "$KOUT/bisect/build"
done
echo "== [$n/$n] $(git -C "$src" log -1 --format='%h %s') (out/src)"
rig_run "$top/scripts/build-kernel.sh"
echo "== whole series with CONFIG_HUGETEXT=n"
echo "# CONFIG_HUGETEXT is not set" >"$KOUT/hugetext-n.config"
rig_run "$top/scripts/build-kernel.sh" --name nohugetext "$KOUT/hugetext-n.config"
