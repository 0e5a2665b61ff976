# hugetext: code huge pages for Linux 6.12.  See README.md.
# Every target installs what it needs (scripts/deps.sh) and writes only out/.
#
# The build graph: out/src (the base plus patches/6.12/), out/bzImage and
# out/bzImage-nohugetext, out/selftests, out/rootfs.img are file targets
# with their real prerequisites; the scripts are the recipes.  An unchanged
# tree rebuilds nothing, and "make -n TARGET" shows what would be rebuilt
# ("make -n check" prints make check's whole plan: scripts/check.sh --plan).
SHELL := /bin/bash
S := scripts
O := out

.PHONY: all demo bench check stress deps source kernel bisect rootfs selftests deb system \
	series-export series-import tool-test install-tools clean help FORCE

all: kernel

help:
	@echo "make demo      build, boot with hugetext=1, show cc1's text on 2 MB pages"
	@echo "make demo ARCH=arm64   the same, cross-built, in qemu-system-aarch64 on arm64 Debian programs"
	@echo "make check     every test; last line 'N passed, N failed'"
	@echo "make bench     real programs under hugetext / THP always / THP madvise: out/bench/report.md"
	@echo "make stress    debug kernel (KASAN, lockdep) + 10 min exec/toggle/write storm"
	@echo "make kernel    out/bzImage from the base + patches/6.12/"
	@echo "make bisect    build every patch of the series on its own, and CONFIG_HUGETEXT=n"
	@echo "make deb       linux-image/-headers .debs from Debian's own config (KCONFIG=cloud|generic|FILE,"
	@echo "               TRIM=qemu|LSMOD-FILE, HUGETEXT_KERNEL=7.3, ARCH=arm64; scripts/deb.sh)"
	@echo "make system    Debian 12 (debootstrap) with that package, booted in QEMU: MariaDB + sysbench"
	@echo "make -n check  make check's plan: what it builds, boots and runs (runs nothing)"
	@echo "Ctrl-C stops any target within seconds (its guests and builds too)."
	@echo "make series-export   regenerate patches/6.12/ from out/src commits (HUGETEXT_KERNEL=7.3: patches/7.3/)"
	@echo "make install-tools   install tools/hugetext and its man page (PREFIX=/usr/local)"

