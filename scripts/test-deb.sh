#!/usr/bin/env bash
# make deb's refusals, checked by make check (seconds, no kernel build):
# a bad KCONFIG or TRIM stops it with a clear error, and a fragment whose
# symbol the configuration cannot keep (CONFIG_HUGETEXT=y without THP)
# stops it after the merge, naming the symbol, before any build.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {	# expect WHAT PATTERN CMD...: CMD fails and says PATTERN
	local what=$1 pat=$2; shift 2
	if "$@" >"$tmp/out" 2>&1; then
		echo "not ok: $what: exit 0"; fail=1
	elif ! grep -q -- "$pat" "$tmp/out"; then
		echo "not ok: $what: no '$pat' in:"; tail -n 5 "$tmp/out"; fail=1
	else
		echo "ok: $what: $(grep -m1 -- "$pat" "$tmp/out")"
	fi
}
expect "KCONFIG=nonsense" "not cloud, generic or a file" \
	env KCONFIG=nonsense CONFIG_ONLY=1 "$top/scripts/deb.sh"
expect "TRIM=missing file" "no such file" \
	env TRIM="$tmp/none" CONFIG_ONLY=1 "$top/scripts/deb.sh"
printf '# CONFIG_TRANSPARENT_HUGEPAGE is not set\nCONFIG_HUGETEXT=y\n' >"$tmp/bad.config"
expect "a fragment asking CONFIG_HUGETEXT=y without THP" "asks for 'CONFIG_HUGETEXT=y'" \
	env DEB_FRAGMENT="$tmp/bad.config" CONFIG_ONLY=1 "$top/scripts/deb.sh"
exit $fail
