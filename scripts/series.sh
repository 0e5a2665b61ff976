#!/usr/bin/env bash
# patches/ <-> out/src.
#   series.sh export   regenerate patches/ (git format-patch) from the commits
#                      on top of the base tag in out/src, and patches/series
#   series.sh import   (re)apply patches/ onto the base: scripts/fetch-source.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_lock series
src="$top/out/src"
case "${1:-}" in
export)
	cd "$src"
	find "$top/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -c core.abbrev=12 format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$top/patches" hugetext-base..HEAD >/dev/null
	{
		echo "# hugetext series for $BASE_PKG (Linux $BASE_SERIES LTS), applied in order"
		echo "# by scripts/fetch-source.sh with git am --3way.  The cover letter is 0000-cover-letter.patch."
		( cd "$top/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-' )
	} >"$top/patches/series"
	# mark out/src as matching patches/ so fetch-source.sh does not re-apply
	echo "$(series_hash "$top") $(git rev-parse HEAD)" >.git/hugetext-applied
	ls "$top/patches"
	;;
import)
	FORCE=1 exec "$top/scripts/fetch-source.sh" ;;
*)
	echo "usage: series.sh export|import" >&2; exit 2 ;;
esac
