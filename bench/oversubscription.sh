#!/usr/bin/env bash
# Issue 6's table in one run: strong-scaling efficiency of the heat solver on
# one GPU, throughput(k ranks) / throughput(1 rank) for k = 1, 2, 4, 8, 16,
# time-slicing vs MPS vs MPS with caps, for a 256³ and a 512³ global problem
# (targets: >= 0.90 at 8 ranks, >= 0.80 at 16, with MPS).
#   bench/oversubscription.sh BUILD_DIR OUT_DIR [SIZES="256 512"]
# Environment as bench/mps_scaling.sh (REPEATS, STEPS, BENCH_SECONDS).
set -uo pipefail
SCALING=strong exec "$(dirname "$0")/mps_scaling.sh" "${1:?build dir}" "${2:?output dir}" \
  "${3:-256 512}" "1 2 4 8 16"
