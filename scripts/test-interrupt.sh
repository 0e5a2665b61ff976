#!/usr/bin/env bash
# Host-side test of the rig's interruption safety; make check runs it.
#
#   test-interrupt.sh build   "make bisect", stopped in a kernel build
#   test-interrupt.sh guest   "make demo", stopped while its guest boots
#   test-interrupt.sh check   "make check" itself (its logs elsewhere),
#                             stopped in a step (the tool's unit tests,
#                             which run in a lane beside the series' steps:
#                             the lane must stop with them)
#
# The target runs in a session of its own and is stopped at the point twice:
# with SIGINT to its process group (what one Ctrl-C in a terminal sends) and
# with SIGKILL to its process group (a CI time limit, `timeout -s KILL`).
# Each time: nothing of the session is left within 10 s (qemu and compilers
# included); after SIGINT the target says "interrupted", exits non-zero and
# reports no failure; out/src still holds the applied series, unmoved.  The
# run after these is make check's next step (the kernel builds, the guest
# boots), which must pass: that is the "next run starts cleanly" half.
# TAP on stdout.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
point=${1:-}
case "$point" in
build)	target=bisect
	# the kernel's own make, building a prefix of the series
	at() { awk -v s="$1" '$2 == s && $3 ~ /make$/ && /out\/bisect\/build/' ; }
	settle=3 ;;
guest)	target=demo
	at() { awk -v s="$1" '$2 == s && /qemu-system-x86_64/ && /htrun=demo/' ; }
	settle=5 ;;
check)	target=check
	at() { awk -v s="$1" '$2 == s && /unittest discover/' ; }
	settle=2 ;;
*)	echo "usage: test-interrupt.sh build|guest|check" >&2; exit 2 ;;
esac
dir="${HUGETEXT_CHECK_LOGS:-$top/out/check}/interrupt-$point"
rm -rf "$dir"; mkdir -p "$dir"
export HUGETEXT_CHECK_LOGS="$dir/check-logs"
n=0 failed=0
ok()  { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# the live processes of session $1 (a zombie has ended; reaping it is its
# new parent's business)
procs() { ps -e -o pid=,sid=,stat=,args= | awk -v s="$1" '$2 == s && $3 !~ /^Z/ { $3 = ""; print }'; }
src_state() { echo "$(git -C "$top/out/src" symbolic-ref -q --short HEAD) $(git -C "$top/out/src" rev-parse HEAD)"; }

before=$(src_state)
for sig in INT KILL; do
	log="$dir/make-$target-$sig.log"
	# a session of its own, with SIGINT as a terminal's job has it (make
	# check runs this test in the background, where SIGINT is ignored and
	# that would be inherited).  A watcher in that session ends with the
	# target, or kills the whole session when this test is gone: a SIGKILL
	# of make check's process group must not leave the target building in
	# a session of its own, holding out/.rig.lock.
	python3 -c 'import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
test = int(sys.argv[1])
if os.fork() == 0:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    target = os.getppid()
    while os.getppid() == target:
        try:
            os.kill(test, 0)
        except ProcessLookupError:
            os.killpg(0, signal.SIGKILL)
        time.sleep(0.5)
    os._exit(0)
os.execvp(sys.argv[2], sys.argv[2:])' $$ make -C "$top" "$target" >"$log" 2>&1 </dev/null &
	leader=$!
	for ((i = 0; i < 50; i++)); do
		sid=$(ps -o sid= -p "$leader" | tr -d ' ')
		[ "$sid" = "$leader" ] && break
		sleep 0.1
	done
	if [ "$sid" != "$leader" ]; then
		nok "SIG$sig: make $target did not start in its own session (sid '$sid')"
		kill -KILL "$leader" 2>/dev/null; wait "$leader"; continue
	fi
	# wait for the point (a cold tree may first build for many minutes)
	reached=0
	for ((i = 0; i < 2400; i++)); do
		kill -0 "$leader" 2>/dev/null || break
		if [ -n "$(procs "$sid" | at "$sid")" ]; then reached=1; break; fi
		sleep 0.5
	done
	if [ $reached -eq 0 ]; then
		nok "SIG$sig: make $target never reached its $point (log: ${log#"$top"/})"
		tail -n 20 "$log" | sed 's/^/# /'
		kill -KILL -- "-$sid" 2>/dev/null; wait "$leader"; continue
	fi
	sleep "$settle"
	echo "# SIG$sig to make $target's process group during its $point:" \
	     "$(procs "$sid" | wc -l) processes"
	t0=$(date +%s%N)
	# until the wait below, stderr is discarded: bash prints a "Killed"
	# notice of the leader, with its whole command, at any command after
	# the leader is reaped (the test's own output is on stdout)
	exec 3>&2 2>/dev/null
	kill -s "$sig" -- "-$sid"
	left=
	for ((i = 0; i < 100; i++)); do
		left=$(procs "$sid")
		[ -z "$left" ] && break
		sleep 0.1
	done
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	rc=0
	if [ -n "$left" ]; then
		nok "SIG$sig: processes of make $target left 10 s after the signal"
		echo "$left" | sed 's/^/#   /'
		kill -KILL -- "-$sid" 2>/dev/null
	else
		ok "SIG$sig: make $target and every process of it gone in $ms ms"
	fi
	wait "$leader" || rc=$?
	exec 2>&3 3>&-
	if [ "$sig" = INT ]; then
		if [ $rc -ne 0 ] && grep -q 'interrupted' "$log" &&
		   ! grep -E -q 'not ok|FAILED|build failed|^[0-9]+ passed, [0-9]+ failed' "$log"; then
			ok "SIGINT: exit status $rc, says \"$(grep -m1 -o '[a-z -]*: interrupted[^)]*)' "$log")\", reports no failure"
		else
			nok "SIGINT: exit status $rc; the output must say interrupted and report no failure"
			tail -n 15 "$log" | sed 's/^/#   /'
		fi
	fi
	# nothing of the rig's may survive outside the session either
	if pgrep -f "qemu-system-x86_64 .*$top/out/" >/dev/null; then
		nok "SIG$sig: a guest of this rig is still running"
	fi
	if [ "$point" = build ] && [ "$sig" = KILL ]; then
		if [ -f "$top/out/bisect/build/.hugetext-building" ]; then
			ok "SIGKILL: the killed kernel build is marked, the next build redoes what it wrote"
		else
			nok "SIGKILL: the killed kernel build left no mark (out/bisect/build/.hugetext-building)"
		fi
	fi
	after=$(src_state)
	if [ "$after" = "$before" ] && [ -z "$(git -C "$top/out/src" status --porcelain)" ]; then
		ok "SIG$sig: out/src unmoved and clean (${after%% *} at ${after#* })"
	else
		nok "SIG$sig: out/src moved: was '$before', now '$after'"
	fi
done
echo "1..$n"
[ $failed -eq 0 ]
