#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hugetext off changes nothing THP does: the THP selftests' own khugepaged
# test (tools/testing/selftests/mm/khugepaged.c of this kernel's source,
# built static as thp_khugepaged) runs its file-collapse cases, in both of
# its contexts (khugepaged and MADV_COLLAPSE), and its anonymous-memory
# cases, which hugetext bit 1 touches.  make check runs this on the
# CONFIG_HUGETEXT=y kernel booted with hugetext=0 and on the
# CONFIG_HUGETEXT=n build of the same series, and scripts/thp-compare.py
# then requires the two case lists, with their results, to be identical.
# Each case is printed as "# thpcmp: MEMTYPE: CASE... RESULT".
# TAP: 1 test per memory type: the selftest ran to its end.
#   hugetext_thpcmp.sh [BIN]   BIN: the khugepaged test of the booted
#   kernel's tree (default thp_khugepaged, 6.12's; the mainline series'
#   boots pass thp_khugepaged_mainline, 7.3's)
dir=$(cd "$(dirname "$0")" && pwd)
bin=$dir/${1:-thp_khugepaged}
work=/var/tmp/hugetext-thpcmp
types="file anon"

echo "TAP version 13"
if [ ! -d /sys/kernel/mm/transparent_hugepage ]; then
	echo "1..0 # SKIP kernel without THP"
	exit 4
fi
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built"
	exit 4
fi
set -- $types
echo "1..$#"
if [ -e /sys/kernel/mm/transparent_hugepage/hugetext_enabled ]; then
	echo "# hugetext_enabled=$(cat /sys/kernel/mm/transparent_hugepage/hugetext_enabled)"
else
	echo "# kernel without CONFIG_HUGETEXT"
fi
rm -rf "$work"; mkdir -p "$work"
esc=$(printf '\033')
n=0 failed=0
for t in $types; do
	n=$((n + 1))
	out=$work/$t.out
	# the selftest saves and restores every THP knob it touches itself.
	# Its khugepaged context races itself: khugepaged keeps scanning a
	# region between a case's "not huge" check and the next case's
	# sanity check ("Bail out! Unexpected huge page"), and the forked
	# child of the max_ptes_shared case then leaves before its case
	# line.  A run that bailed out is run again, twice at most, and
	# says so; a bail-out on every run leaves its missing cases to
	# scripts/thp-compare.py.
	runs=0
	while :; do
		runs=$((runs + 1))
		"$bin" all:$t "$work" >"$out" 2>&1
		rc=$?
		grep -q 'Bail out!' "$out" || break
		grep 'Bail out!' "$out" | sed "s/^/# thpcmp: run $runs of $t bailed out: /"
		[ $runs -lt 3 ] || break
	done
	# one line per case: drop colour codes, keep "Name... Result" lines
	sed "s/$esc\[[0-9;]*m//g" "$out" | grep -E '\.\.\. ' | tr -s ' ' |
		sed "s/^/# thpcmp: $t: /"
	cases=$(sed "s/$esc\[[0-9;]*m//g" "$out" | grep -cE '\.\.\. ')
	if [ "$cases" -gt 0 ] && [ $rc -lt 128 ]; then
		echo "ok $n - ${bin##*/} all:$t ran $cases cases (exit $rc, run $runs)"
	else
		echo "not ok $n - ${bin##*/} all:$t: $cases cases, exit $rc"
		sed 's/^/#   /' "$out" | tail -n 20
		failed=$((failed + 1))
	fi
done
rm -rf "$work"
[ $failed -eq 0 ]
