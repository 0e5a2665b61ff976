# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for the shell selftests, sourced (not run): ok and nok on top of the
# kernel's own KTAP helpers (tools/testing/selftests/kselftest/ktap_helpers.sh,
# installed next to this file by selftests/Makefile).
#   ok DESCRIPTION     "ok N DESCRIPTION"
#   nok DESCRIPTION    "not ok N DESCRIPTION", and counts it in $fail
# $n is the number of results so far, $fail the number of failures.
#   knobs_save         save every hugetext knob of the knob table the kernel
#                      has, khugepaged's pace and THP "enabled"
#   knobs_restore      write them back (from the test's EXIT trap)
# The knob table comes from the tool installed beside the selftests
# (/opt/hugetext/hugetext knobs --format=sh, its one parser):
# $HUGETEXT_KNOB_FILES, $HUGETEXT_KNOB_STORM.
. "$(dirname "$0")/ktap_helpers.sh"
HUGETEXT_KNOB_FILES= HUGETEXT_KNOB_STORM=
eval "$(python3 "$(dirname "$0")/../hugetext" knobs --format=sh)"
[ -n "$HUGETEXT_KNOB_FILES" ] ||
	{ echo "# hugetext_ktap.sh: no knob table from $(dirname "$0")/../hugetext" >&2; exit 1; }
n=0 fail=0
# (set -f: ktap_helpers.sh echoes the description unquoted; no globbing)
ok()  { n=$((n + 1)); set -f; ktap_test_pass "$*"; set +f; }
nok() { n=$((n + 1)); fail=$((fail + 1)); set -f; ktap_test_fail "$*"; set +f; }
THP_DIR=/sys/kernel/mm/transparent_hugepage
knobs_save() {
	saved_knobs=
	for f in $HUGETEXT_KNOB_FILES \
		khugepaged/scan_sleep_millisecs khugepaged/pages_to_scan enabled; do
		# "always [madvise] never": the selected word
		[ -f $THP_DIR/$f ] &&
			saved_knobs="$saved_knobs $f=$(sed 's/.*\[\(.*\)\].*/\1/' $THP_DIR/$f)"
	done
}
knobs_restore() {
	for kv in $saved_knobs; do echo "${kv#*=}" >$THP_DIR/${kv%%=*}; done
}
