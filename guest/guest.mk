# SPDX-License-Identifier: GPL-2.0
# The patched Linux 7.3 guest: extract, patch, configure, build, boot.
# Included from the top-level Makefile; every variable here starts with
# GUEST_ so that none of the model's (CC, CFLAGS, BUILD) leaks into the
# kernel's own build, which runs as a separate make with MAKEFLAGS cleared.
#
#   make guest-check            everything, with the debug configuration
#   make guest-check GUEST_CONFIG=ci     what make check runs: no KASAN
#   make guest-check GUEST_CONFIG=base   the quickest configuration
#   make guest-check-broken     the shadow check fails a broken COW walk
#   make guest-dev              a git tree of the kernel for writing patches/
#   make guest-series-check     every patch builds alone, checkpatch --strict
#   make guest-times            what each step took, as last measured

GUEST_BUILD := build-guest
GUEST_CONFIG := debug
GUEST_CHECK_CONFIG := ci
GUEST_JOBS := 2
GUEST_TIMEOUT := 2400
GUEST_SMP := 3
# mremap_test maps 2 GB at once; KASAN's shadow takes an eighth of RAM.
GUEST_MEM := 3G
# The kernel's own mm selftests, built from the extracted tree, then ours.
# guest/selftests.tab gives some of them arguments and limits of their own:
# under TCG, uffd-unit-tests in full and migration's shmem and hugetlb
# tests take minutes and never reach an anonymous rmap walk, which is what
# cow_context=shadow checks (the table says what each run is for).
# split_huge_page_test's nine pagecache splits each write 4 MB a byte per
# write(2), minutes apiece under TCG, for a skip on the guest's tmpfs: its
# anonymous splits run under our own main (guest/split-anon.c).
# Seconds each took on the ci kernel (GUEST-DIAG uptime spans;
# docs/guest.md has the runs): cow 50-99, mremap_test 16-28,
# mremap_dontunmap 0.5, migration 40 (120 in full), uffd-unit-tests 90-181
# (killed at 600 in full), ksm_functional_tests 45-78, madv_populate 1-2,
# split_huge_page_test-anon 1.5-3.6 (killed at 600 in full),
# compaction_test 83-126; the higher figures with the host's two cores
# shared with another guest and builds. Boot to power-off without
# cowctx-corpus: 765 s on a host shared with builds.
# Added on 7.3, the selftests that reach anonymous memory and its reverse
# map most directly: rmap (migration of anon, KSM and mremapped KSM pages
# over a five-level fork tree), merge (VMA merges, with forked fixtures),
# memory-failure (poisons anon pages: collect_procs_anon() and
# try_to_unmap()), mlock2-tests, khugepaged (collapse of anon ranges: the
# anon_vma write lock and the rmap walks of isolation), uffd-wp-mremap and
# guard-regions.
GUEST_KSELFTESTS := cow mremap_test mremap_dontunmap migration \
		    uffd-unit-tests ksm_functional_tests madv_populate \
		    compaction_test rmap merge memory-failure mlock2-tests \
		    khugepaged uffd-wp-mremap guard-regions
# The initramfs holds them all; GUEST_TESTS on make's command line picks
# which run, so that a subset's run leaves no initramfs short of a test.
GUEST_ALL_TESTS := cow mremap_test mremap_dontunmap migration \
		   uffd-unit-tests ksm_functional_tests madv_populate \
		   split_huge_page_test-anon compaction_test \
		   rmap merge memory-failure mlock2-tests khugepaged \
		   uffd-wp-mremap guard-regions \
		   cowctx-walks cowctx-generations cowctx-forkrace \
		   cowctx-scanrace cowctx-forkfail cowctx-zapfork \
		   cowctx-backlog cowctx-hwpoison cowctx-corpus cowctx-storm
GUEST_TESTS := $(GUEST_ALL_TESTS)
# The benchmarks (guest/bench-*.c), in the initramfs beside the tests;
# make guest-bench runs them (guest/bench.sh), and guest-check runs them
# once, small, to prove the harness (guest/guest-bench-smoke.t).
GUEST_BENCH_PROGS := cowctx-bench-fork cowctx-bench-family \
		     cowctx-bench-rmap cowctx-bench-cow cowctx-bench-contend \
		     cowctx-bench-ksm cowctx-bench-zygote cowctx-bench-redis
