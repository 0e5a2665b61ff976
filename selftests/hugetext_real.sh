#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real Debian programs under hugetext: gcc's cc1 (20 MB of ET_EXEC text) and
# gdb (a PIE with 6 MB of text and ~50 DSOs), with THP enabled=madvise and
# khugepaged's default knobs.  Each program is held at a point where it
# waits (cc1 reading an empty pipe, gdb running "shell sleep"), and its text
# coverage -- PMD-mapped bytes / the full 2 MB regions its text could fill --
# is read with the hugetext tool.  hugetext=1: 100% within 2 s of exec;
# hugetext=0: 0%.  Then padding with hugetext_pad_threshold=4096: by
# default (hugetext_pad_rodata=0) cc1 is not padded, as its text borders
# other segments at both ends (16 MB PMD-mapped); with
# hugetext_pad_rodata=1 its text mapping reaches from the 2 MB boundary
# below it to the one above, and all 20 MB of it are PMD-mapped (arm64's
# cc1, 26 MB of text in one segment that starts on a boundary and shares
# its last region with data: 26 MB either way); cc1 still compiles a
# 40-function C file to exactly the assembly it produces without
# hugetext.  TAP; knobs restored on exit.
T=/sys/kernel/mm/transparent_hugepage
HT="python3 /opt/hugetext/hugetext"
. "$(dirname "$0")/hugetext_ktap.sh"	# ok, nok, $n, $fail

[ -f $T/hugetext_enabled ] || { echo "1..0 # SKIP kernel without CONFIG_HUGETEXT"; exit 4; }
knobs_save
trap knobs_restore EXIT
[ ! -f $T/hugetext_pad_threshold ] || echo 0 >$T/hugetext_pad_threshold
echo madvise >$T/enabled
echo "TAP version 13"
echo "1..7"

# coverage PID NAME: print "<coverage-percent> <huge-bytes> <ideal-bytes> <congruent>"
coverage() {
	$HT stat --pid "$1" --json 2>/tmp/stat.err >/tmp/stat.json
	echo "$?" >/tmp/stat.rc
	python3 -c '
import json, sys
d = json.load(sys.stdin)
m = [m for p in d["processes"] for m in p["mappings"] if m["path"].endswith("/" + sys.argv[1])][0]
cov = 100.0 * m["huge"] / m["ideal"] if m["ideal"] else 0.0
print("%.0f %d %d %s" % (cov, m["huge"], m["ideal_if_congruent"], m["congruent"]))' "$2" \
		</tmp/stat.json 2>/tmp/stat.py.err
}

# run_held NAME CMD...: start CMD held waiting, sample after 2 s, release it
run_held() {
	name=$1; shift
	case "$name" in
	cc1) mkfifo /tmp/cc1.in; "$@" </tmp/cc1.in >/dev/null 2>&1 & pid=$!; exec 9>/tmp/cc1.in ;;
	*) "$@" >/tmp/$name.out 2>&1 & pid=$! ;;
	esac
	# the clock starts at the exec: the forked shell may take a while
	# to get there (under TCG a single 4K page copy in a fault has been
	# seen to take seconds, see Documentation/testing.md), and coverage is promised within
	# 2 s of the exec, not of the fork
	exe=$(readlink -f "$1") t=0
	while [ "$(readlink /proc/$pid/exe 2>/dev/null)" != "$exe" ] && [ $t -lt 600 ] &&
		kill -0 $pid 2>/dev/null; do
		usleep 100000; t=$((t + 1))
	done
	[ $t -gt 0 ] && echo "# $name: exec'd $((t / 10)).$((t % 10)) s after its fork" >&2
	sleep 2
	grep -E '^(Name|State):' /proc/$pid/status >/tmp/pre.status 2>&1
	res=$(coverage $pid "$name")
	case "$name" in cc1) exec 9>&-; rm -f /tmp/cc1.in ;; esac
	wait $pid
	rc=$?
	# a program that is gone before it was sampled: say how it ended.
	# KNOWN OPEN: gdb did so once in four boot1 runs on 2 vCPUs
	# (2026-11-23); run it once more, and say so.
	if [ -z "$res" ]; then
		echo "# $name (pid $pid) was not sampled; it exited $rc; its output:" >&2
		sed 's/^/#   /' /tmp/$name.out 2>/dev/null | head -n 5 >&2
		tr '\n' ' ' </tmp/pre.status | sed 's/^/#   at 2 s: /' >&2; echo >&2
		echo "# stat exited $(cat /tmp/stat.rc); its stderr, JSON head, parser error:" >&2
		sed 's/^/#   /' /tmp/stat.err | head -n 5 >&2
		head -c 600 /tmp/stat.json | sed 's/^/#   /' >&2; echo >&2
		sed 's/^/#   /' /tmp/stat.py.err | tail -n 3 >&2
		dmesg | tail -n 5 | sed 's/^/#   dmesg: /' >&2
		if [ -z "${retried:-}" ]; then
			echo "# KNOWN OPEN SMP ISSUE: running $name once more" >&2
			retried=1 run_held "$name" "$@"
			return
		fi
	fi
	echo "$res"
}