# --- the build graph ---------------------------------------------------------
# out/src: the base with the series applied (scripts/fetch-source.sh records
# the series' hash and HEAD in this file)
SRC_STAMP := $(O)/src/.git/hugetext-applied
# the main series' directory and Kconfig fragment (scripts/kernels.list's
# first line: patches/6.12, patches/6.12/Kconfig.fragment)
MAIN_KERNEL := $(patsubst $(CURDIR)/%,%,$(shell . $(S)/base.sh && echo "$$KPATCHES $$KFRAG"))
PATCHDIR := $(word 1,$(MAIN_KERNEL))
KFRAG := $(word 2,$(MAIN_KERNEL))
PATCHES := $(PATCHDIR)/series $(wildcard $(PATCHDIR)/*.patch)
KCONFIG := $(S)/qemu.config $(KFRAG) $(S)/build-kernel.sh
SELFTESTS_STAMP := $(O)/selftests/.built
# the tool's package, its knob table in it (tools/lib/hugetext/knobs.list)
TOOL_LIB := $(wildcard tools/lib/hugetext/*.py) tools/lib/hugetext/knobs.list
SELFTESTS_IN := $(filter-out selftests/list,$(wildcard selftests/*))
ROOTFS_IN := $(S)/mkrootfs.sh $(S)/gen-demo-input.py $(S)/base.sh $(wildcard $(S)/guest/*) \
	selftests/list tools/hugetext $(TOOL_LIB) tools/mkzipapp \
	$(wildcard bench/guest/*) bench/programs.list bench/programs.py bench/itlb/kregions.py

# An image depends on out/src by content, not by time (out/src is only
# order-only for it: a touched patch re-runs fetch-source.sh, a no-op, not a
# kernel build): it is rebuilt when out/src is not what it was built from (a
# commit or an edit there; IMAGE.src-state, written by build-kernel.sh) or
# when the series in $(PATCHDIR) is not the one applied (series_hash).
# Decided here, when the Makefile is read, so make -n knows.
ifneq ($(wildcard $(O)/src/.git),)
SERIES_NOW := $(shell . $(S)/base.sh && series_hash $(CURDIR))
SERIES_APPLIED := $(firstword $(file < $(SRC_STAMP)))
SRC_NOW := $(shell . $(S)/base.sh && src_state $(O)/src)
endif
same = $(and $(findstring $(1),$(2)),$(findstring $(2),$(1)))
stale = $(if $(and $(SERIES_NOW),$(call same,$(SERIES_NOW),$(SERIES_APPLIED)),$(SRC_NOW),\
	$(call same,$(SRC_NOW),$(strip $(file < $(1).src-state)))),,FORCE)

deps:
	@$(S)/deps.sh

$(SRC_STAMP): $(PATCHES) $(S)/base.sh $(S)/fetch-source.sh | deps
	@$(S)/fetch-source.sh
	@touch $@

$(O)/bzImage: $(KCONFIG) $(call stale,$(O)/bzImage) | $(SRC_STAMP) deps
	@$(S)/build-kernel.sh

$(O)/hugetext-n.config:
	@mkdir -p $(O) && echo "# CONFIG_HUGETEXT is not set" >$@

$(O)/bzImage-nohugetext: $(KCONFIG) $(O)/hugetext-n.config \
		$(call stale,$(O)/bzImage-nohugetext) | $(SRC_STAMP) deps
	@$(S)/build-kernel.sh --name nohugetext $(O)/hugetext-n.config

# The other arches of scripts/arches.list (arm64): the main series' kernel
# (out/arm64/Image), its CONFIG_HUGETEXT=n build, and a rootfs of that
# arch's Debian programs and cross-compiled selftests (out/arm64/rootfs.img).
# arch_rules NAME IMAGE FRAGMENT
define arch_rules
$(O)/$(1)/$(2): $(3) $(KFRAG) $(S)/build-kernel.sh $$(call stale,$(O)/$(1)/$(2)) \
		| $(SRC_STAMP) deps
	@HUGETEXT_ARCH=$(1) $(S)/build-kernel.sh
$(O)/$(1)/$(2)-nohugetext: $(3) $(KFRAG) $(S)/build-kernel.sh $(O)/hugetext-n.config \
		$$(call stale,$(O)/$(1)/$(2)-nohugetext) | $(SRC_STAMP) deps
	@HUGETEXT_ARCH=$(1) $(S)/build-kernel.sh --name nohugetext $(O)/hugetext-n.config
$(O)/$(1)/rootfs.img: $(SELFTESTS_IN) $(ROOTFS_IN) $(S)/userland.list \
		$(S)/fetch-userland.sh | $(SRC_STAMP) deps $(O)/$(1)/$(2)
	@HUGETEXT_ARCH=$(1) $(S)/mkrootfs.sh
endef
# a variant of arches.list (arm64's 64k, 16k): variant_rules ARCH IMAGE ARCHFRAG NAME FRAGMENT
define variant_rules
$(O)/$(1)/$(2)-$(4): $(3) $(5) $(KFRAG) $(S)/build-kernel.sh \
		$$(call stale,$(O)/$(1)/$(2)-$(4)) | $(SRC_STAMP) deps
	@HUGETEXT_ARCH=$(1) $(S)/build-kernel.sh --name $(4) $(5)
endef
OTHER_ARCHES := $(shell . $(S)/base.sh && arch_others | tr ' ' :)
arch_word = $(word $(2),$(subst :, ,$(1)))
arch_rule = $(call arch_rules,$(call arch_word,$(1),1),$(call arch_word,$(1),2),$(call arch_word,$(1),3))
$(foreach a,$(OTHER_ARCHES),$(eval $(call arch_rule,$(a))))
arch_variants = $(filter-out -,$(subst $(comma), ,$(call arch_word,$(1),4)))
comma := ,
variant_rule = $(call variant_rules,$(call arch_word,$(1),1),$(call arch_word,$(1),2),\
	$(call arch_word,$(1),3),$(word 1,$(subst =, ,$(2))),$(word 2,$(subst =, ,$(2))))
$(foreach a,$(OTHER_ARCHES),$(foreach v,$(call arch_variants,$(a)),$(eval $(call variant_rule,$(a),$(v)))))

# the selftests, static (mkrootfs.sh runs the same make, then a no-op); with
# the mainline series' own selftest when its tree is there (mainline_kout)
MAINLINE_OUT := $(shell . $(S)/base.sh && mainline_kout)
MAINLINE_TEST := $(if $(MAINLINE_OUT),$(MAINLINE_OUT)/src/tools/testing/selftests/mm/hugetext.c)
$(SELFTESTS_STAMP): $(SELFTESTS_IN) $(TOOL_LIB) $(SRC_STAMP) $(MAINLINE_TEST) | deps
	@top=$(CURDIR) && . $(S)/base.sh && build_begin $(CURDIR)/$(O)/selftests && \
	make -s -C selftests OUT=$(CURDIR)/$(O)/selftests KSFT=$(CURDIR)/$(O)/src/tools/testing/selftests \
		MAINLINE="$(MAINLINE_OUT)" && \
	build_end $(CURDIR)/$(O)/selftests && touch $@

# (a rootfs after its arch's kernel: the bench's cc1 input is a file of that
# kernel's build tree, preprocessed there; see mkrootfs.sh)
$(O)/rootfs.img: $(SELFTESTS_STAMP) $(ROOTFS_IN) | deps $(O)/bzImage
	@$(S)/mkrootfs.sh

source: $(SRC_STAMP)
kernel: $(O)/bzImage
selftests: $(SELFTESTS_STAMP)
rootfs: $(O)/rootfs.img

# --- what runs ---------------------------------------------------------------
bisect: $(SRC_STAMP)
	@$(S)/bisect-build.sh

# make demo ARCH=arm64: the same on another arch of scripts/arches.list
# (ARCH=x86_64, x86 or none: the host's)
DEMO_ARCH := $(filter-out x86_64 x86,$(ARCH))
DEMO_LINE := $(if $(DEMO_ARCH),$(filter $(DEMO_ARCH):%,$(OTHER_ARCHES)))
ifneq ($(DEMO_ARCH),)
ifeq ($(DEMO_LINE),)
$(error ARCH=$(DEMO_ARCH): not an arch of scripts/arches.list (x86_64 and: $(foreach a,$(OTHER_ARCHES),$(call arch_word,$(a),1))))
endif
endif
demo: $(if $(DEMO_LINE),$(O)/$(DEMO_ARCH)/$(call arch_word,$(DEMO_LINE),2) $(O)/$(DEMO_ARCH)/rootfs.img,\
		$(O)/bzImage $(O)/rootfs.img)
	@HUGETEXT_ARCH=$(or $(DEMO_ARCH),$(HUGETEXT_ARCH)) $(S)/demo.sh

# bench/run.sh builds the kernel only when out/bzImage is missing, and the
# rootfs (make out/rootfs.img) when it is stale
bench:
	@bench/run.sh

# make check runs its own steps (each counted, a failed build too); under
# make -n it prints its plan instead ("+": run even with -n)
DRY := $(findstring n,$(firstword -$(MAKEFLAGS)))
check:
	+@$(S)/check.sh $(if $(DRY),--plan)

stress:
	@$(S)/stress.sh

# make deb ARCH=arm64: cross-built for an arch of scripts/arches.list
deb: deps
	@HUGETEXT_ARCH=$(or $(DEMO_ARCH),$(HUGETEXT_ARCH)) $(S)/deb.sh

# a Debian 12 system with make deb's package installed, MariaDB + sysbench
system: deps
	@$(S)/system.sh

tool-test:
	python3 -m unittest discover -s tools/tests
	python3 -m unittest discover -s bench/tests

series-export:
	@$(S)/series.sh export

series-import: deps
	@$(S)/series.sh import

PREFIX ?= /usr/local
install-tools:
	install -d $(DESTDIR)$(PREFIX)/sbin
	python3 tools/mkzipapp $(DESTDIR)$(PREFIX)/sbin/hugetext	# one file: the package, its knob table in it
	install -D -m 0644 tools/hugetext.8 $(DESTDIR)$(PREFIX)/share/man/man8/hugetext.8

clean:
	rm -rf out
