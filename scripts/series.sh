#!/usr/bin/env bash
# patches/6.12 <-> out/src (HUGETEXT_KERNEL=7.3: patches/7.3 <-> out/7.3/src).
#   series.sh export   regenerate the series (git format-patch) from the commits
#                      on top of the base tag in out/src, and its series file
#   series.sh import   (re)apply the series onto the base: scripts/fetch-source.sh
#   series.sh kselftest  copy the series' kselftest from kselftest/ (the
#                      shared sources and kselftest/KERNEL/'s) into out/src's
#                      tools/testing/selftests/mm/ and amend the last commit,
#                      the selftest's (scripts/kselftest.py); then export
# export signs the series as the person exporting it: From: and
# Signed-off-by: (and the cover letter's From: and shortlog) name the git
# identity of this repository (git config user.name, user.email), not the
# identity the commits in out/src carry, so a placeholder never leaves
# with a posting.  Without an identity it refuses and changes nothing.
# The patches are numbered in their posting with its prefix, the one its
# cover letter's Subject: names ("[RFC PATCH v2 00/11]": "[RFC PATCH v2
# 04/11]"): 0000-fixes-cover-letter.patch, when there, posts the first N
# patches on their own ("[PATCH 0/2]": the first two), 0000-cover-letter.patch
# the rest; each cover letter's count, shortlog and diffstat follow.
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
	# each posting's cover letter names its prefix and count: checked
	# before anything is replaced
	for c in "$KPATCHES"/0000-*cover-letter.patch; do
		[ -f "$c" ] || continue
		if ! grep -q '^Subject: \[.* 0*0/[0-9]*\]' "$c"; then
			echo "series.sh: $c: no 'Subject: [PREFIX 0/N]' line; patches/$KERNEL unchanged" >&2
			exit 1
		fi
	done
	cd "$src"
	find "$KPATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -c core.abbrev=12 format-patch -q --no-signature --zero-commit --no-numbered \
		-o "$KPATCHES" hugetext-base..HEAD >/dev/null
	{
		sed -n '1,/^[^#]/{/^#/p}' "$KPATCHES/series"
		( cd "$KPATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-' )
	} >"$KPATCHES/series.new"
	mv "$KPATCHES/series.new" "$KPATCHES/series"
	# the postings: each cover letter's Subject "[PREFIX 0/N]" names its
	# prefix; 0000-fixes-cover-letter.patch, when there, covers the first
	# N patches (fixes posted on their own, first), 0000-cover-letter.patch
	# the rest.  Each patch is numbered in its posting, each cover letter
	# gets its count, shortlog and diffstat.
	python3 - "$KPATCHES" "$(git rev-parse hugetext-base)" <<'PY' || exit 1
import os, re, subprocess, sys
d, base = sys.argv[1], sys.argv[2]
patches = sorted(f for f in os.listdir(d)
                 if re.match(r'\d{4}-.*\.patch$', f) and not f.startswith('0000-'))
commits = subprocess.check_output(['git', 'rev-list', '--reverse', base + '..HEAD'],
                                  text=True).split()
covers = []
for name in ('0000-fixes-cover-letter.patch', '0000-cover-letter.patch'):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        continue
    t = open(p).read()
    m = re.search(r'^Subject: \[(.+?) 0*0/(\d+)\]', t, re.M)
    if not m:
        sys.exit('series.sh: %s: no "Subject: [PREFIX 0/N]" line' % p)
    covers.append((p, t, m.group(1), int(m.group(2))))
start, plan = 0, []
for i, (p, t, prefix, n) in enumerate(covers):
    if 'fixes' not in os.path.basename(p):
        n = len(patches) - start        # the main posting: the rest
    if n <= 0 or start + n > len(patches):
        sys.exit('series.sh: %s: %d patches, %d left' % (p, n, len(patches) - start))
    plan.append((p, t, prefix, start, n))
    start += n
if not covers:
    plan = [(None, None, 'PATCH', 0, len(patches))]
for p, t, prefix, first, n in plan:
    w = len(str(n))
    for k in range(n):
        f = os.path.join(d, patches[first + k])
        s = open(f).read()
        s = s.replace('Subject: [PATCH] ', 'Subject: [%s %0*d/%d] ' % (prefix, w, k + 1, n), 1)
        open(f, 'w').write(s)
    if not p:
        continue
    lo = base if first == 0 else commits[first - 1]
    hi = commits[first + n - 1]
    short = subprocess.check_output(['git', 'shortlog', '%s..%s' % (lo, hi)], text=True)
    short = re.sub(r'^      ', '  ', short, flags=re.M).rstrip('\n') + '\n'
    stat = subprocess.check_output(['git', 'diff', '--stat=80,50', lo, hi], text=True)
    t = re.sub(r'^Subject: \[.+? 0*0/\d+\]', 'Subject: [%s %0*d/%d]' % (prefix, w, 0, n),
               t, count=1, flags=re.M)
    m = re.search(r'^\S[^\n]* \(\d+\):\n.*?(?=^-- ?\n)', t, re.M | re.S)
    if not m:
        sys.exit('series.sh: %s: no "NAME (N):" shortlog before "-- "' % p)
    t = t[:m.start()] + short + '\n' + stat.rstrip('\n') + '\n\n' + t[m.end():]
    open(p, 'w').write(t)
PY
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
kselftest)
	cd "$src"
	mm=tools/testing/selftests/mm
	# the last commit is the selftest's: it adds or changes what kselftest/ makes
	mapfile -t made < <(python3 "$top/scripts/kselftest.py" files "$KERNEL" | awk '{print $2}')
	if [ -z "$(git diff --name-only HEAD~1 HEAD -- "${made[@]}" "$mm"/hugetext*)" ]; then
		echo "series.sh: the last commit of $src ($(git log -1 --format=%s HEAD))" \
			"is not the series' selftest: it touches none of kselftest/'s files" >&2
		exit 1
	fi
	# the tree's own parts of the selftest (its Makefile, run_vmtests.sh)
	# are committed there first: this amends only what kselftest/ makes
	if [ -n "$(git status --porcelain -- "$mm" ":(exclude,glob)$mm/hugetext*")" ]; then
		echo "series.sh: $src/$mm has uncommitted changes besides kselftest/'s files;" \
			"commit (git commit --amend) or drop them first" >&2
		exit 1
	fi
	python3 "$top/scripts/kselftest.py" write "$KERNEL" "$src"
	git add -A -f -- ":(glob)$mm/hugetext*"
	if git diff --cached --quiet; then
		echo "the selftest commit is already what kselftest/ makes"
	else
		# gc.auto=0: a "git gc --auto" after the commit would detach, repack
		# the kernel tree for minutes and hold out/.rig.lock (fetch-source.sh)
		git -c user.name="hugetext developers" -c user.email=hugetext@example.org -c gc.auto=0 \
			commit -q --amend --no-edit
		git show --stat --format='amended: %h %s' HEAD | cat
		echo "now scripts/series.sh export (make series-export) regenerates patches/$KERNEL/"
	fi
	;;
*)
	echo "usage: series.sh export|import|kselftest" >&2; exit 2 ;;
esac
