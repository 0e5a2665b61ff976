#!/usr/bin/env bash
# make deb: Debian binary packages (linux-image, linux-headers) of the
# selected series (HUGETEXT_KERNEL, scripts/kernels.list), and the
# hugetext tool's (hugetext_VERSION_all.deb, tools/mkdeb), for the selected
# arch (HUGETEXT_ARCH, scripts/arches.list: the host's, or arm64
# cross-built), from a real distribution configuration, with the kernel's
# own packaging target (bindeb-pkg).
#
#   KCONFIG=cloud (default) | generic   Debian's own configuration of this
#           kernel version and arch, from its linux-config-VERSION package
#           (config.ARCH_none_cloud-ARCH: the flavour for VMs; generic:
#           config.ARCH_none_ARCH, every driver); KCONFIG=FILE: a machine's
#           /boot/config-* or any .config
#   TRIM=FILE   localmodconfig over that configuration: only the modules
#           FILE lists (lsmod's output of the machines to run it on);
#           TRIM=qemu: scripts/deb-qemu.modules, a QEMU/KVM guest's
#   DEBUG_INFO=1  keep the configuration's debug info (Debian's: DWARF and
#           BTF, about three times the build time and a 1 GB -dbg package);
#           by default the packages are built without it
#   DEB_FRAGMENT=FILE  one more Kconfig fragment of your own, merged last
#           and verified like the others
#   CONFIG_ONLY=1  stop after the configuration (merged and verified): the
#           check make check runs
#
# The configuration: the distribution's, with the series' Kconfig fragment
# and scripts/deb.config (the release says "hugetext", modules signed with
# a key made at build time) merged in by the kernel's merge_config.sh, then
# olddefconfig; every symbol the two fragments ask for is verified in the
# final .config, and a symbol Kconfig dropped (a dependency missing) fails
# the build before it starts.  Output: KOUT/deb/ARCH-NAME/ (out/deb/...
# for 6.12, out/7.3/deb/... for 7.3): the packages, build/ (the object
# tree, its .config, certs/signing_key.pem).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin deb
t0=$(date +%s)
host=$(dpkg --print-architecture)
kconfig=${KCONFIG:-cloud}
src=$KOUT/src
die() { echo "deb: $*" >&2; exit 1; }

# --- 1. the distribution's configuration -----------------------------------
case "$kconfig" in
cloud) flavour=cloud-$DEBARCH name=cloud ;;
generic) flavour=$DEBARCH name=generic ;;
*)
	[ -f "$kconfig" ] || die "KCONFIG=$kconfig: not cloud, generic or a file"
	flavour= name=custom ;;
esac
if [ -n "${TRIM:-}" ]; then
	trim=$TRIM
	[ "$trim" != qemu ] || trim=$top/scripts/deb-qemu.modules
	[ -f "$trim" ] || die "TRIM=$TRIM: no such file (lsmod's output, or TRIM=qemu)"
	name=$name-trim
