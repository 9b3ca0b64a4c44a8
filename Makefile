# SPDX-License-Identifier: GPL-2.0
# cowctx: `make help` lists the targets and the build variants.

VERSION := 0.1

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif

# One build directory per compiler and sanitiser, so that changing either
# never reuses the other's objects: build/ (gcc), build-clang/,
# build-asan/, build-clang-tsan/... BUILD=DIR on the command line
# overrides it.
COMPILER := $(notdir $(lastword $(CC)))
ifeq ($(COMPILER),cc)
COMPILER := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),clang,gcc)
endif
ifeq ($(ASAN)$(TSAN),11)
$(error ASAN=1 and TSAN=1 cannot be combined)
endif
SANITIZER := $(if $(filter 1,$(ASAN)),asan)$(if $(filter 1,$(TSAN)),tsan)
BUILD := build$(if $(filter-out gcc,$(COMPILER)),-$(COMPILER))$(if \
	 $(SANITIZER),-$(SANITIZER))

CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -I. \
	  -D_GNU_SOURCE -fno-strict-aliasing
LDLIBS := -lurcu -lm

ifeq ($(ASAN),1)
CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
CFLAGS += -O1 -fsanitize=thread
LDFLAGS += -fsanitize=thread
# liburcu's own hand-offs are invisible to TSan (tools/tsan.supp). TSan
# sleeps a second at every exit for threads still running; ours have
# all finished (rcu_barrier() at exit), and the tests run cowctx
# thousands of times.
export TSAN_OPTIONS := suppressions=$(CURDIR)/tools/tsan.supp \
	atexit_sleep_ms=0 $(TSAN_OPTIONS)
endif

# One line per component; add your files to your component's line.
LIB_SRCS := lib/account.c lib/bug.c lib/lock.c lib/json.c lib/interval_tree.c \
	    lib/version.c
MM_SRCS := mm/vma_tree.c mm/pgtable.c mm/folio.c mm/filemap.c mm/vma.c \
	   mm/mmap.c mm/mprotect.c mm/mremap.c mm/madvise.c mm/memory.c \
	   mm/fork.c mm/model.c mm/debug.c mm/mmap_lock.c \
	   mm/brk.c mm/mseal.c
RMAP_SRCS := rmap/rmap.c rmap/scan.c rmap/anon_vma.c rmap/remap_tree.c \
	     rmap/cow_context.c rmap/cow_context_walk.c \
	     rmap/testing/broken_scan.c rmap/testing/cow_context_poc.c
SCENARIO_SRCS := scenario/parse.c scenario/exec.c scenario/check.c \
		 scenario/gen.c scenario/layout.c
KERNEL_SRCS := kernel/agent.c kernel/runner.c kernel/procfs.c kernel/tracefs.c \
	       kernel/snapshot.c kernel/compare.c kernel/files.c kernel/judge.c \
	       kernel/kernel_cmd.c kernel/limits.c kernel/record_cmd.c \
	       kernel/record_run.c kernel/record_trace.c kernel/record_write.c \
	       kernel/record_layout.c kernel/record_names.c kernel/record_ptrset.c \
	       kernel/record_raw.c kernel/record_replay.c kernel/record_shm.c \
	       kernel/idle_walks.c \
	       kernel/zero_page.c \
	       guest/idle.c
BENCH_SRCS := bench/prog.c bench/workloads.c bench/exec.c bench/metrics.c \
	      bench/run.c bench/callgrind.c bench/curves.c bench/output.c \
	      bench/report.c bench/bench_cmd.c bench/user_scn.c \
	      bench/workloads_real.c bench/targets.c bench/verdict.c \
	      bench/remap_curve.c bench/real_programs.c bench/headline.c \
	      bench/loss.c bench/busiest.c
TOOL_SRCS := tools/cowctx.c

LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS) $(MM_SRCS) $(RMAP_SRCS) \
	      $(SCENARIO_SRCS) $(KERNEL_SRCS) $(BENCH_SRCS))
TOOL_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(TOOL_SRCS))
TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

.PHONY: all deps check check-model run bench clean help FORCE \
	recordings recordings-deps

all: $(BUILD)/cowctx $(TEST_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libcowctx.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# cowctx --version and report.md: VERSION and, in a git checkout, git
# describe. The header is rewritten only when that changes, so a commit
# rebuilds one object (lib/version.c).
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null)
VERSION_STRING := $(VERSION)$(if $(GIT_DESCRIBE), (git $(GIT_DESCRIBE)))

$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define COWCTX_VERSION "$(VERSION_STRING)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/lib/version.o: $(BUILD)/gen/version.h
$(BUILD)/lib/version.o: CFLAGS += -I$(BUILD)/gen

$(BUILD)/cowctx: $(TOOL_OBJS) $(BUILD)/libcowctx.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcowctx.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -o $@ $< $(BUILD)/libcowctx.a $(LDLIBS)

# Checks what is there by trying it; apt-get only for what is missing
deps:
	@tools/deps.sh '$(CC)'

# make check runs the patched kernel's tests in the guest (guest/guest.mk,
# GUEST_CHECK_CONFIG) after the model's: building the kernel from nothing
# and its run take about 25 minutes on two cores (README, the guest).
# GUEST=0 leaves the guest out (make check-model is the same). A sanitiser
# instruments the model, not the kernel, so a sanitised check never boots
# the guest.
GUEST ?= 1
ifneq ($(SANITIZER),)
override GUEST := 0
endif

