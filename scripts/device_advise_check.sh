#!/usr/bin/env bash
# advise's checks on the GPU machine (docs/advise.md), in one command (one
# Release build with CUDA, sm_90, no Kokkos; the parts asked, in order):
#   tests     the GPU tests (ctest -L gpu, a missing GPU a failure)
#   dryrun    solver --dry-run on the GPU: the preflight's free memory from NVML,
#             auto and balanced caps, and no daemon left behind
#   balanced  bench/balanced_caps.sh (uniform against balanced caps, uneven work)
#   heat-strong heat-weak md-strong md-weak
#             bench/advise_vs_sweep.sh, one case each
#   scripts/device_advise_check.sh "tests dryrun balanced heat-strong"
# Logs: $OUT/advise (tarred into $OUT/advise.tgz).
set -uo pipefail
source "$(dirname "$0")/env.sh"
parts=${1:-tests dryrun balanced}
device_logs advise
record_device_machine "$out/machine.txt"
rc=0
build="$MPSFW_ROOT/build/device-advise"
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets="solver mpsctl"
if has tests; then
  targets="$targets $(gpu_test_targets "$build" | tr '\n' ' ')"
fi
# shellcheck disable=SC2086  # one target per word
cmake --build "$build" -j "$(nproc)" --target $targets > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
solver=$build/apps/solver
daemons() { echo "daemons left: $(pgrep -fc nvidia-cuda-mps-control || true)"; }

if has tests; then
  targets="$targets $(gpu_test_targets "$build" | tr '\n' ' ')"
fi

if has dryrun; then
  heat=("$MPSFW_ROOT/inputs/heat_default.h5" --set heat.nx=256 --set heat.ny=256 --set heat.nz=250)
  for caps in auto balanced; do
    timeout 60 mpirun -np 4 "$solver" "${heat[@]}" --set run.pz=4 --set run.px=1 --set run.py=1 \
      --mps on --mps-atp "$caps" --dry-run > "$out/dryrun-$caps.log" 2>&1
    echo "dry run, caps $caps: exit $? ($(daemons))"
    cat "$out/dryrun-$caps.log"
  done
fi

if has balanced; then
  timeout 420 bash "$MPSFW_ROOT/bench/balanced_caps.sh" "$build" "$out/balanced" | tee "$out/balanced.txt"
  daemons
fi

for c in heat-strong heat-weak md-strong md-weak; do
  has "$c" || continue
  timeout "${CASE_TIMEOUT:-330}" bash "$MPSFW_ROOT/bench/advise_vs_sweep.sh" "$build" "$out/$c" "$c" |
    tee "$out/$c.txt"
  daemons
done
exit "$rc"
