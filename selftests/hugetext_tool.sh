#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# End-to-end run of tools/hugetext in the guest on the patched kernel:
# status, enable, stat of a program whose text is collapsed, bad input,
# rollback.  TAP output; knobs restored on exit.
T=/sys/kernel/mm/transparent_hugepage
HT="python3 /opt/hugetext/hugetext"
DIR=$(dirname "$0")
. "$(dirname "$0")/hugetext_ktap.sh"	# ok, nok, $n, $fail
check() { desc=$1; shift; if "$@" >/tmp/ht.out 2>&1; then ok "$desc"; else nok "$desc"; sed 's/^/# /' /tmp/ht.out; fi; }

[ -f $T/hugetext_enabled ] || { echo "1..0 # SKIP kernel without CONFIG_HUGETEXT"; exit 4; }
knobs_save
trap knobs_restore EXIT
echo "TAP version 13"
echo "1..14"

check "status exits 0 and reports support" sh -c "$HT status | grep -qi 'hugetext'"
check "status --json is valid JSON with supported=true" \
	sh -c "$HT status --json | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d.get(\"supported\") else 1)'"
check "enable file writes 1" sh -c "$HT enable file && [ \$(cat $T/hugetext_enabled) = 1 ]"
$HT enable 4 >/tmp/ht.out 2>&1; rc=$?
if [ $rc = 2 ] && [ "$(cat $T/hugetext_enabled)" = 1 ]; then ok "enable 4 is rejected with exit 2, knob unchanged"
else nok "enable 4 is rejected with exit 2, knob unchanged (exit $rc)"; fi

echo madvise >$T/enabled
# held until both stats are done (each a Python start in the guest: 8 s
# of hold was once too short for the two), then killed
"$DIR/hugetext_bigtext" huge --timeout 5000 --no-touch --hold 120000 >/tmp/big.out 2>&1 &
pid=$!
sleep 3
$HT stat --pid $pid --json >/tmp/stat.json 2>/tmp/stat.err
check "stat --pid of a collapsed program shows its text PMD-mapped" python3 -c '
import json, sys
d = json.load(open("/tmp/stat.json"))
maps = [m for p in d["processes"] for m in p["mappings"] if m["path"].endswith("hugetext_bigtext")]
m = maps[0]
print("# text", m["size"], "FilePmdMapped", m["file_pmd_mapped"], "ideal", m["ideal"], "coverage", m["coverage"])
sys.exit(0 if m["congruent"] and m["ideal"] > 0 and m["file_pmd_mapped"] == m["ideal"] else 1)'
check "stat text output names the program" sh -c "$HT stat --pid $pid | grep -q hugetext_bigtext"
kill $pid
wait $pid
check "stat of a vanished pid is an error" sh -c "! $HT stat --pid $pid"
check "counters: status shows hugetext_collapse_ok" sh -c "$HT status | grep -q hugetext_collapse_ok"
check "rollback turns hugetext off" sh -c "$HT rollback && [ \$(cat $T/hugetext_enabled) = 0 ]"
# run: the program's own setting (prctl PR_SET_HUGETEXT), whatever the knob
echo 3 >/proc/sys/vm/drop_caches
check "run --mode 1 with hugetext_enabled=0: the program's text PMD-mapped" \
	$HT run --mode 1 -- "$DIR/hugetext_bigtext" huge --timeout 5000 --no-touch
echo 1 >$T/hugetext_enabled
echo 3 >/proc/sys/vm/drop_caches
check "run --off with hugetext_enabled=1: the program stays on 4K" \
	$HT run --off -- "$DIR/hugetext_bigtext" none --timeout 3000 --no-touch
echo 0 >$T/hugetext_enabled
check "run -- CMD that does not exist: exit 127" sh -c "$HT run -- /nonexistent; [ \$? = 127 ]"
# stat reads the process's own setting (Hugetext_prctl: in /proc/PID/status)
check "stat of a process run with --mode 1: hugetext_prctl 5, mode 1" sh -c \
	"$HT run --mode 1 -- sh -c '$HT stat --json --pid \$\$' | python3 -c '
import json, sys
p = json.load(sys.stdin)[\"processes\"][0]
print(\"# hugetext_prctl\", p[\"hugetext_prctl\"], \"hugetext_mode\", p[\"hugetext_mode\"])
sys.exit(0 if (p[\"hugetext_prctl\"], p[\"hugetext_mode\"]) == (5, 1) else 1)'"
check "stat of a process run with --system: hugetext_prctl 0" sh -c \
	"$HT run --system -- sh -c '$HT stat --json --pid \$\$' | python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin)[\"processes\"][0][\"hugetext_prctl\"] == 0 else 1)'"
[ $fail = 0 ]
