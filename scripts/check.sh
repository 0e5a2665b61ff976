#!/usr/bin/env bash
# make check: everything, from a fresh clone.  Each step, each guest boot of
# scripts/boots.list and each TAP result the guests write to their results
# channel (scripts/run-qemu.sh --results) counts; the last line is
# "N passed, N failed"; non-zero exit on any failure.  Logs in out/check/.
# A Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the current step and its guest
# within seconds and ends with "make check: interrupted" (exit
# 130/143/129), not with a test count.
#
#   check.sh --plan   (make -n check) print the plan, run nothing: each step
#                     with its command (and for a make target, what make
#                     would rebuild), each guest boot with the tests it runs
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
plan=0
[ "${1:-}" != --plan ] || plan=1
# HUGETEXT_CHECK_LOGS: another log directory (the interruption test runs
# a make check inside this one)
logs=${HUGETEXT_CHECK_LOGS:-$top/out/check}
pass=0 fail=0 reruns=0
# the time of each step, alone boot and side-by-side group: "SECS WHAT"
times=()
if [ $plan -eq 0 ]; then
	rig_lock "make check"
	rig_signals "make check"
	RIG_ON_STOP='echo "# stopped after $pass passed, $fail failed: not a result" >&2'
	rm -rf "$logs"; mkdir -p "$logs"
else
	echo "# make check's plan (make -n check: nothing is run)"
fi
t0=$(date +%s)