cc1=$(readlink -f /usr/bin/cc1)
for mode in 1 0; do
	echo $mode >$T/hugetext_enabled
	echo 3 >/proc/sys/vm/drop_caches
	set -- $(run_held cc1 "$cc1" -quiet -nostdinc -O2 - -o /tmp/empty.s)
	echo "# hugetext=$mode: cc1 text coverage $1% ($2 of $3 bytes PMD-mapped), congruent $4"
	if [ $mode = 1 ]; then want=100; else want=0; fi
	if [ "${1:-x}" = $want ]; then ok "hugetext=$mode: cc1 (ET_EXEC) coverage $1%"
	else nok "hugetext=$mode: cc1 (ET_EXEC) coverage ${1:-?}%, expected $want%"; fi

	echo 3 >/proc/sys/vm/drop_caches
	set -- $(run_held gdb /usr/bin/gdb -nx -batch -ex "shell sleep 4")
	echo "# hugetext=$mode: gdb text coverage $1% ($2 of $3 bytes PMD-mapped), congruent $4"
	if [ "${1:-x}" = $want ]; then ok "hugetext=$mode: gdb (PIE) coverage $1%"
	else nok "hugetext=$mode: gdb (PIE) coverage ${1:-?}%, expected $want%"; fi
done

# padding
if [ ! -f $T/hugetext_pad_threshold ] || [ ! -f $T/hugetext_pad_rodata ]; then
	for i in 5 6 7; do echo "ok $i # SKIP kernel without hugetext padding"; done
	exit 0
fi
echo 1 >$T/hugetext_enabled
echo 4096 >$T/hugetext_pad_threshold
for rodata in 0 1; do
	echo $rodata >$T/hugetext_pad_rodata
	echo 3 >/proc/sys/vm/drop_caches
	set -- $(run_held cc1 "$cc1" -quiet -nostdinc -O2 - -o /tmp/empty.s)
	echo "# padding 4096, pad_rodata $rodata: cc1 text coverage $1% ($2 of $3 bytes PMD-mapped), congruent $4"
	case "$(uname -m)" in
	aarch64)
		# Debian's arm64 cc1: one R E segment (headers, text, rodata)
		# from 0x400000, a 2 MB boundary, to 0x1e9d37a; its data
		# segment starts in that last region: no padding either way
		want=$((26 << 20)) what="its 13 full regions; not padded: the data segment shares the last region" ;;
	*)
		want=$((16 << 20)) what="not padded: its text borders other segments at both ends"
		[ $rodata = 1 ] && want=$((20 << 20)) what="padded at both ends: its whole text" ;;
	esac
	if [ "${1:-x}" = 100 ] && [ "${2:-0}" = $want ]; then
		ok "padding, pad_rodata $rodata: cc1 has $((want >> 20)) MB of text PMD-mapped ($what)"
	else
		nok "padding, pad_rodata $rodata: cc1 has ${2:-?} bytes of text PMD-mapped, expected $((want >> 20)) MB (coverage ${1:-?}%)"
	fi
done
"$cc1" -quiet -nostdinc -O2 /opt/hugetext/big.c -o /tmp/pad.s 2>/tmp/pad.err
rc1=$?
echo 0 >$T/hugetext_pad_threshold
echo 0 >$T/hugetext_enabled
echo 3 >/proc/sys/vm/drop_caches
"$cc1" -quiet -nostdinc -O2 /opt/hugetext/big.c -o /tmp/nopad.s 2>>/tmp/pad.err
rc2=$?
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && cmp -s /tmp/pad.s /tmp/nopad.s && [ -s /tmp/pad.s ]; then
	ok "padding: cc1's output equals its output without hugetext ($(wc -c </tmp/pad.s) bytes)"
else
	sed 's/^/# /' /tmp/pad.err
	nok "padding: cc1 output differs or failed (exit $rc1 / $rc2)"
fi
rm -f /tmp/pad.s /tmp/nopad.s /tmp/pad.err
[ $fail = 0 ]
