#!/usr/bin/env bash
# Fetch and unpack the guest programs of a foreign arch (HUGETEXT_ARCH, a
# line of scripts/arches.list other than the host's): the packages of
# scripts/userland.list and of the programs of bench/programs this arch's
# rootfs has (their program.py's PACKAGES), and their dependencies, for
# Debian's DEBARCH, with
# apt-get --download-only on this machine's own apt sources (its mirror,
# its suites) and a private state (out/apt/ARCH: lists, cache, an empty
# dpkg status, so that nothing the host has installed counts), then
# dpkg -x of each into ROOTOUT/sysroot.  No multiarch install on the host.
# Done again only when that list of packages changed (ROOTOUT/sysroot/.done
# holds its hash); interrupted, the next run starts over.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin fetch-userland
host=$(dpkg --print-architecture)
if [ "$DEBARCH" = "$host" ]; then
	echo "fetch-userland: $ARCH_NAME is this machine's arch: the rootfs takes the host's programs" >&2
	exit 0
fi
sysroot=$ROOTOUT/sysroot
# the packages: scripts/userland.list's and the PACKAGES of the programs
# of bench/programs that this arch's rootfs has
progpkgs=$(python3 -B "$top/bench/programs" packages "$ARCH_NAME")
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/scripts/userland.list" | awk '{print $1}'
	[ -z "$progpkgs" ] || echo "$progpkgs")
want=$(printf '%s\n' "${pkgs[@]}" | sha1sum | cut -d' ' -f1)
if [ "$(cat "$sysroot/.done" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
state=$top/out/apt/$ARCH_NAME
rm -rf "$state/cache/archives"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
: >"$state/status"
opts=(-oAPT::Architecture="$DEBARCH" -oAPT::Architectures::="$DEBARCH"
      -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache"
      -oDir::State::status="$state/status" -oDebug::NoLocking=1)
echo "fetch-userland: $DEBARCH packages: ${pkgs[*]} (and their dependencies)"
apt-get "${opts[@]}" -q update >"$state/update.log" 2>&1 ||
	{ tail -n 5 "$state/update.log" >&2; echo "fetch-userland: apt-get update for $DEBARCH failed" >&2; exit 1; }
apt-get "${opts[@]}" -q -y --download-only --no-install-recommends install "${pkgs[@]}" \
	>"$state/download.log" 2>&1 ||
	{ tail -n 10 "$state/download.log" >&2; echo "fetch-userland: apt-get download for $DEBARCH failed" >&2; exit 1; }
rm -rf "$sysroot" "$sysroot.tmp"
mkdir -p "$sysroot.tmp"
n=0
for deb in "$state"/cache/archives/*.deb; do
	dpkg -x "$deb" "$sysroot.tmp"
	n=$((n + 1))
done
echo "$want" >"$sysroot.tmp/.done"
mv "$sysroot.tmp" "$sysroot"
echo "fetch-userland: $n packages unpacked in ${sysroot#"$top"/}"
