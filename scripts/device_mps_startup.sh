#!/usr/bin/env bash
# What MPS costs a short job, on the GPU machine in one device command
# (docs/performance.md): builds the solver of each tree in TREES (side by side,
# -j16) and runs bench/mps_startup.sh with each build, then checks that no
# control daemon, MPS server or session folder outlived the runs.
#   scripts/device_mps_startup.sh
# TREES: "NAME=SOURCE_DIR ..." (default "baseline=build/baseline-src this=.";
# a tree without CMakeLists.txt is skipped), e.g. a baseline made with
#   mkdir -p build/baseline-src && git archive HEAD | tar -x -C build/baseline-src
# and carried to the device. RANKS, REPEATS, STEPS, SIZE: bench/mps_startup.sh.
# Logs and mps_startup.tgz in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
out="${OUT:-$MPSFW_ROOT/device-logs}/mps_startup"
mkdir -p "$out"
trap 'tar czf "${OUT:-$MPSFW_ROOT/device-logs}/mps_startup.tgz" -C "$(dirname "$out")" mps_startup' EXIT
export TMPDIR=/tmp/mpsfw-mps-startup
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
trees=${TREES:-baseline=build/baseline-src this=.}

{
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode,persistence_mode --format=csv
  echo "kernel $(uname -r), $(nproc) cores"
  echo "/proc/driver/nvidia/gpus: $(ls /proc/driver/nvidia/gpus 2>&1)"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

names=()
for tree in $trees; do
  name=${tree%%=*}
  src=${tree#*=}
  case $src in /*) ;; *) src="$MPSFW_ROOT/$src" ;; esac
  [ -f "$src/CMakeLists.txt" ] || { echo "$name: no tree at $src, skipped"; continue; }
  names+=("$name")
  {
    echo "$name: $src $(git -C "$src" rev-parse --short HEAD 2>/dev/null || true)"
    cmake -S "$src" -B "$MPSFW_ROOT/build/device-startup-$name" "${gen[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON \
      -DMPSFW_BUILD_TESTS=OFF -DMPSFW_BUILD_BENCH=OFF &&
      cmake --build "$MPSFW_ROOT/build/device-startup-$name" -j 16 --target solver
  } > "$out/build-$name.log" 2>&1 &
done
wait
for name in "${names[@]}"; do
  [ -x "$MPSFW_ROOT/build/device-startup-$name/apps/solver" ] ||
    { echo "build $name failed:"; tail -30 "$out/build-$name.log"; exit 1; }
done
echo "build: ok (${names[*]})"

leftovers() {
  echo "  left: daemons $(pgrep -fc nvidia-cuda-mps-control || true)," \
       "servers $(pgrep -fc nvidia-cuda-mps-server || true)," \
       "session folders $(ls -d "$TMPDIR"/mpsfw-mps-* 2>/dev/null | wc -l)"
}
for name in "${names[@]}"; do
  echo "== $name"
  timeout 400 "$MPSFW_ROOT/bench/mps_startup.sh" "$MPSFW_ROOT/build/device-startup-$name" \
    "$out/$name" 2>&1 | tee "$out/bench-$name.txt"
  # Nothing may outlive a job: looked at the moment mpirun returns.
  timeout 60 mpirun -np "${RANKS:-16}" "$MPSFW_ROOT/build/device-startup-$name/apps/solver" \
    "$out/$name/input.h5" --mps on > "$out/$name/last.log" 2>&1
  echo "one more run with --mps on: exit $?" | tee -a "$out/bench-$name.txt"
  leftovers | tee -a "$out/bench-$name.txt"
done
