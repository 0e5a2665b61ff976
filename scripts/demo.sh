#!/usr/bin/env bash
# make demo: boot out/bzImage with hugetext=1 and run the guest demo (gcc's
# cc1 under THP enabled=madvise), printing its report from the console.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_lock demo
rig_signals demo
mkdir -p "$top/out/demo"
log="$top/out/demo/console.log"
echo "demo: booting $BASE_PKG $BASE_VERSION + hugetext series under QEMU (TCG) with hugetext=1"
rc=0
rig_run "$top/scripts/run-qemu.sh" --log "$log" --timeout 1200 -- hugetext=1 htrun=demo || rc=$?
tr -d '\r' <"$log" | sed -n '/^== knobs/,$p' | grep -v -E '^\[ *[0-9]+\.[0-9]+\]'
[ $rc -eq 0 ] || echo "demo: FAILED (console log: $log)"
exit $rc
