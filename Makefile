# hugetext: code huge pages for Linux 6.12 LTS and mainline 7.3.  See README.md.
# Every target installs what it needs (scripts/deps.sh) and writes only out/.
#
# The build graph: each kernel's tree (out/src: the base plus patches/6.12/;
# out/7.3/src), its images on each arch (out/bzImage, -nohugetext, -stock,
# -debug; out/7.3/bzImage, out/arm64/Image, ...: generated from
# scripts/kernels.list and arches.list), out/selftests, out/rootfs.img are
# file targets with their real prerequisites; the scripts are the recipes.  An unchanged
# tree rebuilds nothing, and "make -n TARGET" shows what would be rebuilt
# ("make -n check" prints make check's whole plan: scripts/check.sh --plan).
SHELL := /bin/bash
S := scripts
O := out

.PHONY: all demo bench check stress deps source kernel bisect rootfs selftests deb system \
	series-export series-import series-kselftest tool-test tool-test-installed install-tools clean help FORCE

all: kernel

help:
	@echo "make demo      build, boot with hugetext=1, show cc1's text on 2 MB pages"
	@echo "make demo ARCH=arm64   the same, cross-built, in qemu-system-aarch64 on arm64 Debian programs"
	@echo "make check     every test; last line 'N passed, N failed'"
	@echo "make bench     real programs under hugetext / THP always / THP madvise: out/bench/report.md"
	@echo "make stress    debug kernel (KASAN, lockdep) + 10 min exec/toggle/write storm"
	@echo "make kernel    out/bzImage from the base + patches/6.12/ (make out/7.3/bzImage: patches/7.3/)"
	@echo "make bisect    build every patch of the series on its own, and CONFIG_HUGETEXT=n"
	@echo "make deb       linux-image/-headers .debs from Debian's own config, and the tool's (KCONFIG=cloud|generic|FILE,"
	@echo "               TRIM=qemu|LSMOD-FILE, HUGETEXT_KERNEL=7.3, ARCH=arm64; scripts/deb.sh)"
	@echo "make system    Debian 12 (debootstrap) with that package, booted in QEMU: MariaDB + sysbench"
	@echo "make -n check  make check's plan: what it builds, boots and runs (runs nothing)"
	@echo "Ctrl-C stops any target within seconds (its guests and builds too)."
	@echo "make series-export   regenerate patches/6.12/ from out/src commits (HUGETEXT_KERNEL=7.3: patches/7.3/)"
	@echo "make series-kselftest   kselftest/ into out/src's selftest commit (HUGETEXT_KERNEL=7.3: out/7.3/src)"
	@echo "make install-tools   install tools/hugetext and its man page (PREFIX=/usr/local)"

# --- the build graph ---------------------------------------------------------
# the kernels of scripts/kernels.list as NAME:KOUT, the main one first
KERNEL_LINES := $(shell . $(S)/base.sh && kernel_lines | awk '{print $$1 ":" $$7}')
word_of = $(word $(2),$(subst :, ,$(1)))
# the main kernel's tree, out/src: the base with the series applied
# (scripts/fetch-source.sh records the series' hash and HEAD in this file)
SRC_STAMP := $(call word_of,$(firstword $(KERNEL_LINES)),2)/src/.git/hugetext-applied
SELFTESTS_STAMP := $(O)/selftests/.built
# the tool's package, its knob table in it (tools/lib/hugetext/knobs.list)
TOOL_LIB := $(wildcard tools/lib/hugetext/*.py) tools/lib/hugetext/knobs.list \
	tools/lib/hugetext/counters.list
SELFTESTS_IN := $(filter-out selftests/list,$(wildcard selftests/*))
ROOTFS_IN := $(S)/mkrootfs.sh $(S)/gen-demo-input.py $(S)/base.sh $(wildcard $(S)/guest/*) \
	selftests/list tools/hugetext $(TOOL_LIB) tools/mkzipapp \
	$(wildcard bench/guest/* bench/programs/*.py bench/programs/*/*) bench/itlb/kregions.py

