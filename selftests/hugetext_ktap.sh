# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for the shell selftests, sourced (not run): ok and nok on top of the
# kernel's own KTAP helpers (tools/testing/selftests/kselftest/ktap_helpers.sh,
# installed next to this file by selftests/Makefile).
#   ok DESCRIPTION     "ok N DESCRIPTION"
#   nok DESCRIPTION    "not ok N DESCRIPTION", and counts it in $fail
# $n is the number of results so far, $fail the number of failures.
#   knobs_save         save every hugetext knob of the knob table (knobs.list,
#                      next to this file) the kernel has, khugepaged's pace
#                      and THP "enabled"
#   knobs_restore      write them back (from the test's EXIT trap)
. "$(dirname "$0")/ktap_helpers.sh"
n=0 fail=0
# (set -f: ktap_helpers.sh echoes the description unquoted; no globbing)
ok()  { n=$((n + 1)); set -f; ktap_test_pass "$*"; set +f; }
nok() { n=$((n + 1)); fail=$((fail + 1)); set -f; ktap_test_fail "$*"; set +f; }
THP_DIR=/sys/kernel/mm/transparent_hugepage
knobs_save() {
	saved_knobs=
	for f in $(awk '$1 !~ /^#/ && NF >= 5 { print $1 }' "$(dirname "$0")/knobs.list") \
		khugepaged/scan_sleep_millisecs khugepaged/pages_to_scan enabled; do
		# "always [madvise] never": the selected word
		[ -f $THP_DIR/$f ] &&
			saved_knobs="$saved_knobs $f=$(sed 's/.*\[\(.*\)\].*/\1/' $THP_DIR/$f)"
	done
}
knobs_restore() {
	for kv in $saved_knobs; do echo "${kv#*=}" >$THP_DIR/${kv%%=*}; done
}
