# shellcheck shell=sh
# The guest's one shared helper, installed as /opt/hugetext/lib.sh and
# sourced by /init, run-tests, the demo and the shell selftests.
#
# The kernel command line is parsed once, by /init (ht_parse_cmdline), into
# /run/hugetext/cmdline.env: one shell assignment per ht* argument
# (htrun=check:boot1 becomes htrun='check:boot1'; the last of a repeated
# argument wins, as the kernel does), and ht_cmdline, the whole line.
# Sourcing this file sources that; nothing else reads /proc/cmdline
# (the bench, in Python, reads the same file with shlex).
#
# The guest's results -- TAP, the demo's report, the bench's records -- go
# to a channel of their own, not the console: a 9p share of the host's
# (run-qemu.sh --results), mounted by /init at $HT_RESULTS; what the guest
# writes to $HT_RESULTS/output is the host's results file.  The console
# keeps the kernel's messages and a line per test (ht_console), so a
# kernel report can be placed.
HT_ENV=/run/hugetext/cmdline.env
HT_RESULTS=/results
HT_RESULTS_TAG=htresults

# ht_quote VALUE: VALUE in single quotes, for the shell and Python's shlex
ht_quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# ht_parse_cmdline: write $HT_ENV from /proc/cmdline (/init, once)
ht_parse_cmdline() {
	mkdir -p "${HT_ENV%/*}"
	set -f
	{
		echo "# /proc/cmdline, parsed once by /init (/opt/hugetext/lib.sh)"
		echo "ht_cmdline=$(ht_quote "$(cat /proc/cmdline)")"
		for arg in $(cat /proc/cmdline); do
			case "$arg" in ht[a-z]*=*) ;; *) continue ;; esac
			case "${arg%%=*}" in *[!a-z0-9_]*) continue ;; esac
			echo "${arg%%=*}=$(ht_quote "${arg#*=}")"
		done
	} >"$HT_ENV.tmp" && mv "$HT_ENV.tmp" "$HT_ENV"
	set +f
}

# ht_console LINE: LINE on the console too (where the kernel's messages are)
ht_console() { echo "$*" >/dev/console 2>/dev/null || true; }

# shellcheck disable=SC1090
[ ! -r "$HT_ENV" ] || . "$HT_ENV"
