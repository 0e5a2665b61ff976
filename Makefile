# hugetext: code huge pages for Linux 6.12.  See README.md.
# Every target installs what it needs (scripts/deps.sh) and writes only out/.
SHELL := /bin/bash
S := scripts

.PHONY: all demo bench check stress deps source kernel bisect rootfs series-export series-import \
	tool-test install-tools clean help

all: kernel

help:
	@echo "make demo      build, boot with hugetext=1, show cc1's text on 2 MB pages"
	@echo "make check     every test; last line 'N passed, N failed'"
	@echo "make bench     real programs under hugetext / THP always / THP madvise: out/bench/report.md"
	@echo "make stress    debug kernel (KASAN, lockdep) + 10 min exec/toggle/write storm"
	@echo "make kernel    out/bzImage from the base + patches/"
	@echo "make bisect    build every patch of the series on its own, and CONFIG_HUGETEXT=n"
	@echo "Ctrl-C stops any target within seconds (its guests and builds too)."
	@echo "make series-export   regenerate patches/ from out/src commits"
	@echo "make install-tools   install tools/hugetext and its man page (PREFIX=/usr/local)"

deps:
	@$(S)/deps.sh

source: deps
	@$(S)/fetch-source.sh

kernel: source
	@$(S)/build-kernel.sh

bisect: source
	@$(S)/bisect-build.sh

rootfs: deps
	@$(S)/mkrootfs.sh

demo: kernel rootfs
	@$(S)/demo.sh

# bench.sh builds the kernel only when out/bzImage is missing, and the
# rootfs when it is missing or older than what the bench puts in it
bench:
	@$(S)/bench.sh

check:
	@$(S)/check.sh

stress:
	@$(S)/stress.sh

tool-test:
	python3 -m unittest discover -s tools/tests

series-export:
	@$(S)/series.sh export

series-import: deps
	@$(S)/series.sh import

PREFIX ?= /usr/local
install-tools:
	install -D -m 0755 tools/hugetext $(DESTDIR)$(PREFIX)/sbin/hugetext
	install -D -m 0644 tools/hugetext.8 $(DESTDIR)$(PREFIX)/share/man/man8/hugetext.8

clean:
	rm -rf out
