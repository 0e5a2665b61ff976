#!/usr/bin/env bash
# Build every prefix of the series in out/src (each patch must build on its
# own; after the first, each build is incremental), ending at the whole series,
# whose image is out/bzImage.  Then build the whole series once more with
# CONFIG_HUGETEXT=n (out/build-nohugetext; ccache makes it cheap).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src="$top/out/src"
branch=$(git -C "$src" symbolic-ref --short HEAD)
trap 'git -C "$src" checkout -q "$branch"' EXIT
for c in $(git -C "$src" rev-list --reverse hugetext-base..HEAD); do
	git -C "$src" checkout -q --detach "$c"
	echo "== $(git -C "$src" log -1 --format='%h %s')"
	"$top/scripts/build-kernel.sh"
done
git -C "$src" checkout -q "$branch"
trap - EXIT
echo "== whole series with CONFIG_HUGETEXT=n"
echo "# CONFIG_HUGETEXT is not set" >"$top/out/hugetext-n.config"
"$top/scripts/build-kernel.sh" --name nohugetext "$top/out/hugetext-n.config"
