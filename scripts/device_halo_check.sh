#!/usr/bin/env bash
# Same-GPU halos on the GPU machine, in one command: builds what the check
# needs, runs the halo-exchange and transport tests at 1-8 ranks (IPC vs MPI
# must agree bit for bit), measures with bench/heat_ceiling what N ranks on
# the GPU reach with and without coupling, then times the heat solver on one
# GPU with every halo through MPI and with same-GPU halos over CUDA IPC.
# Logs go to $OUT.
#   scripts/device_halo_check.sh [SIZE=256] [STEPS=400] [RANKS="1 8 16"]
# Environment: TESTS=0 skips the tests; VARIANTS (default "mpi ipc ipc-barrier ipc-caps"; empty: none);
# ORDERINGS=0 skips bench/heat_halo_variants (production's boundary-first step beside push-last,
# pull and MPI, same job, fields compared bit for bit).
set -uo pipefail
source "$(dirname "$0")/env.sh"
size=${1:-256}
steps=${2:-400}
ranks=${3:-1 8 16}
final="${OUT:-$MPSFW_ROOT/device-logs}"
out="$final/halo-check-$size"  # archived at the end: the device tool returns few files
mkdir -p "$out"
trap 'tar czf "$out.tgz" -C "$final" --exclude=mps-pipe "halo-check-$size" && rm -rf "$out"' EXIT
build="$MPSFW_ROOT/build/device"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
cmake -S "$MPSFW_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j 16 --target solver test_halo_exchange test_heat_transports \
  test_halo_transport test_heat_backends heat_ceiling heat_bandwidth heat_halo_variants \
  > "$out/build.log" 2>&1 ||
  { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"

"$build/tests/test_halo_transport" > "$out/test_halo_transport.log" 2>&1
echo "test_halo_transport: exit $?"
if [ "${TESTS:-1}" != 0 ]; then
  timeout 120 mpirun -np 1 "$build/tests/test_heat_backends" > "$out/heat_backends.log" 2>&1
  echo "test_heat_backends: exit $?"
  grep -E "FAILED|Failure" "$out/heat_backends.log" | head -6
fi
# The tests twice: without MPS (pushes ordered by a host barrier) and as
# clients of an MPS daemon started here (ordered by GPU-side waits).
run_tests() {
  local tag=$1 np
  [ "${TESTS:-1}" = 0 ] && return
  for np in 1 2 4 8; do
    timeout 120 mpirun -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -np "$np" \
      "$build/tests/test_halo_exchange" > "$out/halo_${tag}_np$np.log" 2>&1
    echo "[$tag] test_halo_exchange np=$np: exit $? ($(grep -cE '^\S*\[       OK' \
      "$out/halo_${tag}_np$np.log") ok, $(grep -c 'SKIPPED \]' "$out/halo_${tag}_np$np.log") skip lines)"
    timeout 120 mpirun -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -np "$np" \
      "$build/tests/test_heat_transports" > "$out/transports_${tag}_np$np.log" 2>&1
    echo "[$tag] test_heat_transports np=$np: exit $?"
    grep -E "ipc vs mpi|FAILED|Failure" "$out/transports_${tag}_np$np.log" | head -6
  done
}
export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
run_tests no-mps
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -d && run_tests mps
# Under the same daemon: one rank vs N independent blocks vs the coupled run,
# then the step orderings production does not run beside the one it does.
for np in $ranks; do
  [ "$np" -gt 1 ] || continue
  log="$out/ceiling_np$np.log"
  timeout 120 mpirun -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
    -np "$np" "$build/bench/heat_ceiling" --n "$size" --steps "$steps" > "$log" 2>&1
  echo "== heat_ceiling np=$np: exit $?"
  cat "$log"
  [ "${ORDERINGS:-1}" = 0 ] && continue
  log="$out/variants_np$np.log"
  timeout 240 mpirun -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
    -np "$np" "$build/bench/heat_halo_variants" --n "$size" --steps "$steps" --repeats 3 \
    > "$log" 2>&1
  echo "== heat_halo_variants np=$np: exit $?"
  cat "$log"
done
echo quit | nvidia-cuda-mps-control
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
sleep 1

# mpi: every halo through MPI; ipc: same-GPU halos over CUDA IPC ordered by
# GPU-side waits; ipc-barrier: the same, ordered by a host barrier a step;
# ipc-caps: ipc with MPS thread caps (--mps-atp auto). All under MPS.
for np in $ranks; do
  for variant in ${VARIANTS-mpi ipc ipc-barrier ipc-caps}; do
    name=heat_${size}_np${np}_$variant
    sync=auto atp=100 halo=ipc
    [ "$variant" = mpi ] && halo=mpi
    [ "$variant" = ipc-barrier ] && sync=barrier
    [ "$variant" = ipc-caps ] && atp=auto
    mpirun -np "$np" "$build/apps/solver" \
      "$MPSFW_ROOT/inputs/heat_default.h5" \
      --set heat.nx="$size" --set heat.ny="$size" --set heat.nz="$size" \
      --set run.steps="$steps" --set run.diag_every=0 --set run.halo_sync="$sync" \
      --backend cuda --mps on --mps-atp "$atp" \
      --halo "$halo" --report "$out/$name.json" > "$out/$name.log" 2>&1
    echo "== np=$np $variant: exit $?"
    grep -E "halo messages|throughput|^  [a-z][a-z ]+  +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+%" \
      "$out/$name.log" | head -14
  done
done
