#!/usr/bin/env bash
# make demo: boot out/bzImage with hugetext=1 and run the guest demo (gcc's
# cc1 under THP enabled=madvise), printing its report from the guest's results
# channel (out/demo/output.txt; the console is out/demo/console.log).
# HUGETEXT_ARCH=arm64 (make demo ARCH=arm64): out/arm64/Image on
# out/arm64/rootfs.img, Debian's arm64 cc1 (out/demo-arm64/).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/base.sh"
rig_begin demo
d=$top/out/demo
[ "$ROOTOUT" = "$top/out" ] || d=$top/out/demo-$ARCH_NAME
mkdir -p "$d"
log="$d/console.log" res="$d/output.txt"
echo "demo: booting $BASE_PKG $BASE_VERSION + hugetext series for $ARCH_NAME under QEMU (TCG) with $BOOT_ON"
rc=0
rig_run "$top/scripts/run-qemu.sh" --log "$log" --results "$res" --timeout 1200 \
	--kernel "$AOUT/$IMAGE" -- \
	"$BOOT_ON" htrun=demo || rc=$?
cat "$res" 2>/dev/null
[ $rc -eq 0 ] || echo "demo: FAILED (console log: $log, output: $res)"
exit $rc