fi
dir=$KOUT/deb/$ARCH_NAME-$name
obj=$dir/build
mkdir -p "$dir"
if [ -n "$flavour" ]; then
	pkg=linux-config-$BASE_SERIES
	dl=$KOUT/dl/config-$DEBARCH
	mkdir -p "$dl"
	opts=()
	if [ -n "$BASE_SUITE" ] && [ "$DEBARCH" = "$host" ]; then
		# the series' suite: fetch-source.sh's private apt state
		mapfile -t opts < <(apt_suite_opts "$BASE_SUITE")
		[ -f "$top/out/apt/$BASE_SUITE/updated" ] || apt_suite_update "$BASE_SUITE"
	elif [ "$DEBARCH" != "$host" ]; then
		# another arch's package lists: fetch-userland.sh's state for
		# this machine's suites, or one of the series' suite for the arch
		state=$top/out/apt/$ARCH_NAME
		[ -z "$BASE_SUITE" ] || state=$top/out/apt/$BASE_SUITE-$DEBARCH
		mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/none"
		[ -f "$state/status" ] || : >"$state/status"
		opts=(-oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache"
		      -oDir::State::status="$state/status" -oDebug::NoLocking=1
		      -oAPT::Architecture="$DEBARCH" -oAPT::Architectures::="$DEBARCH")
		if [ -n "$BASE_SUITE" ]; then
			read -r uri key < <(debian_mirror) || die "no Debian mirror in this machine's apt sources"
			echo "deb [signed-by=$key] $uri $BASE_SUITE main" >"$state/sources.list"
			opts+=(-oDir::Etc::sourcelist="$state/sources.list" -oDir::Etc::sourceparts="$state/none")
		fi
		if ! ls "$state/lists/"*Packages* >/dev/null 2>&1; then
			apt-get "${opts[@]}" -q update >"$state/update.log" 2>&1 ||
				{ tail -n 5 "$state/update.log" >&2; die "apt-get update for $DEBARCH failed"; }
		fi
	fi
	deb=$(ls "$dl/${pkg}_${BASE_VERSION//:/%3a}_$DEBARCH.deb" 2>/dev/null || true)
	if [ -z "$deb" ]; then
		( cd "$dl" && apt-get "${opts[@]}" -q download "$pkg=$BASE_VERSION" ) >"$dl/download.log" 2>&1 || {
			tail -n 3 "$dl/download.log" >&2
			die "$pkg $BASE_VERSION ($DEBARCH) is not served: its configuration is Debian's for the same source version as $BASE_PKG"
		}
		deb=$(ls "$dl/${pkg}"_*"_$DEBARCH.deb" | head -n1)
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -x -O --wildcards "*/config.${DEBARCH}_none_$flavour.xz" |
		xz -d >"$dir/distribution.config" ||
		die "$deb has no config.${DEBARCH}_none_$flavour.xz (KCONFIG=cloud or generic)"
	echo "deb: configuration: Debian's $flavour, $pkg $BASE_VERSION"
else
	cp "$kconfig" "$dir/distribution.config"
	echo "deb: configuration: $kconfig"
fi

# --- 2. the series' tree ---------------------------------------------------
HUGETEXT_RIG_LOCKED=$$ "$top/scripts/fetch-source.sh"

# --- 3. merge, trim, verify ------------------------------------------------
# LOCALVERSION= (set, empty): no "+" for a git tree off a tag
mk=(make -s -C "$src" O="$obj" ARCH="$KARCH" LOCALVERSION=)
[ -z "$CROSS" ] || mk+=(CROSS_COMPILE="$CROSS")
frags=("$KFRAG" "$top/scripts/deb.config")
[ "${DEBUG_INFO:-0}" = 1 ] || frags+=("$top/scripts/deb-nodebug.config")
if [ -n "${DEB_FRAGMENT:-}" ]; then
	[ -f "$DEB_FRAGMENT" ] || die "DEB_FRAGMENT=$DEB_FRAGMENT: no such file"
	frags+=("$(readlink -f "$DEB_FRAGMENT")")
fi
mkdir -p "$obj"
merge() {
	cp "$1" "$obj/.config"
	# in the object tree: merge_config.sh writes its temporary files
	# in the current directory
	(cd "$obj" && KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "${frags[@]}") >"$dir/merge.log" 2>&1 ||
		{ tail -n 20 "$dir/merge.log" >&2; die "merge_config.sh failed"; }
	rig_run "${mk[@]}" olddefconfig >>"$dir/merge.log" 2>&1 ||
		{ tail -n 20 "$dir/merge.log" >&2; die "olddefconfig failed"; }
}
merge "$dir/distribution.config"
if [ -n "${TRIM:-}" ]; then
	# only the listed modules; then the fragments again (localmodconfig
	# turns off what no listed module needs, never what the fragment asks)
	rig_run "${mk[@]}" LSMOD="$trim" localmodconfig >"$dir/trim.log" 2>&1 </dev/null ||
		{ tail -n 20 "$dir/trim.log" >&2; die "localmodconfig failed"; }
	cp "$obj/.config" "$dir/trimmed.config"
	merge "$dir/trimmed.config"