check-model: deps
	$(MAKE) all
	COWCTX=$(BUILD)/cowctx BUILD=$(BUILD) prove --exec '' $(TEST_BINS) \
		$(sort $(wildcard tests/*.t))

# build-guest/ is one directory per checkout, and one guest at a time is
# all two cores take: a check that finds another check's guest stage
# running (the lock) says so and leaves the guest out instead of waiting
# for it or building over it.
check: check-model
ifeq ($(GUEST),1)
	@mkdir -p $(GUEST_BUILD)
	@flock -n -E 75 $(GUEST_BUILD)/lock \
		$(MAKE) guest-check GUEST_CONFIG=$(GUEST_CHECK_CONFIG); \
	rc=$$?; if [ $$rc = 75 ]; then \
		echo "check: SKIP the guest: another make check is using $(GUEST_BUILD) (lock: $(GUEST_BUILD)/lock)"; \
		rc=0; fi; exit $$rc
endif

run: deps
	$(MAKE) all
	tools/run-default.sh $(BUILD)/cowctx

# The full sizes (about four minutes here, well under the 20 allowed on two
# cores): table, report, plots
bench: deps
	$(MAKE) all
	$(BUILD)/cowctx bench --out $(BUILD)/report \
		$(if $(wildcard $(BUILD)/recordings/*.scn),--real $(BUILD)/recordings)

# Real programs recorded on this kernel (root, tracefs), not committed:
# docs/real-programs.md. Their packages are installed here, not by deps.
recordings-deps:
	@tools/record-workloads.sh --deps

recordings: deps recordings-deps
	$(MAKE) all
	tools/record-workloads.sh --cowctx $(BUILD)/cowctx \
		--out $(BUILD)/recordings $(WORKLOADS)
	$(BUILD)/cowctx bench --real $(BUILD)/recordings \
		--out $(BUILD)/recordings/report

# Every build directory of the naming above, not others' BUILD=DIR
clean:
	rm -rf build build-asan build-tsan build-clang build-clang-asan \
		build-clang-tsan

help:
	@echo 'cowctx $(VERSION_STRING): make TARGET [VARIABLE=VALUE...]'
	@echo
	@echo 'Targets:'
	@echo '  all (default)  build cowctx and the unit tests in BUILD'
	@echo '  run            deps, all, then the default comparison'
	@echo '                 (tools/run-default.sh)'
	@echo '  check          check-model, then guest-check with the ci'
	@echo '                 configuration (a kernel build and a guest run:'
	@echo '                 about 25 minutes; never with ASAN=1 or TSAN=1;'
	@echo '                 GUEST=0 leaves it out)'
	@echo '  check-model    deps, all, then every model test under prove'
	@echo '                 (minutes)'
	@echo '  bench          deps, all, then the full-size bench into'
	@echo '                 BUILD/report'
	@echo '  deps           install what is missing (apt-get, as root),'
	@echo '                 else name it'
	@echo '  clean          remove the build directories named below'
	@echo '  help           this text'
	@echo '  guest-check    the patched 7.3 kernel (patches/) under QEMU'
	@echo '                 with cow_context=shadow: mm selftests,'
	@echo '                 cowctx-walks, cowctx-storm. Default: the debug'
	@echo '                 configuration with KASAN (over an hour from'
	@echo '                 nothing); GUEST_CONFIG=ci is what check runs'
	@echo '  guest-check-broken  the same guest with the COW walk broken'
	@echo '                 on purpose must be judged failed'
	@echo '  guest-times    what each guest step took, as last measured'
	@echo '  guest-bench    the kernel benchmarks, off against shadow,'
	@echo '                 interleaved boots of a base-config kernel, into'
	@echo '                 docs/kernel-results.md'
	@echo '  guest-bench-lockstat  workload 4 again on a CONFIG_LOCK_STAT'
	@echo '                 kernel: contentions of the locks of the reverse maps'
	@echo '                 (build-guest/bench-lockstat/report.txt)'
	@echo '  recordings     record real programs (pipeline, make, git,'
	@echo '                 python, redis; WORKLOADS= a subset) into'
	@echo '                 BUILD/recordings and tabulate them; needs root'
	@echo '                 and tracefs (docs/real-programs.md)'
	@echo '  recordings-deps  install what the recordings run (apt-get)'
	@echo
	@echo 'Variables:'
	@echo '  CC=clang       another compiler (default gcc)'
	@echo '  ASAN=1         AddressSanitizer and UBSan'
	@echo '  TSAN=1         ThreadSanitizer'
	@echo '  GUEST=0        make check without the guest (default 1)'
	@echo '  GUEST_CONFIG=  base, ci, debug or lockstat (guest/config/*.config)'
	@echo '  GUEST_STORM_SECS=N  how long the storm runs in the guest'
	@echo '  BUILD=DIR      build directory; by default one per compiler'
	@echo '                 and sanitiser: build (gcc), build-clang,'
	@echo '                 build-asan, build-clang-tsan...'
	@echo '                 Now: $(BUILD)'

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
include guest/guest.mk
