#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hugetext on or off changes nothing upstream's mm selftests see: the THP
# selftests' own khugepaged test (tools/testing/selftests/mm/khugepaged.c
# of this kernel's source, built static as thp_khugepaged) runs its
# file-collapse cases, in both of its contexts (khugepaged and
# MADV_COLLAPSE), and its anonymous-memory cases, which hugetext bit 1
# touches; then every program of upstream-mm.list built from the same
# tree.  make check runs this on the CONFIG_HUGETEXT=y kernel booted with
# hugetext=0 and hugetext=3 and on the CONFIG_HUGETEXT=n build of the same
# series, and scripts/thp-compare.py requires the case lists, with their
# results, to be identical (pairs: scripts/thpcmp.list).  Each case is
# printed as "# thpcmp: MEMTYPE|PROGRAM: CASE... RESULT".
# TAP: 1 test per memory type and per program: it ran to its end (was not
# killed or timed out).
#   hugetext_thpcmp.sh [BIN]   BIN: the khugepaged test of the booted
#   kernel's tree (default thp_khugepaged, 6.12's; the mainline series'
#   boots pass thp_khugepaged_mainline, 7.3's, and run up_PROG_mainline)
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
# upstream's other mm programs (upstream-mm.list), built from the same
# tree as BIN: up_PROG, or up_PROG_mainline beside thp_khugepaged_mainline
sfx=${bin##*/thp_khugepaged}
# (the list's lines whose program this tree has, read once)
progs=$(sed -e '/^\s*#/d' -e '/^\s*$/d' "$dir/upstream-mm.list" 2>/dev/null |
	while read -r p rest; do [ ! -x "$dir/up_$p$sfx" ] || echo "$p $rest"; done)
set -- $types $(echo "$progs" | cut -d' ' -f1)
echo "1..$#"
T=/sys/kernel/mm/transparent_hugepage
if [ -e $T/hugetext_enabled ]; then
	echo "# hugetext_enabled=$(cat $T/hugetext_enabled)"
elif [ -e $T/exec_file_enabled ]; then
	# the 7.3 series' knobs: each side's chosen word
	echo "# exec_file_enabled=$(sed 's/.*\[\(.*\)\].*/\1/' $T/exec_file_enabled)" \
	     "exec_anon_enabled=$(sed 's/.*\[\(.*\)\].*/\1/' $T/exec_anon_enabled)"
else
	echo "# kernel without CONFIG_HUGETEXT"
fi
rm -rf "$work"; mkdir -p "$work"
# what upstream's tests expect of a test machine (run_vmtests.sh):
# reserved hugetlb pages, undone at the end.  No swap: with a 64 MB swap
# file, khugepaged's "Swapout 64 of 512 pages" failed once on 7.3 with
# hugetext=3 (1 of about 10 runs, unexplained), so its swap-out cases
# fail on every boot alike, as before
hp=/proc/sys/vm/nr_hugepages
hp_saved=$(cat $hp 2>/dev/null)
# upstream's programs run with address-space randomization off, so each
# lands at the same addresses in every boot and a case that depends on
# where things land comes out the same: mremap_test's "40MB Preamble"
# case maps its preamble without checking the range is free and failed
# with EEXIST in 2 of 40 runs on 7.3 with ASLR on (make check compared
# it as a difference once), 0 of 40 with it off.  Both knobs are put
# back at the end, or when run-tests' timeout kills this script
va=/proc/sys/kernel/randomize_va_space
va_saved=$(cat $va 2>/dev/null)
restore() {
	[ -z "$hp_saved" ] || echo "$hp_saved" >$hp
	[ -z "$va_saved" ] || echo "$va_saved" >$va
}
trap 'restore; exit 1' INT TERM
[ -z "$hp_saved" ] || { echo 64 >$hp; echo "# hugetlb: $(cat $hp) pages reserved"; }
esc=$(printf '\033')
n=0 failed=0
for t in $types; do
	n=$((n + 1))
	out=$work/$t.out
	# the selftest saves and restores every THP knob it touches itself.
	# Its khugepaged context races itself: khugepaged keeps scanning a
	# region between a case's "not huge" check and the next case's
	# sanity check, which then stops the run ("Bail out! Unexpected huge
	# page"; 6.12's test prints "Unexpected huge page" alone and exits
	# 1), and the forked child of the max_ptes_shared case then leaves
	# before its case line.  Such a run is run again, twice at most, and
	# says so with its last lines; a stop on every run leaves its missing
	# cases to scripts/thp-compare.py.  So is a run that stopped before
	# its first case had a result (seen once in a hugetext=0 boot of
	# 6.12: exit 1 right after "Save THP and khugepaged settings"), and
	# one killed by a signal (seen once in 7.3 with hugetext=3: glibc's
	# "free(): invalid pointer", SIGABRT, in collapse_compound_extreme;
	# 0 in 78 runs of the anon cases looped in that boot since)
	runs=0
	while :; do
		runs=$((runs + 1))
		"$bin" all:$t "$work" >"$out" 2>&1
		rc=$?
		why=
		if grep -q 'Bail out!' "$out"; then
			why="bailed out: $(grep -m1 'Bail out!' "$out")"
		elif grep -q 'Unexpected huge page' "$out"; then
			why="bailed out: Unexpected huge page (exit $rc)"
		elif [ $rc -ge 128 ]; then
			why="was killed by signal $((rc - 128)) (exit $rc)"
		elif ! sed "s/$esc\[[0-9;]*m//g" "$out" |
				grep -q 'Allocate huge page on fault\.\.\. *[A-Za-z]'; then
			why="stopped before its first case (exit $rc)"
		fi
		[ -n "$why" ] || break
		echo "# thpcmp: run $runs of $t $why; its last lines:"
		sed "s/$esc\[[0-9;]*m//g" "$out" | tail -n 5 | sed "s/^/# thpcmp:   /"
		[ $runs -lt 3 ] || break
	done
	# one line per case: drop colour codes, keep "Name... Result" lines
	sed "s/$esc\[[0-9;]*m//g" "$out" | grep -E '\.\.\. ' | tr -s ' ' |
		sed "s/^/# thpcmp: $t: /" >"$out.cases"
	cat "$out.cases"
	cases=$(wc -l <"$out.cases")
	if [ "$cases" -gt 0 ] && [ $rc -lt 128 ]; then
		echo "ok $n - ${bin##*/} all:$t ran $cases cases (exit $rc, run $runs)"
	else
		echo "not ok $n - ${bin##*/} all:$t: $cases cases, exit $rc"
		sed 's/^/#   /' "$out" | tail -n 20
		failed=$((failed + 1))
	fi
done
# each upstream program: its TAP case lines as "# thpcmp: PROG: CASE...
# RESULT" (ok, not ok, a SKIP or XFAIL directive; a case skipped without
# a name is named by its reason), and its exit status as one more case,
# all compared by scripts/thp-compare.py; only a program killed or timed
# out fails here
# (upstream-mm.list: an argument TREE=ARG is for that tree's build alone)
tree=6.12
[ -z "$sfx" ] || tree=mainline
while read -r p tmo _ targs; do
	[ -n "$p" ] || continue
	args=
	for a in $targs; do
		case "$a" in
		6.12=*|mainline=*) [ "${a%%=*}" != "$tree" ] || args="$args ${a#*=}" ;;
		*) args="$args $a" ;;
		esac
	done
	n=$((n + 1))
	out=$work/$p.out
	t0=$(date +%s)
	[ -z "$va_saved" ] || echo 0 >$va
	(cd "$work" && timeout "$tmo" "$dir/up_$p$sfx" $args) >"$out" 2>&1
	rc=$?
	[ -z "$va_saved" ] || echo "$va_saved" >$va
	# (programs that print "Name... result" lines instead, as
	# the khugepaged test and other pre-KTAP programs do: those lines)
	sed "s/$esc\[[0-9;]*m//g" "$out" | awk -v p="$p" '
		!/^(#|ok |not ok )/ && /[.][.][.] / {
			gsub(/ +/, " ")
			printf "# thpcmp: %s: %s\n", p, $0
			next
		}
		/^(not )?ok [0-9]+ / {
			res = /^not / ? "FAIL" : "OK"
			sub(/^(not )?ok [0-9]+/, "")
			sub(/^ - /, " ")
			if (match($0, / # ([Ss][Kk][Ii][Pp]|[Xx][Ff][Aa][Ii][Ll])/)) {
				res = toupper(substr($0, RSTART + 3, 1)) == "S" ? "SKIP" : "XFAIL"
				# no name before the directive: its reason names the case
				$0 = RSTART > 1 ? substr($0, 1, RSTART - 1) : substr($0, RSTART + RLENGTH)
			}
			gsub(/ +/, " ")
			sub(/^ /, "")
			printf "# thpcmp: %s: %s... %s\n", p, $0, res
		}' >"$out.cases"
	cat "$out.cases"
	cases=$(wc -l <"$out.cases")
	echo "# thpcmp: $p: exit status... exit $rc"
	if [ $rc -lt 124 ]; then
		echo "ok $n - up_$p$sfx ran $cases cases (exit $rc, $(( $(date +%s) - t0 ))s)"
	else
		echo "not ok $n - up_$p$sfx: $cases cases, exit $rc (killed or timed out)"
		sed 's/^/#   /' "$out" | tail -n 20
		failed=$((failed + 1))
	fi
done <<EOF
$progs
EOF
rm -rf "$work"
restore
[ $failed -eq 0 ]
