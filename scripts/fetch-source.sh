#!/usr/bin/env bash
# Fetch the base kernel (a Debian linux-source package, scripts/kernels.list;
# HUGETEXT_KERNEL picks which) into KOUT/src (out/src for 6.12) as a git
# tree: commit "base", tag hugetext-base, then apply the kernel's series
# (patches/6.12/series, patches/7.3/series) with git am --3way.  Any reject
# fails.  Prints the base and what applied.  A package from another suite
# than this machine's comes through a private apt state (base.sh,
# apt_suite_update).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin fetch-source
src="$KOUT/src"
mkdir -p "$KOUT/dl"
# gc.auto=0: after "git am" of the series a "git gc --auto" would detach,
# repack the kernel tree for minutes and, inheriting the rig lock's file
# descriptor, hold out/.rig.lock all that time (the next make target then
# fails with "another hugetext run holds out/.rig.lock")
GIT=(git -c user.name="hugetext developers" -c user.email=hugetext@example.org
     -c advice.detachedHead=false -c core.autocrlf=false -c gc.auto=0)

# --- 1. the .deb ----------------------------------------------------------
version="$BASE_VERSION"
apt=(apt-get)
if [ -n "$BASE_SUITE" ]; then
	mapfile -t aopts < <(apt_suite_opts "$BASE_SUITE")
	apt=(apt-get "${aopts[@]}")
	[ -f "$top/out/apt/$BASE_SUITE/updated" ] || apt_suite_update "$BASE_SUITE"
fi
apt_refresh() {
	if [ -n "$BASE_SUITE" ]; then apt_suite_update "$BASE_SUITE"; else apt-get update -q >/dev/null; fi
}
deb=$(ls "$KOUT"/dl/${BASE_PKG}_*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ] || [ "$(dpkg-deb -f "$deb" Version)" != "$version" ]; then
	rm -f "$KOUT"/dl/*.deb
	( cd "$KOUT/dl" && "${apt[@]}" download "$BASE_PKG=$version" ) >/dev/null 2>&1 || {
		# stale or missing package lists: refresh them, then try again
		apt_refresh
		( cd "$KOUT/dl" && "${apt[@]}" download "$BASE_PKG=$version" ) >/dev/null 2>&1 || {
			newest=$("${apt[@]/apt-get/apt-cache}" madison "$BASE_PKG" | awk '{print $3}' | sort -V | tail -n1)
			[ -n "$newest" ] || { echo "fetch-source: $BASE_PKG is not served at all" >&2; exit 1; }
			echo "fetch-source: WARNING: pinned $BASE_PKG $version is not served;" \
			     "falling back to the newest: $newest" >&2
			version=$newest
			( cd "$KOUT/dl" && "${apt[@]}" download "$BASE_PKG=$version" ) >/dev/null
		}
	}
	deb=$(ls "$KOUT"/dl/${BASE_PKG}_*.deb | head -n1)
fi
version=$(dpkg-deb -f "$deb" Version)
echo "base: $BASE_PKG $version"

# --- 2. the git tree ------------------------------------------------------
stamp="$src/.hugetext-base"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$version" ]; then
	rm -rf "$src" "$KOUT/unpack"
	mkdir -p "$KOUT/unpack"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$KOUT/unpack" --wildcards '*.tar.xz'
	tarball=$(find "$KOUT/unpack" -name 'linux-source-*.tar.xz' | head -n1)
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	rm -rf "$KOUT/unpack"
	cd "$src"
	"${GIT[@]}" init -q
	"${GIT[@]}" add -A -f .
	"${GIT[@]}" commit -q -m "base: $BASE_PKG $version"
	"${GIT[@]}" tag -f hugetext-base >/dev/null
	echo "$version" > "$stamp"
	echo ".hugetext-base" >> .git/info/exclude
fi

# --- 3. the series --------------------------------------------------------
cd "$src"
rig_git_unlock "$src/.git"
want=$(series_hash "$top")
applied=$(cat .git/hugetext-applied 2>/dev/null || true)
# an apply that was stopped midway: no commit of the user's is there, apply again
if [ -f .git/hugetext-applying ]; then
	echo "fetch-source: the last apply of the series was interrupted; applying it again" >&2
	applied=
fi
if [ "$applied" = "$want $(git rev-parse HEAD)" ] && [ -z "${FORCE:-}" ]; then
	echo "series already applied on $BASE_PKG $version:"
	git log --oneline hugetext-base..HEAD | sed 's/^/  /'
	exit 0
fi
# A bisect build (scripts/bisect-build.sh) that was killed leaves out/src
# detached at an earlier patch of the series: no work is lost, go back.
if [ -n "$applied" ] && [ "${applied#* }" != "$(git rev-parse HEAD)" ] &&
   [ "$(git rev-parse -q --verify refs/heads/hugetext)" = "${applied#* }" ] &&
   ! git symbolic-ref -q HEAD >/dev/null &&
   git merge-base --is-ancestor HEAD "${applied#* }" && [ -z "$(git status --porcelain)" ]; then
	echo "fetch-source: out/src was left at an earlier patch of the series" \
	     "(an interrupted bisect build); checking out the whole series again" >&2
	"${GIT[@]}" checkout -q hugetext
	if [ "$applied" = "$want $(git rev-parse HEAD)" ] && [ -z "${FORCE:-}" ]; then
		echo "series already applied on $BASE_PKG $version:"
		git log --oneline hugetext-base..HEAD | sed 's/^/  /'
		exit 0
	fi
fi
if [ -n "$applied" ] && [ "${applied#* }" != "$(git rev-parse HEAD)" ] && [ -z "${FORCE:-}" ]; then
	echo "fetch-source: out/src is not at the series it was built from: new" \
	     "commits or changes there? (scripts/series.sh export keeps them in patches/$KERNEL/;" \
	     "FORCE=1 throws them away)" >&2
	exit 1
fi
touch .git/hugetext-applying
rm -f .git/hugetext-applied
"${GIT[@]}" am --abort >/dev/null 2>&1 || true
"${GIT[@]}" checkout -q -f -B hugetext hugetext-base
"${GIT[@]}" clean -q -fdx -e .hugetext-base
mapfile -t series < <(grep -v -e '^\s*#' -e '^\s*$' "$KPATCHES/series" 2>/dev/null || true)
if [ ${#series[@]} -gt 0 ]; then
	files=()
	for p in "${series[@]}"; do files+=("$KPATCHES/$p"); done
	if ! "${GIT[@]}" am -q --3way "${files[@]}"; then
		echo "fetch-source: the series does not apply to $BASE_PKG $version" >&2
		"${GIT[@]}" am --show-current-patch=diff 2>/dev/null | head -n 20 >&2 || true
		"${GIT[@]}" am --abort || true
		exit 1
	fi
fi
echo "$want $(git rev-parse HEAD)" > .git/hugetext-applied
rm -f .git/hugetext-applying
echo "applied on $BASE_PKG $version:"
git log --oneline hugetext-base..HEAD | sed 's/^/  /'
