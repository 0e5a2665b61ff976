#!/usr/bin/env bash
# patches/ <-> out/src (HUGETEXT_KERNEL=7.3: patches/7.3 <-> out/7.3/src).
#   series.sh export   regenerate patches/ (git format-patch) from the commits
#                      on top of the base tag in out/src, and patches/series
#   series.sh import   (re)apply patches/ onto the base: scripts/fetch-source.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_lock series
src="$KOUT/src"
case "${1:-}" in
export)
	cd "$src"
	find "$KPATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -c core.abbrev=12 format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$KPATCHES" hugetext-base..HEAD >/dev/null
	{
		sed -n '1,/^[^#]/{/^#/p}' "$KPATCHES/series"
		( cd "$KPATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-' )
	} >"$KPATCHES/series.new"
	mv "$KPATCHES/series.new" "$KPATCHES/series"
	# mark out/src as matching patches/ so fetch-source.sh does not re-apply
	echo "$(series_hash "$top") $(git rev-parse HEAD)" >.git/hugetext-applied
	ls "$KPATCHES"
	;;
import)
	FORCE=1 exec "$top/scripts/fetch-source.sh" ;;
*)
	echo "usage: series.sh export|import" >&2; exit 2 ;;
esac
