#!/usr/bin/env bash
# The framework checks of one GPU session (docs/framework.md),
# split into parts so each fits one device command (10 minutes):
#   build   this tree for sm_90 (solver, tests, benchmarks), installed into a
#           prefix, and examples/wave built against that prefix; a baseline
#           tree (BASELINE_SRC, e.g. `git archive` of the commit before) too:
#           solver and heat_bandwidth only
#   tests   FieldHalos on the GPU (test_field_halos_cuda at 1, 2, 4, 8 ranks,
#           without MPS), the wave example under MPS at 1 and 8 ranks (same-GPU
#           pulls, outputs equal bit for bit) and with run.halo = mpi
#   bench   heat P1 (heat_bandwidth 512^3) and the oversubscription table
#           (256^3 and 512^3, 1/8/16 ranks, MPS, same-GPU halos), baseline and
#           this tree in the same job; the wave example's 1 vs 8 ranks with MPS
#   wavebench  bench/wave_scaling.sh: the wave example at 192^3 and 256^3,
#           1/8/16 ranks with MPS, same-GPU pulls vs MPI halos, medians of 3
# Logs and a tarball in $OUT.
#   scripts/device_framework_check.sh "build tests"   then   "bench"
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_logs framework
parts=${1:-build tests bench}
build="$MPSFW_ROOT/build/device"
prefix="$MPSFW_ROOT/build/device-prefix"
wave="$MPSFW_ROOT/build/device-wave"
baseline_src=${BASELINE_SRC:-$MPSFW_ROOT/build/baseline-src}
baseline="$MPSFW_ROOT/build/device-baseline"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1

{
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode --format=csv
  nvcc --version | tail -2
  [ -f "$baseline_src/CMakeLists.txt" ] && echo "baseline: $baseline_src"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

if has build; then
  cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON > "$out/configure.log" 2>&1 ||
    { tail -40 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j 16 > "$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
  cmake --install "$build" --prefix "$prefix" > "$out/install.log" 2>&1 || { tail -20 "$out/install.log"; exit 1; }
  cmake -S "$MPSFW_ROOT/examples/wave" -B "$wave" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" > "$out/wave_configure.log" 2>&1 &&
    cmake --build "$wave" -j 16 > "$out/wave_build.log" 2>&1 || { tail -40 "$out"/wave_*.log; exit 1; }
  echo "build: ok (tree, prefix, wave)"
  if [ -f "$baseline_src/CMakeLists.txt" ]; then
    cmake -S "$baseline_src" -B "$baseline" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_BUILD_TESTS=OFF \
      > "$out/baseline_configure.log" 2>&1 &&
      cmake --build "$baseline" -j 16 --target solver heat_bandwidth > "$out/baseline_build.log" 2>&1 ||
      { tail -40 "$out"/baseline_*.log; exit 1; }
    echo "build: baseline ok"
  fi
fi

if has tests; then
  for np in 1 2 4 8; do
    timeout 120 mpirun -np "$np" "$build/tests/test_field_halos_cuda" > "$out/field_halos_cuda_np$np.log" 2>&1
    echo "test_field_halos_cuda np=$np: exit $?"
    grep -E "PASSED|FAILED|SKIPPED|Failure" "$out/field_halos_cuda_np$np.log" | head -5
  done
  "$wave/wave_check" > "$out/wave_check.log" 2>&1
  echo "wave_check: exit $?"; tail -5 "$out/wave_check.log"
  "$wave/wave_solver" --write-input "$out/wave.h5" --force --set wave.nx=96 --set wave.ny=96 --set wave.nz=96 \
    --set run.steps=200 > /dev/null || echo "wave --write-input failed"
  for run in "1 auto" "8 auto" "8 mpi"; do
    set -- $run
    timeout 120 mpirun -np "$1" "$wave/wave_solver" "$out/wave.h5" --backend cuda --mps on --halo "$2" \
      --output "$out/wave_np$1_$2.h5" --set run.output_every=100 > "$out/wave_np$1_$2.log" 2>&1
    echo "wave np=$1 halo=$2: exit $?"
    grep -E "halo messages|MPS  |cell-updates/s|throughput" "$out/wave_np$1_$2.log" | head -4
  done
  python3 - "$out"/wave_np1_auto.h5 "$out"/wave_np8_auto.h5 "$out"/wave_np8_mpi.h5 <<'PY'
import sys, h5py, numpy as np
files = [h5py.File(p, "r") for p in sys.argv[1:]]
for f, p in zip(files[1:], sys.argv[2:]):
    worst = 0
    for field in ("u", "u_prev"):
        for step in files[0][field]:
            a, b = files[0][field][step][:], f[field][step][:]
            worst = max(worst, int((a != b).sum()))
    print("%s vs 1 rank: %d values differ" % (p.rsplit("/", 1)[-1], worst))
PY
  rm -f "$out"/wave_np*.h5 "$out/wave.h5"  # compared; too large to bring back
fi

if has bench; then
  for tree in baseline build; do
    dir=$([ "$tree" = build ] && echo "$build" || echo "$baseline")
    [ -x "$dir/bench/heat_bandwidth" ] || continue
    "$dir/bench/heat_bandwidth" --n 512 --repeats 20 > "$out/p1_$tree.log" 2>&1
    echo "P1 $tree:"; tail -6 "$out/p1_$tree.log"
  done
  for tree in baseline build; do
    dir=$([ "$tree" = build ] && echo "$build" || echo "$baseline")
    [ -x "$dir/apps/solver" ] || continue
    for size in 256 512; do
      steps=$(( 400 * 256 * 256 * 256 / (size * size * size) )); [ "$steps" -lt 100 ] && steps=100
      STEPS=$steps REPEATS=2 HALO=auto MODES=mps SCALING=strong timeout 200 \
        bash "$MPSFW_ROOT/bench/mps_scaling.sh" "$dir" "$out/table_$tree" "$size" "1 8 16" \
        > "$out/table_${tree}_$size.txt" 2>&1
      echo "table $tree $size^3:"; tail -12 "$out/table_${tree}_$size.txt"
    done
  done
fi
if has wavebench; then
  timeout 560 bash "$MPSFW_ROOT/bench/wave_scaling.sh" "$wave" "$out/wave_scaling" > "$out/wave_scaling.txt" 2>&1
  echo "wave_scaling: exit $?"; cat "$out/wave_scaling.txt"
  rm -f "$out"/wave_scaling/*.h5
fi
if has bench; then
  # The wave example beside heat: 1 vs 8 ranks with MPS, 192^3 (strong).
  "$wave/wave_solver" --write-input "$out/wave_bench.h5" --force --set wave.nx=192 --set wave.ny=192 \
    --set wave.nz=192 --set run.steps=300 > /dev/null
  for np in 1 8; do
    timeout 120 mpirun -np "$np" "$wave/wave_solver" "$out/wave_bench.h5" --backend cuda --mps on \
      --report "$out/wave_bench_np$np.json" > "$out/wave_bench_np$np.log" 2>&1
    echo "wave bench np=$np: exit $?, $(grep -E 'cell-updates/s' "$out/wave_bench_np$np.log" | head -1)"
  done
fi