fi
bad=0
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} ;;
		*) continue ;;
		esac
		got=$(grep -E "^($sym=|# $sym is not set)" "$obj/.config" || true)
		case "$line" in
		"# "*) [ -z "$got" ] || [ "$got" = "$line" ] && continue ;;
		*) [ "$got" = "$line" ] && continue ;;
		esac
		echo "deb: ${f#"$top"/} asks for '$line', the final .config has '${got:-nothing}'" >&2
		bad=$((bad + 1))
	done <"$f"
done
[ $bad -eq 0 ] || die "$bad symbol(s) of the fragments did not survive the merge (a dependency the configuration lacks?); nothing built"
release=$("${mk[@]}" kernelrelease)
case "$release" in *hugetext*) ;; *) die "the release '$release' does not say hugetext" ;; esac
echo "deb: .config verified: every symbol of ${frags[*]#"$top"/} is there; release $release;" \
     "$(grep -c '=m$' "$obj/.config") modules, $(grep -c '=y$' "$obj/.config") built in"
[ "${CONFIG_ONLY:-0}" = 1 ] && exit 0

# --- 4. build the packages -------------------------------------------------
# A cross build's linux-headers carries the kernel's host programs rebuilt
# for the target (the kernel's scripts/package/install-extmod-build), and
# sign-file needs the target's libcrypto: libssl-dev of that arch
# (scripts/userland.list), unpacked by fetch-userland.sh in its sysroot,
# searched after the compilers' own directories (a native host program
# finds the host's first)
if [ -n "$CROSS" ]; then
	rig_run "$top/scripts/fetch-userland.sh"
	ma=$("${CROSS}gcc" -print-multiarch)
	sys=$ROOTOUT/sysroot
	[ -f "$sys/usr/include/$ma/openssl/opensslconf.h" ] ||
		die "no $ARCH_NAME libssl-dev in ${sys#"$top"/} (scripts/userland.list)"
	mk+=(HOSTCFLAGS="-idirafter $sys/usr/include/$ma -idirafter $sys/usr/include"
	     HOSTLDFLAGS="-L$sys/usr/lib/$ma -Wl,-rpath-link,$sys/usr/lib/$ma")
fi
rm -f "$dir"/*.deb "$dir"/*.buildinfo "$dir"/*.changes
build_begin "$obj"
echo "deb: building $release (make bindeb-pkg, -j$(nproc)); log ${dir#"$top"/}/build.log"
rig_run env DEBFULLNAME="hugetext developers" DEBEMAIL=hugetext@example.org "${mk[@]}" -j"$(nproc)" bindeb-pkg KDEB_COMPRESS=xz KDEB_PKGVERSION="$release-1" DPKG_FLAGS=-d >"$dir/build.log" 2>&1 ||
	{ tail -n 30 "$dir/build.log" >&2; die "the build failed (whole log: ${dir#"$top"/}/build.log)"; }
build_end "$obj"
# bindeb-pkg leaves the packages in the object tree's parent
mapfile -t debs < <(ls "$dir"/linux-image-"$release"_*.deb "$dir"/linux-headers-"$release"_*.deb 2>/dev/null)
[ ${#debs[@]} -ge 2 ] || die "bindeb-pkg made no linux-image and linux-headers packages in ${dir#"$top"/}"
# the tool, hugetext_VERSION_all.deb: /usr/sbin/hugetext, its man page
tool=$("$top/tools/mkdeb" "$dir") || die "the tool's package (tools/mkdeb) failed"
debs+=("$tool")
cat <<EOF
deb: done in $(( $(date +%s) - t0 )) s: hugetext $KERNEL, $ARCH_NAME, configuration $name
$(for d in "${debs[@]}"; do echo "  $d"; done)
To use them on a Debian machine ($DEBARCH):
  1. sudo apt install ./$(basename "${debs[0]}") ./$(basename "${debs[1]}") ./$(basename "$tool")
  2. add $BOOT_ON to the kernel command line: GRUB_CMDLINE_LINUX in
     /etc/default/grub, then sudo update-grub
  3. reboot into $release (uname -r), then: sudo hugetext status
     (man hugetext; the tool alone goes with sudo apt remove hugetext)
Modules are signed with the key made for this build,
${obj#"$top"/}/certs/signing_key.pem (keep it private; sign modules you
build later with it).  The image is not signed for Secure Boot.
EOF
