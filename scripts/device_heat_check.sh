#!/usr/bin/env bash
# The heat checks of one GPU session, in one command (the GPU machine is lent
# briefly and starts bare): build the solver, heat_bandwidth and the heat GPU
# tests for sm_90, then
#   tests      test_heat_backends (every update design == host, bit for bit)
#              and test_heat_transports (same-GPU pushes == MPI == 1 rank)
#   bandwidth  heat_bandwidth at 512^3 (twice) and 256^3: the update and the
#              full step against the device's copy bandwidth, and the design
#              the update chose on this GPU
#   crowded    bench/crowded_node.sh: heat 256^3 under MPS at 1, 16 and 32
#              ranks (32 ranks on a 16-core machine), medians of 3
# Logs and a tarball in $OUT.
#   scripts/device_heat_check.sh [PARTS="tests bandwidth crowded"]
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_logs heat
parts=${1:-tests bandwidth crowded}
build="$MPSFW_ROOT/build/device-heat"

record_device_machine "$out/machine.txt"

cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$MPSFW_JOBS" --target solver heat_bandwidth test_heat_backends \
  test_heat_transports > "$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"

if has tests; then
  for np in 1 2; do
    timeout 300 mpirun -np "$np" "$build/tests/test_heat_backends" > "$out/backends_np$np.log" 2>&1
    echo "test_heat_backends np=$np: exit $?"
    grep -E "PASSED|FAILED|differ" "$out/backends_np$np.log"
  done
  timeout 200 mpirun -np 8 "$build/tests/test_heat_transports" > "$out/transports_np8.log" 2>&1
  echo "test_heat_transports np=8: exit $?"
  grep -E "ipc vs mpi|PASSED|FAILED" "$out/transports_np8.log"
fi

if has bandwidth; then
  for n in 512 512 256; do
    "$build/bench/heat_bandwidth" --n "$n" --repeats 20 > "$out/bandwidth_$n.txt" 2>&1
    echo "== heat_bandwidth --n $n: exit $?"
    grep -E "copy \(|kernel,|solver step" "$out/bandwidth_$n.txt"
  done
fi

if has crowded; then
  REPEATS=3 STEPS=1000 BINDS=none timeout 240 bash "$MPSFW_ROOT/bench/crowded_node.sh" "$build" \
    "$out/crowded" 256 "1 16 32" > "$out/crowded.txt" 2>&1
  echo "== crowded_node: exit $?"
  tail -8 "$out/crowded.txt"
fi
