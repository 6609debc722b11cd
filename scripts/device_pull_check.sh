#!/usr/bin/env bash
# Where the coupling cost of same-GPU ranks comes from, in one command on the
# GPU machine: bench/peer_pull (one face pull out of a neighbour's IPC-mapped
# field vs out of a field of our own) and bench/heat_ceiling (one rank vs
# independent blocks vs the coupled run) for the default rank grid and for
# grids that leave x uncut. Under an MPS daemon started here. Logs in $OUT.
#   scripts/device_pull_check.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
final="${OUT:-$MPSFW_ROOT/device-logs}"
out="$final/pull-check"
mkdir -p "$out"
trap 'tar czf "$out.tgz" -C "$final" --exclude=mps-pipe pull-check && rm -rf "$out"' EXIT
build="$MPSFW_ROOT/build/device"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cmake -S "$MPSFW_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j 16 --target heat_ceiling peer_pull > "$out/build.log" 2>&1 ||
  { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"

export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d || exit 1
trun() { timeout 120 mpirun -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY "$@"; }
for cells in 256x512x512 512x512x256 64x128x128 256x256x64; do
  trun -np 2 "$build/bench/peer_pull" --cells "$cells" 2>&1 | tee -a "$out/peer_pull.log"
done
for run in "512 100 2 0x0x0" "512 100 2 1x1x0" "512 100 8 1x0x0" "512 100 16 1x0x0" \
           "256 400 8 1x0x0" "256 400 16 1x0x0" "256 400 16 0x0x0"; do
  set -- $run
  echo "== heat_ceiling n=$1 np=$3 grid=$4"
  trun -np "$3" "$build/bench/heat_ceiling" --n "$1" --steps "$2" --grid "$4" 2>&1 |
    tee -a "$out/ceiling.log" | tail -5
done
echo quit | nvidia-cuda-mps-control