ok()   { pass=$((pass + 1)); echo "ok - $*"; }
nok()  { fail=$((fail + 1)); echo "not ok - $*"; }
# step NAME CMD...: run CMD, log to out/check/NAME.log
step() {
	local name=$1; shift
	local s=$(date +%s)
	if [ $plan -eq 1 ]; then
		local cmd=("${@#"$top"/}")
		echo "step $name: ${cmd[*]}"
		if [ "$1" = make ]; then
			local todo
			todo=$("$@" -n 2>&1 | grep -v -e '^make.*: Nothing to be done' -e 'deps\.sh$')
			echo "${todo:-(up to date)}" | sed 's/^/    would run: /; s/would run: (up to date)/up to date/'
		fi
		return 0
	fi
	local rc=0 secs
	rig_run "$@" >"$logs/$name.log" 2>&1 || rc=$?
	secs=$(( $(date +%s) - s ))
	times+=("$secs step $name")
	if [ $rc -eq 0 ]; then
		ok "$name (${secs}s)"
		return 0
	fi
	nok "$name (${secs}s), log: out/check/$name.log"
	tail -n 30 "$logs/$name.log" | sed 's/^/#   /'
	return 1
}
# lane NAME FUNC: FUNC's steps in the background, one after another,
# beside the steps that follow, until "lane_join NAME" reports them (their
# lines, counts and times) in their order.  For steps of one thread that
# share nothing with the others: two of them keep both cores busy
# (measured: the tool's unit tests and their installed copy, 225 s, ran
# beside the series' application and checkpatch, 278 s).  A Ctrl-C stops
# the lane with the step in front (RIG_LANES).
declare -A lane_pid=()
lane() {
	local name=$1; shift
	if [ $plan -eq 1 ]; then
		echo "# lane $name: the steps below run beside the ones that follow, up to lane_join"
		"$@"
		return 0
	fi
	( pass=0 fail=0 times=() RIG_LANES=
	  "$@" >"$logs/lane-$name.out" 2>&1
	  printf '%s\n' "${times[@]}" >"$logs/lane-$name.times"
	  echo "$pass $fail" >"$logs/lane-$name.counts" ) &
	RIG_LANES="${RIG_LANES:+$RIG_LANES }$!"
	lane_pid[$name]=$!
	RIG_CHILD=$RIG_LANES
}
lane_join() {
	local name=$1 pid=${lane_pid[$1]:-} p=0 f=1 t s=$(date +%s) keep=() l
	[ $plan -eq 0 ] || { echo "# lane $name joins here"; return 0; }
	wait "$pid" || true
	for l in $RIG_LANES; do [ "$l" = "$pid" ] || keep+=("$l"); done
	RIG_LANES=${keep[*]} RIG_CHILD=${keep[*]}
	echo "# lane $name (run beside the steps above; waited $(( $(date +%s) - s ))s for it here):"
	cat "$logs/lane-$name.out" 2>/dev/null
	[ ! -f "$logs/lane-$name.counts" ] || read -r p f <"$logs/lane-$name.counts"
	pass=$((pass + p)); fail=$((fail + f))
	[ -f "$logs/lane-$name.counts" ] || echo "not ok - lane $name ended without its counts (killed?)"
	while read -r t; do [ -z "$t" ] || times+=("$t (lane $name)"); done <"$logs/lane-$name.times" 2>/dev/null
}
# boot NAME CPUS KERNEL TIMEOUT CMDLINE...: one guest run (a line of
# scripts/boots.list) and its report: boot_run, then boot_report
boot() {
	[ $plan -eq 0 ] || { boot_plan "$@"; return 0; }
	rm -f "$logs/guest-$1.rc"
	local s=$(date +%s)
	rig_run boot_run "$@"
	times+=("$(( $(date +%s) - s )) boot $1")
	boot_report "$@"
}
boot_plan() {
	local name=$1 cpus=$2 kernel=$3 tmo=$4 a; shift 4
	echo "boot $name: $cpus vCPUs, out/$kernel, timeout ${tmo}s${BOOT_WITH:+, $BOOT_WITH}: $*"
	for a in "$@"; do
		case "$a" in htrun=check:*)
			"$top/scripts/guest/run-tests" --list "$top/selftests/list" "${a#htrun=check:}" |
				sed 's/^/    runs: /' ;;
		esac
	done
}
# boot_run NAME CPUS KERNEL TIMEOUT CMDLINE...: the guest, its verdict and
# its time in out/check/guest-NAME.{log,tap,verdict,rc} ($BOOT_SNAPSHOT:
# run-qemu.sh's --snapshot)
boot_run() {
	local name=$1 cpus=$2 kernel=$3 tmo=$4 s=$(date +%s) rc=0; shift 4
	"$top/scripts/run-qemu.sh" --log "$logs/guest-$name.log" --results "$logs/guest-$name.tap" \
		--timeout "$tmo" --kernel "$top/out/$kernel" --cpus "$cpus" ${BOOT_SNAPSHOT:-} -- "$@" \
		>"$logs/guest-$name.verdict" 2>&1 || rc=$?
	echo "$rc $(( $(date +%s) - s ))" >"$logs/guest-$name.rc"
}
# RERUN: the lines a test prints when it runs something again rather than
# fail (hugetext_thpcmp.sh: a THP selftest run that bailed out, was
# killed or stopped before its first case; hugetext_jvm: "KNOWN OPEN
# TCG ISSUE", javac once more); each is one rerun, counted in the
# boot's summary line and in the total
RERUN='^# (thpcmp: run [0-9]+ of |.*KNOWN OPEN)'
# boot_report NAME CPUS KERNEL TIMEOUT CMDLINE...: count the TAP results
# the guest wrote to its results channel (guest-NAME.tap; its console:
# guest-NAME.log), its reruns and its verdict
boot_report() {
	local name=$1 log="$logs/guest-$1.log" tap="$logs/guest-$1.tap" rc=1 secs=? p f r rr=; shift 4
	[ ! -f "$logs/guest-$name.rc" ] || read -r rc secs <"$logs/guest-$name.rc"
	[ ! -f "$log" ] || { tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"; }
	[ -f "$tap" ] || : >"$tap"
	grep -E '^(not )?ok [0-9]+ ' "$tap" | sed "s/^/  [$name] /"
	p=$(grep -cE '^ok [0-9]+ ' "$tap")
	f=$(grep -cE '^not ok [0-9]+ ' "$tap")
	r=$(grep -cE "$RERUN" "$tap")
	pass=$((pass + p)); fail=$((fail + f)); reruns=$((reruns + r))
	[ "$r" = 0 ] || rr=", $r reruns: $(grep -E "$RERUN" "$tap" | sed 's/^# //' | cut -c1-60 | paste -sd ';')"
	if [ "$rc" = 0 ]; then
		ok "guest $name: $* (${secs}s${BOOT_WITH:+, $BOOT_WITH}, console clean, exit status 0$rr)"
	else
		nok "guest $name: $* (${secs}s${BOOT_WITH:+, $BOOT_WITH}$rr)"
		sed 's/^/#   /' "$logs/guest-$name.verdict" | tail -n 70
	fi
}
# side_by_side LINE...: the boots of one group of scripts/boots.list (its
# "side" column), two at a time, each on a snapshot of its root filesystem;
# reported in the list's order when the last has ended.  Two guests is what
# the host's two cores carry: most of these tests run one thread, so a
# guest alone leaves one core idle (measured: hugetext0 and nohugetext
# together 151 s, one after the other 248 s).  A Ctrl-C stops them all
# (RIG_CHILD holds every one).
side_by_side() {
	local line name cpus kernel tmo side rest args running=() done_pid pid keep
	local s=$(date +%s) n=$#
	BOOT_SNAPSHOT=--snapshot
	for line in "$@"; do
		read -r name cpus kernel tmo side rest <<<"$line"
		read -r -a args <<<"$rest"
		if [ $plan -eq 1 ]; then
			BOOT_WITH="side by side ($side)" boot_plan "$name" "$cpus" "$kernel" "$tmo" "${args[@]}"
			continue
		fi
		while [ ${#running[@]} -ge 2 ]; do
			wait -n -p done_pid "${running[@]}" || true
			keep=()
			for pid in "${running[@]}"; do [ "$pid" = "$done_pid" ] || keep+=("$pid"); done
			running=("${keep[@]}")
			RIG_CHILD=${running[*]}
		done
		rm -f "$logs/guest-$name.rc"
		boot_run "$name" "$cpus" "$kernel" "$tmo" "${args[@]}" &
		running+=($!)
		RIG_CHILD=${running[*]}
	done
	for pid in "${running[@]}"; do wait "$pid" || true; done
	RIG_CHILD=
	BOOT_SNAPSHOT=
	[ $plan -eq 0 ] || return 0
	for line in "$@"; do
		read -r name cpus kernel tmo side rest <<<"$line"
		read -r -a args <<<"$rest"
		BOOT_WITH="side by side ($side)" boot_report "$name" "$cpus" "$kernel" "$tmo" "${args[@]}"
	done
	times+=("$(( $(date +%s) - s )) boots side by side ($side, $n)")
	echo "# the $n boots side by side ($side) took $(( $(date +%s) - s ))s"
}
# boots: every line of scripts/boots.list, in order; the consecutive lines
# of one group (column "side") side by side
boots() {
	local line lines name cpus kernel tmo side rest args n=0 group=() gname=
	mapfile -t lines <"$top/scripts/boots.list"
	lines+=("")
	for line in "${lines[@]}"; do
		n=$((n + 1))
		read -r name cpus kernel tmo side rest <<<"$line"
		case "$name" in \#*) continue ;; esac
		if [ ${#group[@]} -gt 0 ] && { [ -z "$name" ] || [ "$side" != "$gname" ]; }; then
			side_by_side "${group[@]}"
			group=()
		fi
		[ -n "$name" ] || continue
		case "$cpus$tmo" in *[!0-9]*|'') nok "scripts/boots.list:$n: bad line: $line"; continue ;; esac
		case "$side" in ''|*[!a-z0-9-]*) nok "scripts/boots.list:$n: bad side column '$side': $line"; continue ;; esac
		if [ "$side" != - ]; then
			group+=("$line") gname=$side
			continue
		fi
		read -r -a args <<<"$rest"
		boot "$name" "$cpus" "$kernel" "$tmo" "${args[@]}"
	done
}

# the kernels of scripts/kernels.list: the first is the main one (steps
# without a suffix), the others' steps are named after them (-7.3)
mapfile -t kernels < <(kernel_names)
ksuffix() { [ "$1" = "${kernels[0]}" ] || echo "-$1"; }
echo "# hugetext make check: base $BASE_PKG $BASE_VERSION (pinned); kernels: ${kernels[*]}"
step deps "$top/scripts/deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
# the tables join (a boot whose tag selects no test, a test, boot, image
# or comparison that does not exist: each would run nothing and pass),
# and the rig's own unit tests of that guard and of the comparison
step tables python3 "$top/scripts/check-tables.py"
# the tool's and the bench's tests (one thread each, reading only tools/,
# bench/ and a temporary DESTDIR) beside the series' steps below
tool_steps() {
	step tool-unit-tests python3 -m unittest discover -s "$top/tools/tests"
	# the same tests against the one-file copy make install-tools installs
	step tool-unit-tests-installed "$top/tools/tests/run-installed"
	step bench-unit-tests python3 -m unittest discover -s "$top/bench/tests"
	step tool-stat-json-host sh -c "'$top/tools/hugetext' stat --json | python3 -m json.tool >/dev/null"
}
lane tools tool_steps
step rig-unit-tests python3 -m unittest discover -s "$top/scripts/tests"
for k in "${kernels[@]}"; do
	if ! step "series-applies$(ksuffix "$k")" env HUGETEXT_KERNEL="$k" "$top/scripts/fetch-source.sh"; then
		[ "$k" != "${kernels[0]}" ] || { lane_join tools; echo "$pass passed, $fail failed"; exit 1; }
		continue
	fi
	[ $plan -eq 1 ] || sed -n '1,/^applied/{p;b};/^  /p' "$logs/series-applies$(ksuffix "$k").log" | sed 's/^/# /'
	# the series' selftest files are what kselftest/ makes (one source)
	step "kselftest-one-source$(ksuffix "$k")" python3 "$top/scripts/kselftest.py" check "$k"
	step "checkpatch$(ksuffix "$k")" env HUGETEXT_KERNEL="$k" "$top/scripts/checkpatch.sh"
	# make deb's configuration, not its build: Debian's cloud config of
	# this kernel merged with the fragments, every symbol verified (seconds)
	step "deb-config$(ksuffix "$k")" env HUGETEXT_KERNEL="$k" CONFIG_ONLY=1 "$top/scripts/deb.sh"
done
for a in $(arch_names | tail -n +2); do
	step "deb-config-$a" env HUGETEXT_ARCH="$a" CONFIG_ONLY=1 "$top/scripts/deb.sh"
done
step deb-refusals "$top/scripts/test-deb.sh"
lane_join tools
# Ctrl-C and SIGKILL of "make bisect" in a kernel build; the next run is the
# step after it, which must pass
step rig-interrupt-build "$top/scripts/test-interrupt.sh" build
# the same for a make check of its own, stopped in a step
step rig-interrupt-check "$top/scripts/test-interrupt.sh" check
# the other kernels' series, each patch built on its own and with
# CONFIG_HUGETEXT=n (their boots in scripts/boots.list need their images)
for k in "${kernels[@]:1}"; do
	step "kernel-builds-bisectable-and-hugetext-n-$k" env HUGETEXT_KERNEL="$k" \
		"$top/scripts/bisect-build.sh"
done
if step kernel-builds-bisectable-and-hugetext-n "$top/scripts/bisect-build.sh"; then
	# the same during "make demo"'s guest boot; the next runs are the boots
	step rig-interrupt-guest "$top/scripts/test-interrupt.sh" guest
	# out/rootfs.img from the Makefile's graph: rebuilt when stale
	step rootfs make -s -C "$top" out/rootfs.img && {
		# the other arches of scripts/arches.list: the main series'
		# kernel cross-built (every patch is the same C code on every
		# arch: the prefixes and CONFIG_HUGETEXT=n are built above, for
		# x86-64) and a rootfs of that arch's Debian programs; their
		# boots in scripts/boots.list fail without them
		# (and its variants: arm64's 64 KB- and 16 KB-page kernels)
		# (every kernel of kernels.list, image_lines: the mainline
		# series' arm64 kernels too, before the rootfs, which holds both
		# series' selftests built with each kernel's uapi headers)
		first_arch=$(arch_names | head -n1)
		while read -r k a _ image _ _ _ variants; do
			[ "$a" != "$first_arch" ] || continue
			step "kernel$(ksuffix "$k")-$a" make -s -C "$top" "$image"
			for v in ${variants//,/ }; do
				[ "$v" = - ] ||
					step "kernel$(ksuffix "$k")-$a-${v%%=*}" make -s -C "$top" "$image-${v%%=*}"
			done
		done < <(image_lines)
		while read -r a _; do
			step "rootfs-$a" make -s -C "$top" "out/$a/rootfs.img"
		done < <(arch_others)
		boots
		# the THP selftests' case lists of two boots, hugetext=0 or
		# hugetext=3 against CONFIG_HUGETEXT=n (scripts/thpcmp.list)
		while read -r name a b; do
			step "$name" python3 "$top/scripts/thp-compare.py" \
				"$logs/guest-$a.tap" "$logs/guest-$b.tap"
		done < <(sed -e '/^\s*#/d' -e '/^\s*$/d' "$top/scripts/thpcmp.list")
	}
fi
[ $plan -eq 0 ] || exit 0
# the budget, in every log: each step, alone boot and side-by-side group
# in order, then the five slowest
echo "# time of each step (s):"
for t in "${times[@]}"; do echo "#   $t"; done
echo "# the five slowest:"
printf '%s\n' "${times[@]}" | sort -rn | head -n 5 | sed 's/^/#   /'
echo "# reruns (a bail-out or KNOWN OPEN ISSUE run again, in the boots' lines above): $reruns"
echo "# make check took $(( $(date +%s) - t0 ))s; logs in out/check/"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
