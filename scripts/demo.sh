#!/usr/bin/env bash
# make demo: boot out/bzImage with hugetext=1 and run the guest demo (gcc's
# cc1 under THP enabled=madvise), printing its report from the guest's results
# channel (out/demo/output.txt; the console is out/demo/console.log).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin demo
mkdir -p "$top/out/demo"
log="$top/out/demo/console.log" res="$top/out/demo/output.txt"
echo "demo: booting $BASE_PKG $BASE_VERSION + hugetext series under QEMU (TCG) with hugetext=1"
rc=0
rig_run "$top/scripts/run-qemu.sh" --log "$log" --results "$res" --timeout 1200 -- \
	hugetext=1 htrun=demo || rc=$?
cat "$res" 2>/dev/null
[ $rc -eq 0 ] || echo "demo: FAILED (console log: $log, output: $res)"
exit $rc
