#!/usr/bin/env bash
# The oversubscription table (docs/performance.md) in one run: strong-scaling
# efficiency of the heat solver on one GPU, throughput(k ranks) /
# throughput(1 rank) for k = 1, 2, 4, 8, 16, time-slicing vs MPS vs MPS with
# caps, for a 256³ and a 512³ global problem (targets: >= 0.90 at 8 ranks,
# >= 0.80 at 16, with MPS), once per halo transport: "mpi" (every halo
# through MPI) and "auto" (halos between ranks on the GPU copied device to
# device through CUDA IPC).
#   bench/oversubscription.sh BUILD_DIR OUT_DIR [SIZES="256 512"]
# Environment: HALO (default "mpi auto"), REPEATS (3), STEPS (default: 400
# steps at 256³, scaled by cells down to at least 100), MODES, BENCH_SECONDS.
# The whole table can take longer than 10 minutes: split it by SIZES or HALO
# where a command may run 10 minutes at most.
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
status=0
for size in ${3:-256 512}; do
  steps=$(( 400 * 256 * 256 * 256 / (size * size * size) ))
  [ "$steps" -lt 100 ] && steps=100
  STEPS=${STEPS:-$steps} HALO=${HALO:-mpi auto} SCALING=strong \
    "$(dirname "$0")/mps_scaling.sh" "$build" "$out" "$size" "1 2 4 8 16" || status=1
done
exit $status
