# SPDX-License-Identifier: GPL-2.0
# cowctx: make | make check | make run | make bench ; ASAN=1, TSAN=1, CC=clang

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif

BUILD := build
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -I. \
	  -D_GNU_SOURCE -fno-strict-aliasing
LDLIBS := -lurcu -lm

ifeq ($(ASAN),1)
BUILD := build-asan
CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
BUILD := build-tsan
CFLAGS += -O1 -fsanitize=thread
LDFLAGS += -fsanitize=thread
endif

# One line per component; add your files to your component's line.
LIB_SRCS := lib/account.c lib/lock.c lib/json.c lib/interval_tree.c
MM_SRCS := mm/vma_tree.c mm/pgtable.c mm/folio.c mm/filemap.c mm/vma.c \
	   mm/mmap.c mm/mprotect.c mm/mremap.c mm/madvise.c mm/memory.c \
	   mm/fork.c mm/model.c mm/debug.c
RMAP_SRCS := rmap/rmap.c rmap/scan.c rmap/anon_vma.c rmap/remap_tree.c \
	     rmap/cow_context.c rmap/cow_context_walk.c
SCENARIO_SRCS := scenario/parse.c scenario/exec.c scenario/check.c \
		 scenario/gen.c
KERNEL_SRCS := kernel/agent.c kernel/runner.c kernel/procfs.c kernel/tracefs.c \
	       kernel/snapshot.c kernel/compare.c kernel/files.c kernel/judge.c \
	       kernel/kernel_cmd.c
BENCH_SRCS := bench/prog.c bench/workloads.c bench/exec.c bench/metrics.c \
	      bench/run.c bench/callgrind.c bench/curves.c bench/output.c \
	      bench/report.c bench/bench_cmd.c
TOOL_SRCS := tools/cowctx.c tools/stubs.c

LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS) $(MM_SRCS) $(RMAP_SRCS) \
	      $(SCENARIO_SRCS) $(KERNEL_SRCS) $(BENCH_SRCS))
# An archive member is never pulled in for a symbol stubs.o already
# defines weakly, so cmd_bench's and cmd_kernel's objects are linked in
# directly too.
TOOL_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(TOOL_SRCS) $(BENCH_SRCS) \
	       $(KERNEL_SRCS))
TEST_SRCS := $(wildcard tests/unit/*.c)
TEST_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRCS))

DEB_PKGS := gcc libc6-dev clang make perl liburcu-dev valgrind gnuplot-nox

.PHONY: all deps check run bench clean

all: $(BUILD)/cowctx $(TEST_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libcowctx.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/cowctx: $(TOOL_OBJS) $(BUILD)/libcowctx.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcowctx.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -Itests -o $@ $< $(BUILD)/libcowctx.a $(LDLIBS)

# Install what is missing (Debian); as root only, else just report.
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "deps: installing $$missing"; \
			apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		else \
			echo "deps: missing $$missing (run make deps as root)"; exit 1; \
		fi; \
	fi

check: deps
	$(MAKE) all
	COWCTX=$(BUILD)/cowctx BUILD=$(BUILD) prove --exec '' $(TEST_BINS) \
		$(sort $(wildcard tests/*.t))

run: deps
	$(MAKE) all
	tools/run-default.sh $(BUILD)/cowctx

# The full sizes (about four minutes here, well under the 20 allowed on two
# cores): table, report, plots
bench: deps
	$(MAKE) all
	$(BUILD)/cowctx bench --out $(BUILD)/report

clean:
	rm -rf build build-asan build-tsan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
