#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Long generated scenarios (cowctx gen --ops 3000), where rare layouts
# build up: every backend must pass the oracle and, after every
# statement, accept or refuse it as anon_vma does and hold anon_vma's
# VMA layout (cowctx run's layout check). Seed 720031 is the one whose
# layout divergence issue 9 reports. GEN_LONG_SEEDS says
# how many seeds from 1 run besides it (default 20).

set -u
. "$(dirname "$0")/lib/tap.sh"
tap_setup
seeds=${GEN_LONG_SEEDS:-20}

tap_plan $((seeds + 1))
for s in $(seq 1 "$seeds") 720031; do
	seed_test "$s" 3000 "oracle and Linux's layout on every backend"
done
tap_done
