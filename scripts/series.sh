#!/usr/bin/env bash
# patches/6.12 <-> out/src (HUGETEXT_KERNEL=7.3: patches/7.3 <-> out/7.3/src).
#   series.sh export   regenerate the series (git format-patch) from the commits
#                      on top of the base tag in out/src, and its series file
#   series.sh import   (re)apply the series onto the base: scripts/fetch-source.sh
# export signs the series as the person exporting it: From: and
# Signed-off-by: (and the cover letter's From: and shortlog) name the git
# identity of this repository (git config user.name, user.email), not the
# identity the commits in out/src carry, so a placeholder never leaves
# with a posting.  Without an identity it refuses and changes nothing.
# The patches are numbered with the posting's prefix, the one the cover
# letter's Subject: names ("[RFC PATCH v2 0/13]": "[RFC PATCH v2 4/13]"),
# and the cover letter's count follows the series.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_lock series
src="$KOUT/src"
case "${1:-}" in
export)
	name=$(git -C "$top" config user.name || true)
	email=$(git -C "$top" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		echo "series.sh: no git identity: git config user.name and user.email" \
			"name who exports (and signs) the series; patches/$KERNEL unchanged" >&2
		exit 1
	fi
	# the posting's prefix: the cover letter's "[PREFIX 0/N]"
	prefix=PATCH
	if [ -f "$KPATCHES/0000-cover-letter.patch" ]; then
		prefix=$(sed -n 's/^Subject: \[\(.*\) 0*0\/[0-9]*\].*/\1/p' "$KPATCHES/0000-cover-letter.patch")
		if [ -z "$prefix" ]; then
			echo "series.sh: $KPATCHES/0000-cover-letter.patch: no 'Subject: [PREFIX 0/N]'" \
				"line; patches/$KERNEL unchanged" >&2
			exit 1
		fi
	fi
	cd "$src"
	find "$KPATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -c core.abbrev=12 format-patch -q --no-signature --zero-commit --numbered \
		--subject-prefix="$prefix" -o "$KPATCHES" hugetext-base..HEAD >/dev/null
	# the cover letter numbered as format-patch numbers the patches (00/13)
	n=$(git rev-list --count hugetext-base..HEAD)
	sed -i "s|^Subject: \[$prefix 0*0/[0-9]*\]|Subject: [$prefix $(printf "%0${#n}d" 0)/$n]|" \
		"$KPATCHES/0000-cover-letter.patch" 2>/dev/null || true
	{
		sed -n '1,/^[^#]/{/^#/p}' "$KPATCHES/series"
		( cd "$KPATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-' )
	} >"$KPATCHES/series.new"
	mv "$KPATCHES/series.new" "$KPATCHES/series"
	# the cover letter's shortlog and diffstat, from the commits exported
	if [ -f "$KPATCHES/0000-cover-letter.patch" ]; then
		{
			git shortlog hugetext-base..HEAD | sed -e 's/^      /  /' -e '${/^$/d}'
			echo
			git diff --stat=80,50 hugetext-base HEAD
		} >"$KPATCHES/.shortlog"
		python3 - "$KPATCHES/0000-cover-letter.patch" "$KPATCHES/.shortlog" <<'PY'
import re, sys
p, new = sys.argv[1], open(sys.argv[2]).read().rstrip('\n') + '\n'
t = open(p).read()
m = re.search(r'^\S[^\n]* \(\d+\):\n.*?(?=^-- ?\n)', t, re.M | re.S)
if not m:
    sys.exit('series.sh: %s: no "NAME (N):" shortlog before "-- "' % p)
open(p, 'w').write(t[:m.start()] + new + '\n' + t[m.end():])
PY
		rm -f "$KPATCHES/.shortlog"
	fi
	# the exporting person signs: every patch's author and sign-off, and
	# the cover letter's sender and shortlog, from the commits' author
	NAME="$name" EMAIL="$email" python3 - "$KPATCHES" "$(git log -1 --format='%an <%ae>' HEAD)" <<'PY'
import os, re, sys
d, old = sys.argv[1], sys.argv[2]
new = '%s <%s>' % (os.environ['NAME'], os.environ['EMAIL'])
oname = old.rsplit(' <', 1)[0]
for f in sorted(os.listdir(d)):
    if not re.match(r'\d{4}-.*\.patch$', f):
        continue
    p = os.path.join(d, f)
    with open(p) as fh:
        t = fh.read()
    head, sep, body = t.partition('\n\n')
    head = head.replace('From: ' + old, 'From: ' + new)
    body = body.replace('Signed-off-by: ' + old, 'Signed-off-by: ' + new)
    body = re.sub(r'^' + re.escape(oname) + r' \((\d+)\):$',
                  os.environ['NAME'] + r' (\1):', body, flags=re.M)
    with open(p, 'w') as fh:
        fh.write(head + sep + body)
PY
	# mark out/src as matching patches/ so fetch-source.sh does not re-apply
	echo "$(series_hash "$top") $(git rev-parse HEAD)" >.git/hugetext-applied
	ls "$KPATCHES"
	;;
import)
	FORCE=1 exec "$top/scripts/fetch-source.sh" ;;
*)
	echo "usage: series.sh export|import" >&2; exit 2 ;;
esac
