# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for the shell selftests, sourced (not run): ok and nok on top of the
# kernel's own KTAP helpers (tools/testing/selftests/kselftest/ktap_helpers.sh,
# installed next to this file by selftests/Makefile).
#   ok DESCRIPTION     "ok N DESCRIPTION"
#   nok DESCRIPTION    "not ok N DESCRIPTION", and counts it in $fail
# $n is the number of results so far, $fail the number of failures.
. "$(dirname "$0")/ktap_helpers.sh"
n=0 fail=0
# (set -f: ktap_helpers.sh echoes the description unquoted; no globbing)
ok()  { n=$((n + 1)); set -f; ktap_test_pass "$*"; set +f; }
nok() { n=$((n + 1)); fail=$((fail + 1)); set -f; ktap_test_fail "$*"; set +f; }
