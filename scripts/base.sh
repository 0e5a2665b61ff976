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