# --- the kernels: rules generated from scripts/kernels.list x arches.list ---
# Every kernel of kernels.list (its tree KOUT/src, the base plus its
# series) on every arch of arches.list has these file targets, IMAGE being
# out/bzImage, out/7.3/bzImage, out/arm64/Image, out/7.3/arm64/Image:
#   IMAGE             the series (the rig's QEMU configuration)
#   IMAGE-nohugetext  the series with CONFIG_HUGETEXT=n
#   IMAGE-stock       the base alone (make bench's KERNEL-stock modes)
#   IMAGE-debug       the series with scripts/debug.config (make stress)
#   IMAGE-VARIANT     the arch's variants (arm64's 64k, 16k)
# and KOUT/src/.git/hugetext-applied, the tree (scripts/fetch-source.sh).
# Scripts build an image with "make IMAGE"; none names a kernel.
#
# An image depends on KOUT/src by content, not by time (KOUT/src is only
# order-only for it: a touched patch re-runs fetch-source.sh, a no-op, not a
# kernel build): it is rebuilt when KOUT/src is not what it was built from
# (a commit or an edit there; IMAGE.src-state, written by build-kernel.sh)
# or when the series in its patches/ directory is not the one applied
# (series_hash).  Decided here, when the Makefile is read, so make -n knows.
IMAGE_LINES := $(shell . $(S)/base.sh && image_lines | tr ' ' :)
same = $(and $(findstring $(1),$(2)),$(findstring $(2),$(1)))
# kernel_state KERNEL KOUT: SERIES_NOW_K, SERIES_APPLIED_K, SRC_NOW_K
define kernel_state
ifneq ($(wildcard $(2)/src/.git),)
SERIES_NOW_$(1) := $$(shell . $(S)/base.sh && kernel_select $(1) && series_hash x)
SERIES_APPLIED_$(1) := $$(firstword $$(file < $(2)/src/.git/hugetext-applied))
SRC_NOW_$(1) := $$(shell . $(S)/base.sh && src_state $(2)/src)
endif
endef
$(foreach l,$(KERNEL_LINES),$(eval $(call kernel_state,$(call word_of,$(l),1),$(call word_of,$(l),2))))
# stale KERNEL IMAGE: FORCE when IMAGE is not built from KERNEL's tree as it is
stale = $(if $(and $(SERIES_NOW_$(1)),$(call same,$(SERIES_NOW_$(1)),$(SERIES_APPLIED_$(1))),\
	$(SRC_NOW_$(1)),$(call same,$(SRC_NOW_$(1)),$(strip $(file < $(2).src-state)))),,FORCE)

deps:
	@$(S)/deps.sh

$(O)/hugetext-n.config:
	@mkdir -p $(O) && echo "# CONFIG_HUGETEXT is not set" >$@

