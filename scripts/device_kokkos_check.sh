#!/usr/bin/env bash
# The Kokkos backend on the GPU machine, in one command: build a CUDA Kokkos
# from KOKKOS_SRC (scripts/build_kokkos_cuda.sh), mpsfw against it, then
#   1. test_heat_kokkos on 1 and 2 ranks (Kokkos on the GPU == host backend
#      bit for bit; N ranks == 1 rank);
#   2. heat 256^3, 4 ranks under MPS (--mps on: verified clients), kokkos and
#      cuda backends, 500 steps each (final fields compared);
#   3. bench/heat_backends.sh: cuda vs kokkos throughput, medians of 5.
# Logs in $OUT/kokkos.
#   KOKKOS_SRC=build/kokkos-src scripts/device_kokkos_check.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
out="${OUT:-$MPSFW_ROOT/device-logs}/kokkos"
mkdir -p "$out"
trap 'cp -r "$MPSFW_ROOT/.deps/kokkos-build/"*.log "$out/" 2>/dev/null; tar czf "${OUT:-$MPSFW_ROOT/device-logs}/kokkos.tgz" -C "$(dirname "$out")" kokkos' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 TMPDIR=/tmp/mpsfw-kokkos-check
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
t0=$SECONDS
MPSFW_JOBS=16 "$MPSFW_ROOT/scripts/build_kokkos_cuda.sh" "${KOKKOS_SRC:?set KOKKOS_SRC}" || exit 1
echo "kokkos: built in $((SECONDS - t0)) s"
build="$MPSFW_ROOT/build/device-kokkos"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DKokkos_ROOT="$MPSFW_ROOT/.deps/kokkos-cuda" > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
grep "mpsfw: Kokkos" "$out/configure.log"
cmake --build "$build" -j 16 --target solver mkinput test_heat_kokkos > "$out/build.log" 2>&1 ||
  { grep -m5 -B2 -A8 "error" "$out/build.log"; exit 1; }
echo "mpsfw: built"
echo "== 1. test_heat_kokkos"
for np in 1 2; do
  mpirun -np "$np" "$build/tests/test_heat_kokkos" > "$out/test_np$np.log" 2>&1
  echo "  $np rank(s): exit $?; $(grep -E '(PASSED|FAILED|OK) ' "$out/test_np$np.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
grep -E "Failure|Expected|first differing" "$out"/test_np*.log | head -10
echo "== 2. heat 256^3, 4 ranks, --mps on"
for b in kokkos cuda; do
  mpirun -np 4 "$build/apps/solver" "$MPSFW_ROOT/inputs/heat_default.h5" --backend "$b" --mps on \
    --set heat.nx=256 --set heat.ny=256 --set heat.nz=256 --set run.steps=500 \
    --set run.checkpoint_file="$TMPDIR/ck_$b.h5" --report "$out/run_$b.json" > "$out/run_$b.log" 2>&1
  echo "  $b: exit $?"
  grep -E "^  (backend|halo messages|MPS|throughput) " "$out/run_$b.log" | sed 's/^/  /'
done
"$build/apps/mkinput" --describe "$TMPDIR/ck_kokkos.h5" | grep /heat/u0 > "$out/u0_kokkos.txt"
"$build/apps/mkinput" --describe "$TMPDIR/ck_cuda.h5" | grep /heat/u0 > "$out/u0_cuda.txt"
[ -s "$out/u0_kokkos.txt" ] && cmp -s "$out/u0_kokkos.txt" "$out/u0_cuda.txt" && echo "  final fields: identical (kokkos == cuda)" ||
  echo "  final fields: DIFFER ($(cat "$out/u0_kokkos.txt") vs $(cat "$out/u0_cuda.txt"))"
echo "  daemons left: $(pgrep -fc nvidia-cuda-mps-control || true)"
echo "== 3. bench/heat_backends.sh: cuda vs kokkos, 256^3, 1 and 4 ranks, --mps on"
BACKENDS="cuda kokkos" RANKS="1 4" SIZE=256 STEPS=500 REPEATS=5 MPS=on \
  "$MPSFW_ROOT/bench/heat_backends.sh" "$build" "$TMPDIR/bench" 2>&1 | tee "$out/bench.txt"
