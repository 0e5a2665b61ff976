#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The way back from hugetext, as Documentation/admin-guide/mm/transhuge.rst
# describes it: writing 0 to the knobs stops new work at once (a program
# started afterwards is mapped with 4K pages and nothing is collapsed),
# debugfs split_huge_pages returns a running program's text mappings and
# its huge page cache to 4K pages while it keeps computing the right
# results, and drop_caches then leaves no file THP behind.  TAP; knobs
# restored on exit.
T=/sys/kernel/mm/transparent_hugepage
D=$(dirname "$0")
SPLIT=/sys/kernel/debug/split_huge_pages
. "$(dirname "$0")/hugetext_ktap.sh"	# ok, nok, $n, $fail
vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# pmd_kb PID: FilePmdMapped (kB) of PID's executable mappings
pmd_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { x = ($2 ~ /x/) }
	     x && $1 == "FilePmdMapped:" { s += $2 } END { print s + 0 }' "/proc/$1/smaps"
}

[ -f $T/hugetext_enabled ] || { echo "1..0 # SKIP kernel without CONFIG_HUGETEXT"; exit 4; }
[ -f $SPLIT ] || { echo "1..0 # SKIP no $SPLIT (debugfs or CONFIG_DEBUG_FS missing)"; exit 4; }
knobs_save
restore() {
	knobs_restore
	[ -z "${pid:-}" ] || kill "$pid" 2>/dev/null
}
trap restore EXIT
echo "TAP version 13"
echo "1..5"
echo madvise >$T/enabled
echo 100 >$T/khugepaged/scan_sleep_millisecs
echo 1 >$T/hugetext_enabled
[ ! -f $T/hugetext_pad_threshold ] || echo 4096 >$T/hugetext_pad_threshold
echo 3 >/proc/sys/vm/drop_caches

# a program whose text is huge, kept running
"$D/hugetext_bigtext" huge --hold 60000 >/tmp/rollback.out 2>&1 &
pid=$!
# it prints "# FilePmdMapped <n> KB of ideal <m> KB" once all are (or at 60 s)
i=0
while [ $i -lt 400 ] && ! grep -q '^# FilePmdMapped' /tmp/rollback.out; do sleep 0.2; i=$((i + 1)); done
ideal=$(sed -n 's/^# FilePmdMapped .* of ideal \([0-9]*\) KB.*/\1/p' /tmp/rollback.out)
k=$(pmd_kb $pid)
if [ -n "$ideal" ] && [ "$ideal" -gt 0 ] && [ "$k" -ge "$ideal" ]; then
	ok "hugetext=1: running program has $k kB of text PMD-mapped (all of its $ideal kB)"
else
	sed 's/^/# /' /tmp/rollback.out
	nok "hugetext=1: running program has $k kB of text PMD-mapped, ideal ${ideal:-?} kB"
fi

# off: nothing new is collapsed, a new program gets 4K pages
echo 0 >$T/hugetext_enabled
[ ! -f $T/hugetext_pad_threshold ] || echo 0 >$T/hugetext_pad_threshold
c0=$(( $(vmstat hugetext_collapse_ok) + $(vmstat hugetext_map_ok) + $(vmstat hugetext_pad) + $(vmstat hugetext_pad_head) ))
out=$("$D/hugetext_bigpie" none --timeout 3000 2>&1)
rc=$?
c1=$(( $(vmstat hugetext_collapse_ok) + $(vmstat hugetext_map_ok) + $(vmstat hugetext_pad) + $(vmstat hugetext_pad_head) ))
if [ $rc = 0 ] && [ $c0 = $c1 ]; then ok "hugetext=0: a new program runs on 4K pages, no hugetext work done"
else echo "$out" | sed 's/^/# /'; nok "hugetext=0: new program exit $rc, hugetext counters $c0 -> $c1"; fi

# split_huge_pages: the running program's text back to 4K pages
echo 1 >$SPLIT
k=$(pmd_kb $pid)
fh=$(meminfo FileHugePages)
if [ "$k" = 0 ]; then ok "split_huge_pages: running program's FilePmdMapped is 0 (FileHugePages $fh kB)"
else nok "split_huge_pages: running program still has $k kB PMD-mapped"; fi

# it still runs correctly: a fresh run over the same (now 4K) page cache
out=$("$D/hugetext_bigtext" none --timeout 3000 2>&1)
rc=$?
if [ $rc = 0 ]; then ok "after the split, the program computes the right results and equals its file, on 4K pages"
else echo "$out" | sed 's/^/# /'; nok "after the split: exit $rc"; fi

kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=
echo 3 >/proc/sys/vm/drop_caches
fh=$(meminfo FileHugePages)
if [ "${fh:-1}" = 0 ]; then ok "drop_caches: no file THP left (FileHugePages 0 kB)"
else nok "drop_caches: FileHugePages still $fh kB"; fi
[ $fail = 0 ]
