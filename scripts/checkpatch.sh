#!/usr/bin/env bash
# checkpatch.pl --strict over every patch of the series; any error, warning or
# check fails, except the ones listed (with their reason) in
# the series' checkpatch-exceptions (patches/6.12/, patches/7.3/) (lines "TYPE  reason").
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
src="$KOUT/src"
ignore=$(sed -e '/^\s*#/d' -e '/^\s*$/d' "$KPATCHES/checkpatch-exceptions" 2>/dev/null |
	awk '{print $1}' | paste -sd, -)
rc=0
while read -r p; do
	case "$p" in ''|\#*) continue ;; esac
	if ! (cd "$src" && perl scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		${ignore:+--ignore "$ignore"} "$KPATCHES/$p"); then
		rc=1
	fi
done <"$KPATCHES/series"
exit $rc