# kernel_rules KERNEL ARCH KOUT IMAGE PATCHES FRAGMENT AFRAGMENT VARIANTS
# (a line of image_lines); the tree's rule once, with the kernel's first arch
define kernel_rules
ifeq ($(filter $(3)/src/.git/hugetext-applied,$(KERNEL_TREES)),)
KERNEL_TREES += $(3)/src/.git/hugetext-applied
$(3)/src/.git/hugetext-applied: $(5)/series $(wildcard $(5)/*.patch) $(S)/base.sh \
		$(S)/fetch-source.sh $(S)/kernels.list | deps
	@HUGETEXT_KERNEL=$(1) $(S)/fetch-source.sh
	@touch $$@
endif
$(4): $(7) $(6) $(S)/build-kernel.sh $$(call stale,$(1),$(4)) | $(3)/src/.git/hugetext-applied deps
	@HUGETEXT_KERNEL=$(1) HUGETEXT_ARCH=$(2) $(S)/build-kernel.sh
$(4)-nohugetext: $(7) $(6) $(S)/build-kernel.sh $(O)/hugetext-n.config \
		$$(call stale,$(1),$(4)-nohugetext) | $(3)/src/.git/hugetext-applied deps
	@HUGETEXT_KERNEL=$(1) HUGETEXT_ARCH=$(2) $(S)/build-kernel.sh --name nohugetext \
		$(O)/hugetext-n.config
$(4)-debug: $(7) $(6) $(S)/debug.config $(S)/build-kernel.sh \
		$$(call stale,$(1),$(4)-debug) | $(3)/src/.git/hugetext-applied deps
	@HUGETEXT_KERNEL=$(1) HUGETEXT_ARCH=$(2) $(S)/build-kernel.sh --name debug $(S)/debug.config
# the base alone: its pinned version (kernels.list), not the series
$(4)-stock: $(7) $(6) $(S)/build-kernel.sh $(S)/kernels.list | $(3)/src/.git/hugetext-applied deps
	@HUGETEXT_KERNEL=$(1) HUGETEXT_ARCH=$(2) $(S)/build-kernel.sh --stock
$(foreach v,$(filter-out -,$(subst $(comma), ,$(8))),$(call variant_rules,$(1),$(2),$(3),$(4),$(6),$(7),$(v)))
endef
comma := ,
# variant_rules KERNEL ARCH KOUT IMAGE FRAGMENT AFRAGMENT NAME=VFRAGMENT
variant_rules = $(call variant_rule,$(1),$(2),$(3),$(4),$(5),$(6),$(firstword $(subst =, ,$(7))),$(word 2,$(subst =, ,$(7))))
define variant_rule
$(4)-$(7): $(6) $(8) $(5) $(S)/build-kernel.sh $$(call stale,$(1),$(4)-$(7)) \
		| $(3)/src/.git/hugetext-applied deps
	@HUGETEXT_KERNEL=$(1) HUGETEXT_ARCH=$(2) $(S)/build-kernel.sh --name $(7) $(8)

endef
image_rule = $(call kernel_rules,$(call word_of,$(1),1),$(call word_of,$(1),2),$(call word_of,$(1),3),\
	$(call word_of,$(1),4),$(call word_of,$(1),5),$(call word_of,$(1),6),$(call word_of,$(1),7),\
	$(call word_of,$(1),8))
$(foreach l,$(IMAGE_LINES),$(eval $(call image_rule,$(l))))

# The other arches of scripts/arches.list (arm64): a rootfs of that arch's
# Debian programs and cross-compiled selftests (out/arm64/rootfs.img),
# after the main kernel's image for it.  arch_rules NAME IMAGE
# (and, when the mainline series' tree is there, after that kernel's image
# for the arch: its selftests need its uapi headers for the arch).  The
# series' trees are prerequisites, not only ordered before: a series
# applied again (its kselftest changed) makes the image again, as the
# x86-64 selftests' stamp does
define arch_rules
$(O)/$(1)/rootfs.img: $(SELFTESTS_IN) $(ROOTFS_IN) $(S)/userland.list \
		$(S)/fetch-userland.sh $(MAINLINE_TEST) $(SRC_STAMP) \
		$(if $(MAINLINE_REL),$(MAINLINE_REL)/src/.git/hugetext-applied) \
		| deps $(O)/$(1)/$(2) $(if $(MAINLINE_REL),$(MAINLINE_REL)/$(1)/$(2))
	@HUGETEXT_ARCH=$(1) $(S)/mkrootfs.sh
endef
# the mainline series' output directory, when its tree is there (base.sh)
MAINLINE_OUT := $(shell . $(S)/base.sh && mainline_kout)
# (the same, relative, as the kernels' rules name its files)
MAINLINE_REL := $(patsubst $(CURDIR)/%,%,$(MAINLINE_OUT))
# (its kselftest's sources there, all of them: the programs and helpers
# kselftest/ makes, scripts/kselftest.py)
MAINLINE_TEST := $(if $(MAINLINE_OUT),$(wildcard $(MAINLINE_OUT)/src/tools/testing/selftests/mm/hugetext*.[ch]))
OTHER_ARCHES := $(shell . $(S)/base.sh && arch_others | tr ' ' :)
arch_word = $(word $(2),$(subst :, ,$(1)))
$(foreach a,$(OTHER_ARCHES),$(eval $(call arch_rules,$(call arch_word,$(a),1),$(call arch_word,$(a),2))))

# the selftests, static (mkrootfs.sh runs the same make, then a no-op); with
# the mainline series' own selftest when its tree is there (mainline_kout).
# After the main kernel: its series' own selftest (mm_hugetext_*) is built
# against the uapi headers that build installs (out/build-main/usr/include)
$(SELFTESTS_STAMP): $(SELFTESTS_IN) $(TOOL_LIB) $(SRC_STAMP) $(MAINLINE_TEST) | deps $(O)/bzImage
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

# bench/run.sh builds each mode's image and each arch's rootfs through the
# rules above (rebuilt when stale)
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

# the tool's unit tests against the one-file copy make install-tools installs
tool-test-installed:
	@tools/tests/run-installed

series-export:
	@$(S)/series.sh export

series-import: deps
	@$(S)/series.sh import

# kselftest/ into out/src's selftest commit (HUGETEXT_KERNEL=7.3: out/7.3/src's)
series-kselftest:
	@$(S)/series.sh kselftest

PREFIX ?= /usr/local
install-tools:
	install -d $(DESTDIR)$(PREFIX)/sbin
	python3 tools/mkzipapp $(DESTDIR)$(PREFIX)/sbin/hugetext	# one file: the package, its knob table in it
	install -D -m 0644 tools/hugetext.8 $(DESTDIR)$(PREFIX)/share/man/man8/hugetext.8

clean:
	rm -rf out