# The walks the whole run must have compared. The storm, last, stops once
# the kernel's count since boot passes them by 2%, or after
# GUEST_STORM_SECS, whichever comes first: under TCG on two cores the ci
# kernel's storm compared 3,616 walks a second (275 s to the count),
# 2,832 (350 s), and 1,445 (688 s) with the host loaded (load average 4
# to 8); KASAN's fewer. The tests before it compare 33,000 to 38,000.
# 900 s leaves room for the loaded case without letting a stuck storm
# hold CI for long.
GUEST_MIN_WALKS := 1000000
GUEST_STORM_UNTIL := 1020000
GUEST_STORM_SECS := 900
# The verifier's oracles, judged on the same walks (patches 0012, 0013):
# the count oracle checks every compared walk that a mapcount counts
# (not remove_migration_ptes()'s, nor a folio mapped nowhere); the scan
# oracle reads every mm's page tables for every GUEST_SCAN_EVERY-th walk
# and every remove_migration_ptes() walk.
GUEST_SCAN_EVERY := 64
GUEST_MIN_COUNTED := 500000
GUEST_MIN_SCANS := 20000
# The limit of a test that selftests.tab has no line for (guest/runner.sh).
# Under KASAN, cowctx-forkrace took 758 s alone on a loaded host and ran
# past 600 s beside a CI run (docs/guest.md): the debug configuration
# gets three times the limit; a stuck test still ends the boot.
GUEST_TEST_LIMIT := $(if $(filter debug,$(GUEST_CONFIG)),1800,600)
# Kernel and init parameters; cow_context=shadow compares every anon walk.
GUEST_APPEND := cow_context=shadow cow_context_scan=$(GUEST_SCAN_EVERY) \
		STORM_SECS=$(GUEST_STORM_SECS) STORM_UNTIL=$(GUEST_STORM_UNTIL) \
		TMO=$(GUEST_TEST_LIMIT)

# Debian's linux-source-7.3, from trixie-backports (guest/kernel-source.sh
# installs it, and nothing else from that suite). Any 7.3.x point release
# is accepted if the series applies to it with no fuzz; the one built from
# is recorded in $(GUEST_SOURCE) (package version, size, sha256). The
# series was written on 7.3.4-1~bpo13+1, whose tarball is 165,795,560
# bytes, sha256 76df1affb19f24926949369be1d74b60071c963c598ce8780bddd4bbf0fc3bc4.
GUEST_TARBALL := /usr/src/linux-source-7.3.tar.xz
GUEST_PKG := linux-source-7.3
GUEST_PKG_SUITE := trixie-backports
GUEST_KVERSION := 7.3

# python3-ply and python3-git: checkpatch.pl's SPDX check
# (scripts/spdxcheck.py), which guest-series-check runs on every patch
GUEST_DEB_PKGS := qemu-system-x86 busybox-static flex bison \
		  libelf-dev bc cpio libnuma-dev libcap-dev gnuplot-nox \
		  redis-tools python3-ply python3-git

