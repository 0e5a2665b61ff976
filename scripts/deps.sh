#!/usr/bin/env bash
# Install the Debian packages the rig needs, only when something is missing:
# its own (below) and those of the real programs the guests run (each
# bench/programs/NAME/program.py's PACKAGES; read with python3, so after the
# rig's own are in).
# apt-get update always runs before apt-get install (a fresh machine has no lists).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(build-essential gcc make bc flex bison libelf-dev libssl-dev cpio
      e2fsprogs busybox-static qemu-system-x86 python3 git xz-utils kmod
      dwarves rsync ccache gnuplot-nox qemu-user
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
      dpkg-dev debhelper debootstrap)
install_missing() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "deps: installing ${missing[*]}"
	local SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	# an install that was interrupted leaves dpkg half done (apt-get then refuses)
	$SUDO dpkg --configure -a
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}
install_missing "${pkgs[@]}"
# (every program runs on the host arch, the first of scripts/arches.list)
mapfile -t progpkgs < <(python3 -B "$top/bench/programs" packages)
[ ${#progpkgs[@]} -gt 0 ] || { echo "deps: no packages read from bench/programs" >&2; exit 1; }
install_missing "${progpkgs[@]}"
