#!/usr/bin/env bash
# Install the Debian packages the rig needs, only when something is missing.
# apt-get update always runs before apt-get install (a fresh machine has no lists).
set -euo pipefail
pkgs=(build-essential gcc make bc flex bison libelf-dev libssl-dev cpio
      e2fsprogs busybox-static qemu-system-x86 python3 git xz-utils kmod
      dwarves rsync ccache gdb llvm-14 gnuplot-nox qemu-user
      postgresql-15 openjdk-17-jdk-headless nodejs
      mariadb-server-core mariadb-client-core sysbench
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
      dpkg-dev debhelper debootstrap)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# an install that was interrupted leaves dpkg half done (apt-get then refuses)
$SUDO dpkg --configure -a
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