GUEST_SRC := $(GUEST_BUILD)/linux
GUEST_SOURCE := $(GUEST_BUILD)/kernel-source
# Named by the series' base, so that a tree of another kernel (6.12, which
# the series was first written on) is extracted again, not patched.
GUEST_EXTRACTED := $(GUEST_BUILD)/extract-$(GUEST_KVERSION).stamp
GUEST_OBJ := $(GUEST_BUILD)/obj-$(GUEST_CONFIG)
GUEST_ST := $(GUEST_BUILD)/selftests
GUEST_TIMES := $(GUEST_BUILD)/times
# patches/0000-cover-letter.patch is the series' cover letter, no patch
GUEST_PATCHES := $(sort $(filter-out patches/0000-cover-letter.patch,\
			       $(wildcard patches/*.patch)))
# base is the fragment every configuration starts from; debug and ci add
# their own (guest/config/NAME.config) and build in their own obj-NAME.
GUEST_FRAGS := guest/config/base.config \
	       $(if $(filter-out base,$(GUEST_CONFIG)),guest/config/$(GUEST_CONFIG).config)
GUEST_BZIMAGE := $(GUEST_OBJ)/arch/x86/boot/bzImage
GUEST_INITRD := $(GUEST_BUILD)/initramfs.cpio
GUEST_LOG := $(GUEST_BUILD)/console-$(GUEST_CONFIG).log
GUEST_ST_BINS := $(addprefix $(GUEST_ST)/,$(GUEST_KSELFTESTS))

# The kernel's make must see none of our command-line variables.
GUEST_KMAKE := MAKEFLAGS= MAKELEVEL= nice make -j$(GUEST_JOBS)
# Appends "STEP SECONDS" to the timing file; $(1) is the step's name.
GUEST_T0 = t0=$$(date +%s)
GUEST_T1 = { echo "$(1) $$(( $$(date +%s) - t0 ))" >> $(GUEST_TIMES); \
	   echo "guest: $(1) took $$(( $$(date +%s) - t0 )) s"; }

.PHONY: guest-check guest-check-broken guest-kernel guest-initramfs guest-dev \
	guest-format-series guest-bench-lockstat \
	guest-times guest-series-check guest-bench guest-bench-run \
	guest-patch guest-config guest-selftests guest-deps

# The tarball's name carries no version: the package's version, size and
# checksum are recorded before extraction, and the extracted tree's
# version is checked after, so that what was built is always known. A
# point release the series does not fit fails when it is applied, at
# fuzz 0 (guest/apply-patches.sh), naming the patch.
$(GUEST_TARBALL):
	@echo "guest: no $@: $(GUEST_PKG) is not installed" \
	      "(make guest-deps installs it from $(GUEST_PKG_SUITE), as root)" >&2
	@exit 1

$(GUEST_EXTRACTED): $(GUEST_TARBALL)
	@mkdir -p $(GUEST_BUILD)
	@v=$$(dpkg-query -W -f='$${Version}' $(GUEST_PKG) 2>/dev/null || echo unknown); \
	echo "$(GUEST_PKG) $$v $$(stat -c %s $<) bytes sha256" \
	     "$$(sha256sum < $< | cut -c1-64)" > $(GUEST_SOURCE); \
	echo "guest: building from $$(cat $(GUEST_SOURCE))"
	rm -rf $(GUEST_SRC) $(GUEST_BUILD)/applied $(GUEST_BUILD)/patched.stamp
	mkdir -p $(GUEST_SRC)
	@$(GUEST_T0); tar -C $(GUEST_SRC) --strip-components=1 -xf $(GUEST_TARBALL) && \
		$(call GUEST_T1,extract)
	@guest/kversion.sh $(GUEST_SRC) $(GUEST_KVERSION)
	touch $@

# Patches change rarely and one at a time while the series is written, so
# the previous series is reversed rather than the tree re-extracted: only
# the files the patches touch get new mtimes, and the kernel rebuilds only
# what depends on them.
$(GUEST_BUILD)/patched.stamp: $(GUEST_EXTRACTED) $(GUEST_PATCHES) \
			      guest/apply-patches.sh
	guest/apply-patches.sh $(GUEST_SRC) $(GUEST_BUILD)/applied $(GUEST_PATCHES)
	touch $@

guest-patch: $(GUEST_BUILD)/patched.stamp

# The .config is regenerated in a scratch directory and copied only when
# it differs, so that the kernel's build sees no change when there is none.
$(GUEST_BUILD)/config-$(GUEST_CONFIG).stamp: $(GUEST_BUILD)/patched.stamp \
		$(GUEST_FRAGS) guest/mkconfig.sh
	@$(GUEST_T0); guest/mkconfig.sh $(GUEST_SRC) $(GUEST_OBJ) $(GUEST_FRAGS) && \
		$(call GUEST_T1,config-$(GUEST_CONFIG))
	@touch $@

guest-config: $(GUEST_BUILD)/config-$(GUEST_CONFIG).stamp

$(GUEST_BZIMAGE): $(GUEST_BUILD)/config-$(GUEST_CONFIG).stamp
	@$(GUEST_T0); $(GUEST_KMAKE) -C $(GUEST_SRC) O=$(abspath $(GUEST_OBJ)) \
		bzImage && $(call GUEST_T1,bzImage-$(GUEST_CONFIG))
	@touch $@

guest-kernel: $(GUEST_BZIMAGE)

# The selftests need only the UAPI headers, which the configuration does
# not change: they are built once, from the base configuration's tree.
$(GUEST_BUILD)/headers.stamp: $(GUEST_BUILD)/patched.stamp
	@mkdir -p $(GUEST_BUILD)/hdr
	@$(GUEST_T0); $(GUEST_KMAKE) -C $(GUEST_SRC) ARCH=x86 \
		O=$(abspath $(GUEST_BUILD)/hdr) headers_install \
		INSTALL_HDR_PATH=$(abspath $(GUEST_BUILD)/hdr/usr) && \
		$(call GUEST_T1,headers)
	touch $@

$(GUEST_BUILD)/selftests.stamp: $(GUEST_BUILD)/headers.stamp
	@mkdir -p $(GUEST_ST)
	@$(GUEST_T0); $(GUEST_KMAKE) -C $(GUEST_SRC)/tools/testing/selftests/mm \
		OUTPUT=$(abspath $(GUEST_ST)) \
		KHDR_INCLUDES="-isystem $(abspath $(GUEST_BUILD)/hdr/usr/include)" \
		LDFLAGS=-static $(abspath $(GUEST_ST_BINS)) && \
		$(call GUEST_T1,selftests)
	touch $@

guest-selftests: $(GUEST_BUILD)/selftests.stamp

GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror
GUEST_STORM_SRCS := guest/storm.c guest/storm-common.c guest/storm-mutate.c \
		    guest/storm-walk.c guest/idle.c

# The cowctx tests of one source file beside guest/idle.c (walks,
# generations, forkrace, scanrace, forkfail, zapfork, backlog, hwpoison);
# the storm, the corpus and the benchmarks have rules of their own, which
# make prefers (explicit rules, and for cowctx-bench-% the shorter stem).
$(GUEST_ST)/cowctx-%: guest/%.c guest/idle.c guest/idle.h \
		      $(GUEST_BUILD)/selftests.stamp
	cc $(GUEST_CFLAGS) -o $@ $< guest/idle.c -lpthread

$(GUEST_ST)/cowctx-storm: $(GUEST_STORM_SRCS) guest/storm.h guest/idle.h \
			  $(GUEST_BUILD)/selftests.stamp
	cc $(GUEST_CFLAGS) -o $@ $(GUEST_STORM_SRCS)

$(GUEST_ST)/cowctx-bench-%: guest/bench-%.c guest/bench.c guest/bench.h \
			    guest/idle.c guest/idle.h $(GUEST_BUILD)/selftests.stamp
	cc $(GUEST_CFLAGS) -o $@ $< guest/bench.c guest/idle.c

# The zygote (workload 1) is the one dynamically linked benchmark: it
# dlopen()s real shared libraries, which guest/zygote-libs.sh copies from
# this machine into cowctx-bench-zygote.d/lib with the loader and libc it
# runs on there (its interpreter and rpath name that directory).
GUEST_ZYGOTE_DIR := /st/cowctx-bench-zygote.d/lib
$(GUEST_BUILD)/zygote-libs.stamp: guest/zygote-libs.sh \
				  $(GUEST_BUILD)/selftests.stamp
	guest/zygote-libs.sh $(GUEST_ST)/cowctx-bench-zygote.d
	touch $@

$(GUEST_ST)/cowctx-bench-zygote: guest/bench-zygote.c guest/bench.c \
				 guest/bench.h guest/idle.c guest/idle.h \
				 $(GUEST_BUILD)/zygote-libs.stamp
	cc $(filter-out -static,$(GUEST_CFLAGS)) -o $@ $< guest/bench.c \
		guest/idle.c \
		-Wl,--dynamic-linker=$(GUEST_ZYGOTE_DIR)/ld-linux-x86-64.so.2 \
		-Wl,--disable-new-dtags,-rpath,$(GUEST_ZYGOTE_DIR)

# The fork server (workload 5): redis-tools' redis-check-rdb, which is
# redis-server by name (redis-server's package adds only that link and a
# service that would start on install), with its libraries and loader.
$(GUEST_BUILD)/redis.stamp: guest/copy-elf.sh $(GUEST_BUILD)/selftests.stamp
	rm -rf $(GUEST_ST)/cowctx-bench-redis.d
	guest/copy-elf.sh $(GUEST_ST)/cowctx-bench-redis.d \
		redis-check-rdb:redis-server
	touch $@

# cowctx-corpus (guest/corpus.sh) runs `cowctx kernel` on the scenario
# corpus: a static cowctx, built by the top-level Makefile in a build
# directory of its own (never a sanitiser's), and the corpus go beside it
# in cowctx-corpus.d/, which mkinitramfs.sh copies with the test.
GUEST_CORPUS := $(GUEST_ST)/cowctx-corpus.d
GUEST_COWCTX := $(GUEST_BUILD)/cowctx-static
GUEST_CORPUS_SCNS := $(wildcard tests/scenarios/*.scn tests/scenarios/*/*.scn)

# Only outside that build: in the sub-make, whose BUILD is GUEST_COWCTX,
# the top-level Makefile's own $(BUILD)/cowctx rule must be the one that
# applies, or each make would start another (a fork bomb: it happened).
ifneq ($(abspath $(BUILD)),$(abspath $(GUEST_COWCTX)))
$(GUEST_COWCTX)/cowctx: FORCE
	+$(MAKE) BUILD=$(GUEST_COWCTX) CC=cc ASAN= TSAN= LDFLAGS=-static $@
endif

$(GUEST_CORPUS)/cowctx: $(GUEST_COWCTX)/cowctx
	@mkdir -p $(dir $@)
	cp $< $@

$(GUEST_BUILD)/corpus.stamp: $(GUEST_CORPUS_SCNS) tests/lib/expect.sh \
			     guest/corpus-known-7.3
	rm -rf $(GUEST_CORPUS)/tests $(GUEST_CORPUS)/guest
	@mkdir -p $(GUEST_CORPUS)
	cp --parents $^ $(GUEST_CORPUS)/
	touch $@

$(GUEST_ST)/cowctx-corpus: guest/corpus.sh $(GUEST_CORPUS)/cowctx \
			   $(GUEST_BUILD)/corpus.stamp
	cp guest/corpus.sh $@

# split_huge_page_test's own source under our main, with the headers
# and flags the kernel's mm/Makefile gives it (it ignores write()'s result,
# which _FORTIFY_SOURCE would make a warning, so an error here; the
# kernel builds them without -Wextra, whose sign-compare and
# unused-parameter warnings they give).
GUEST_ST_MM := $(GUEST_SRC)/tools/testing/selftests/mm
$(GUEST_ST)/split_huge_page_test-anon: guest/split-anon.c guest/idle.c \
				       guest/idle.h $(GUEST_BUILD)/selftests.stamp
	cc $(GUEST_CFLAGS) -Wno-sign-compare -Wno-unused-parameter \
		-U_FORTIFY_SOURCE \
		-I$(GUEST_ST_MM) -I$(GUEST_SRC)/tools/testing/selftests \
		-isystem $(GUEST_BUILD)/hdr/usr/include \
		-isystem $(GUEST_SRC)/tools/include/uapi -o $@ \
		guest/split-anon.c guest/idle.c $(GUEST_ST_MM)/vm_util.c \
		$(GUEST_ST_MM)/hugepage_settings.c -lrt -lpthread -lm

$(GUEST_BUILD)/gen_init_cpio: $(GUEST_EXTRACTED)
	cc -O2 -o $@ $(GUEST_SRC)/usr/gen_init_cpio.c

# gen_init_cpio writes device nodes and owners without root or mknod.
$(GUEST_INITRD): $(GUEST_BUILD)/selftests.stamp $(GUEST_ST)/cowctx-walks \
		 $(GUEST_ST)/cowctx-generations $(GUEST_ST)/cowctx-forkrace \
		 $(GUEST_ST)/cowctx-scanrace $(GUEST_ST)/cowctx-forkfail \
		 $(GUEST_ST)/cowctx-zapfork $(GUEST_ST)/cowctx-backlog \
		 $(GUEST_ST)/cowctx-hwpoison \
		 $(GUEST_ST)/cowctx-storm \
		 $(GUEST_ST)/cowctx-corpus \
		 $(GUEST_ST)/split_huge_page_test-anon \
		 $(addprefix $(GUEST_ST)/,$(GUEST_BENCH_PROGS)) \
		 $(GUEST_BUILD)/redis.stamp $(GUEST_BUILD)/gen_init_cpio \
		 guest/init.sh guest/runner.sh guest/selftests.tab guest/bench.tab \
		 guest/bench-smoke.tab guest/mkinitramfs.sh
	guest/mkinitramfs.sh $(GUEST_BUILD)/gen_init_cpio $@ $(GUEST_ST) \
		$(GUEST_ALL_TESTS) $(GUEST_BENCH_PROGS)

guest-initramfs: $(GUEST_INITRD)

guest-check: guest-deps $(GUEST_BZIMAGE) $(GUEST_INITRD)
	GUEST_BZIMAGE=$(GUEST_BZIMAGE) GUEST_INITRD=$(GUEST_INITRD) \
	GUEST_LOG=$(GUEST_LOG) GUEST_TIMEOUT=$(GUEST_TIMEOUT) \
	GUEST_SMP=$(GUEST_SMP) GUEST_MEM=$(GUEST_MEM) \
	GUEST_TESTS="$(GUEST_TESTS)" GUEST_APPEND="$(GUEST_APPEND)" \
	GUEST_MIN_WALKS=$(GUEST_MIN_WALKS) \
	GUEST_MIN_COUNTED=$(GUEST_MIN_COUNTED) \
	GUEST_MIN_SCANS=$(GUEST_MIN_SCANS) \
	GUEST_BENCH_PROGS="$(GUEST_BENCH_PROGS)" \
	GUEST_TIMES=$(abspath $(GUEST_TIMES)) \
	GUEST_SRC=$(abspath $(GUEST_SRC)) \
	GUEST_SOURCE=$(abspath $(GUEST_SOURCE)) \
		prove -v guest/parse-log.t guest/selftests-tab.t \
			 guest/runner.t guest/run-qemu.t guest/bench-report.t \
			 guest/vma-userland.t guest/format-series.t \
			 guest/guest-broken.t guest/guest-bench-smoke.t \
			 guest/guest.t

# A git tree for writing the series: the pristine tarball committed (with
# -f: Debian's top-level .gitignore ignores everything), then
# patches/ applied with git am. New patches come from make
# guest-format-series.
$(GUEST_BUILD)/dev/.git/HEAD: | $(GUEST_EXTRACTED)
	rm -rf $(GUEST_BUILD)/dev && mkdir -p $(GUEST_BUILD)/dev
	tar -C $(GUEST_BUILD)/dev --strip-components=1 -xf $(GUEST_TARBALL)
	cd $(GUEST_BUILD)/dev && git init -q && git config gc.auto 0 && \
		git add -f -A . && \
		git -c user.name='cowctx developers' -c user.email=cowctx@localhost \
		commit -q -m "Linux $$(cut -d' ' -f2 $(abspath $(GUEST_SOURCE))) ($(GUEST_PKG))" && \
		git tag base
	$(if $(GUEST_PATCHES),cd $(GUEST_BUILD)/dev && \
		git -c user.name='cowctx developers' -c user.email=cowctx@localhost \
		am -q $(abspath $(GUEST_PATCHES)))

guest-dev: $(GUEST_BUILD)/dev/.git/HEAD

# The dev tree's series back into patches/, with the RFC prefix and the
# cover letter, whose text it keeps (guest/format-series.sh).
guest-format-series: $(GUEST_BUILD)/dev/.git/HEAD
	guest/format-series.sh $(GUEST_BUILD)/dev patches

# Every patch of patches/ builds on its own and passes checkpatch.pl
# --strict, and the series builds with CONFIG_COW_CONTEXT off
# (guest/series-check.sh). On branch series-check of the dev tree, which
# must have no uncommitted change; about 20 minutes on two cores, most of
# it the patches that change struct vm_area_struct or mm_struct, which
# rebuild nearly everything. Not part of make check.
guest-series-check: $(GUEST_BUILD)/dev/.git/HEAD
	cd $(GUEST_BUILD)/dev && git checkout -q -B series-check base && \
		git -c user.name='cowctx developers' -c user.email=cowctx@localhost \
		am -q $(abspath $(GUEST_PATCHES))
	@$(GUEST_T0); guest/series-check.sh $(GUEST_BUILD)/dev \
		$(GUEST_BUILD)/obj-series $(GUEST_FRAGS) \
		> $(GUEST_BUILD)/series-check.log 2>&1; \
		status=$$?; cat $(GUEST_BUILD)/series-check.log; \
		$(call GUEST_T1,series-check); exit $$status

# The kernel's figures (docs/kernel-results.md): one kernel binary of the
# base configuration (no debug option), booted GUEST_BENCH_BOOTS times in
# each of GUEST_BENCH_MODES, interleaved, every boot running every
# benchmark with guest/bench.tab's parameters; the table and the plot are
# written into docs/. Until cow_context=on exists, shadow is measured
# against off. Not part of make check: the base kernel's build took
# 637 s from nothing, and a boot 26 to 46 s (6 December 2026, two
# cores); guest-check runs the harness once, small.
GUEST_BENCH_BOOTS := 5
GUEST_BENCH_MODES := off shadow
GUEST_BENCH_OUT := $(GUEST_BUILD)/bench
# the benchmarks a run boots with (all of them; the initramfs holds all)
GUEST_BENCH_RUN = $(GUEST_BENCH_PROGS)
GUEST_BENCH_MARKDOWN := docs/kernel-results.md
GUEST_BENCH_SVG := docs/kernel-results-fork.svg
guest-bench:
	$(MAKE) guest-bench-run GUEST_CONFIG=base

guest-bench-run: guest-deps $(GUEST_BZIMAGE) $(GUEST_INITRD)
	@$(GUEST_T0); \
	GUEST_BZIMAGE=$(GUEST_BZIMAGE) GUEST_INITRD=$(GUEST_INITRD) \
	GUEST_SMP=2 GUEST_MEM=2G GUEST_TIMEOUT=$(GUEST_TIMEOUT) \
	BENCH_TESTS="$(GUEST_BENCH_RUN)" BENCH_TAB=bench.tab \
	BENCH_MARKDOWN=$(GUEST_BENCH_MARKDOWN) \
	BENCH_SVG=$(GUEST_BENCH_SVG) \
		guest/bench.sh $(GUEST_BENCH_OUT) $(GUEST_BENCH_BOOTS) \
			"$(GUEST_BENCH_MODES)"; \
		status=$$?; $(call GUEST_T1,bench); exit $$status

# Workload 4's lock statistics: a kernel of its own (base with
# CONFIG_LOCK_STAT, guest/config/lockstat.config), booted
# GUEST_LOCKSTAT_BOOTS times in each mode running cowctx-bench-contend
# alone; the report goes to build-guest/bench-lockstat/report.txt and
# leaves docs/ alone.
GUEST_LOCKSTAT_BOOTS := 3
guest-bench-lockstat:
	$(MAKE) guest-bench-run GUEST_CONFIG=lockstat \
		GUEST_BENCH_RUN=cowctx-bench-contend \
		GUEST_BENCH_BOOTS=$(GUEST_LOCKSTAT_BOOTS) \
		GUEST_BENCH_OUT=$(GUEST_BUILD)/bench-lockstat \
		GUEST_BENCH_MARKDOWN= GUEST_BENCH_SVG=

# Proves the check can fail: the COW walk broken on purpose must fail.
# guest-check runs it too (a boot of cowctx-walks alone: about a minute).
guest-check-broken: guest-deps $(GUEST_BZIMAGE) $(GUEST_INITRD)
	GUEST_BZIMAGE=$(GUEST_BZIMAGE) GUEST_INITRD=$(GUEST_INITRD) \
	GUEST_LOG=$(GUEST_LOG) GUEST_TIMEOUT=$(GUEST_TIMEOUT) \
	GUEST_SMP=$(GUEST_SMP) GUEST_MEM=$(GUEST_MEM) \
		prove -v guest/guest-broken.t

guest-times:
	@cat $(GUEST_TIMES) 2>/dev/null || echo "guest: nothing measured yet"

# As make deps does for the model: apt-get for what is missing, as root;
# otherwise name it and fail. The kernel source comes from another suite,
# pinned so that it brings nothing else (guest/kernel-source.sh).
guest-deps:
	@missing=$$(for p in $(GUEST_DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	[ -z "$$missing" ] && exit 0; \
	if command -v apt-get > /dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "guest: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq $$missing && exit 0; \
	fi; \
	echo "guest: missing $$missing (make guest-deps installs them as root)" >&2; \
	exit 1
	@[ -r $(GUEST_TARBALL) ] || \
		guest/kernel-source.sh $(GUEST_PKG) $(GUEST_PKG_SUITE)
