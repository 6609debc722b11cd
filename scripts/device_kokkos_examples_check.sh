#!/usr/bin/env bash
# The examples' kernels through a CUDA Kokkos on the GPU machine, in one
# command: a CUDA Kokkos from KOKKOS_SRC (scripts/build_kokkos_cuda.sh),
# mpsfw against it (libraries and programs only) installed into a prefix,
# examples/allen_cahn and examples/wave built against that install as a user
# builds them, then each run at 1 rank on the host, at 1 rank with CUDA and
# with Kokkos, and at 4 ranks with Kokkos under MPS (--mps on: every rank a
# verified client). Every snapshot's datasets must be the host's bit for bit
# (their FNV-1a hashes, `mpsfw-mkinput --describe`); the loop throughput of
# Kokkos against CUDA at 1 rank is printed. Logs in $OUT/kokkos-examples.
#   KOKKOS_SRC=build/kokkos-src scripts/device_kokkos_examples_check.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_logs kokkos-examples
record_device_machine "$out/machine.txt"
t0=$SECONDS
MPSFW_JOBS=16 "$MPSFW_ROOT/scripts/build_kokkos_cuda.sh" "${KOKKOS_SRC:?set KOKKOS_SRC}" \
  > "$out/kokkos-build.log" 2>&1 || { tail -30 "$out/kokkos-build.log"; exit 1; }
echo "kokkos: built in $((SECONDS - t0)) s"
kokkos="$MPSFW_ROOT/.deps/kokkos-cuda"
build="$MPSFW_ROOT/build/device-kokkos-package"
prefix="$MPSFW_ROOT/build/device-kokkos-prefix"
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKokkos_ROOT="$kokkos" -DMPSFW_BUILD_TESTS=OFF -DMPSFW_BUILD_BENCH=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
grep "mpsfw: Kokkos" "$out/configure.log"
{ cmake --build "$build" -j 16 && cmake --install "$build"; } > "$out/build.log" 2>&1 ||
  { grep -m5 -B2 -A8 "error" "$out/build.log"; exit 1; }
echo "mpsfw: built and installed ($((SECONDS - t0)) s)"
for example in allen_cahn wave; do
  cmake -S "$MPSFW_ROOT/examples/$example" -B "$build-$example" "${gen[@]}" \
    -DCMAKE_PREFIX_PATH="$prefix" -DKokkos_ROOT="$kokkos" > "$out/$example-configure.log" 2>&1 &&
    cmake --build "$build-$example" -j 16 > "$out/$example-build.log" 2>&1 ||
    { tail -30 "$out/$example-configure.log" "$out/$example-build.log"; exit 1; }
  grep -h "built for --backend" "$out/$example-configure.log" ||
    { echo "$example: built without Kokkos kernels"; exit 1; }
done
echo "examples: built ($((SECONDS - t0)) s)"

mkinput="$prefix/bin/mpsfw-mkinput"
failed=0
# check NAME SOLVER INPUT: the four runs of NAME, their snapshots against the host's.
check() {
  local name=$1 solver=$2 input=$3 run np backend mps
  for run in "1 host off" "1 cuda off" "1 kokkos off" "4 kokkos on"; do
    read -r np backend mps <<<"$run"
    local tag="$name-$backend-np$np"
    timeout 300 mpirun -np "$np" "$solver" "$input" --backend "$backend" --mps "$mps" \
      --output "$out/$tag.h5" --report "$out/$tag.json" > "$out/$tag.log" 2>&1 ||
      { echo "  $tag: FAILED (exit $?): $(grep -m1 error "$out/$tag.log")"; failed=1; continue; }
    "$mkinput" --describe "$out/$tag.h5" | grep '^dataset ' > "$out/$tag.datasets"
    local mps_line
    mps_line=$(grep -m1 -o "MPS .*" "$out/$tag.log" | head -c 90)
    if [ "$tag" = "$name-host-np1" ]; then
      echo "  $tag: $(wc -l < "$out/$tag.datasets") datasets"
    elif cmp -s "$out/$name-host-np1.datasets" "$out/$tag.datasets"; then
      echo "  $tag: the host's datasets bit for bit; $mps_line"
    else
      echo "  $tag: DIFFERS from the host: $(diff "$out/$name-host-np1.datasets" "$out/$tag.datasets" | head -2 | tr '\n' ' ')"
      failed=1
    fi
  done
  python3 - "$out/$name-cuda-np1.json" "$out/$name-kokkos-np1.json" <<'PY' || true
import json, sys
cuda, kokkos = (json.load(open(p)) for p in sys.argv[1:3])
print("  kokkos / cuda loop throughput at 1 rank: %.3f (%.4g vs %.4g %s)"
      % (kokkos["updates_per_second"] / cuda["updates_per_second"], kokkos["updates_per_second"],
         cuda["updates_per_second"], cuda["throughput_unit"]))
PY
}
cd "$out" || exit 1
"$build-allen_cahn/allen_cahn_solver" --write-input ac.h5 --set ac.nx=128 --set ac.ny=96 --set ac.nz=80 \
  --set run.steps=200 --set run.output_every=100 > /dev/null || exit 1
echo "== allen_cahn 128x96x80, 200 steps"
check ac "$build-allen_cahn/allen_cahn_solver" ac.h5
"$build-wave/wave_solver" --write-input wave.h5 --set wave.nx=128 --set wave.ny=128 --set wave.nz=128 \
  --set run.steps=100 --set run.output_every=50 > /dev/null || exit 1
echo "== wave 128^3, 100 steps"
check wave "$build-wave/wave_solver" wave.h5
echo "done in $((SECONDS - t0)) s: $([ "$failed" = 0 ] && echo "every run the host's bit for bit" || echo "FAILURES above")"
exit "$failed"
