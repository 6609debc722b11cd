#!/usr/bin/env bash
# The Kokkos backend on the GPU machine, in one command: build a CUDA Kokkos
# from KOKKOS_SRC (scripts/build_kokkos_cuda.sh), mpsfw against it, then the
# PARTS asked for (default: all):
#   tests     test_heat_columns_kokkos (built as the CUDA Kokkos builds it),
#             test_heat_kokkos, test_md_kokkos and test_md_physics' Kokkos
#             cases on 1 and 2 ranks (Kokkos on
#             the GPU == host backend bit for bit; N ranks vs 1 rank)
#   mps       heat 256^3 and md in.lj 32k, 4 ranks under MPS (--mps on:
#             verified clients), kokkos and cuda backends (final states compared;
#             Kokkos md with same-GPU ghost pushes vs run.halo=mpi bit for bit)
#   bandwidth heat_bandwidth --backend cuda and kokkos at 512^3, and
#             heat_kokkos_variants (other ways to write the update in Kokkos)
#   heat      bench/heat_backends.sh: cuda vs kokkos throughput under MPS, medians
#             of 3: 256^3 at 1, 8 and 16 ranks, 512^3 at 1 and 8
#   md        bench/md_lj.sh with BACKEND=kokkos and cuda: in.lj 32k and 256k, 1 rank
# Logs in $OUT/kokkos.
#   KOKKOS_SRC=build/kokkos-src scripts/device_kokkos_check.sh ["tests mps bandwidth heat md"]
set -uo pipefail
source "$(dirname "$0")/env.sh"
out="${OUT:-$MPSFW_ROOT/device-logs}/kokkos"
mkdir -p "$out"
trap 'mkdir -p "$out/kokkos-build"; cp "$MPSFW_ROOT/.deps/kokkos-build/"*.log "$out/kokkos-build/" 2>/dev/null; tar czf "${OUT:-$MPSFW_ROOT/device-logs}/kokkos.tgz" -C "$(dirname "$out")" kokkos' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 TMPDIR=/tmp/mpsfw-kokkos-check
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
parts=${1:-tests mps bandwidth heat md}
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
cmake --build "$build" -j 16 --target solver mkinput test_heat_kokkos test_md_kokkos test_md_physics \
  test_heat_columns_kokkos heat_bandwidth heat_kokkos_variants > "$out/build.log" 2>&1 ||
  { grep -m5 -B2 -A8 "error" "$out/build.log"; exit 1; }
echo "mpsfw: built ($((SECONDS - t0)) s)"

if has tests; then
  echo "== tests"
  "$build/tests/test_heat_columns_kokkos" > "$out/test_heat_columns_kokkos.log" 2>&1
  echo "  test_heat_columns_kokkos: exit $?; $(grep -cE '\[       OK' "$out/test_heat_columns_kokkos.log") ok"
  for t in test_heat_kokkos test_md_kokkos test_md_physics; do
    filter=()
    [ "$t" = test_md_physics ] && filter=(--gtest_filter='*/kokkos')
    for np in 1 2; do
      timeout 240 mpirun -np "$np" "$build/tests/$t" "${filter[@]}" > "$out/${t}_np$np.log" 2>&1
      echo "  $t, $np rank(s): exit $?; $(grep -E '(PASSED|FAILED|OK) ' "$out/${t}_np$np.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    done
  done
  grep -hE "Failure|Expected|first differing|vs 1:|differ" "$out"/test_*.log | head -20
fi

if has mps; then
  echo "== 4 ranks, --mps on"
  for b in kokkos cuda; do
    mpirun -np 4 "$build/apps/solver" "$MPSFW_ROOT/inputs/heat_default.h5" --backend "$b" --mps on \
      --set heat.nx=256 --set heat.ny=256 --set heat.nz=256 --set run.steps=500 \
      --set run.checkpoint_file="$TMPDIR/ck_$b.h5" --report "$out/run_$b.json" > "$out/run_$b.log" 2>&1
    echo "  heat $b: exit $?"
    grep -E "^  (backend|halo messages|MPS|throughput) " "$out/run_$b.log" | sed 's/^/  /'
    mpirun -np 4 "$build/apps/solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend "$b" --mps on \
      --set run.steps=300 --output "$TMPDIR/md_$b.h5" > "$out/md_$b.log" 2>&1
    echo "  md $b: exit $?"
    grep -E "^  (backend|halo messages|MPS|throughput) |verified" "$out/md_$b.log" | sed 's/^/  /'
  done
  "$build/apps/mkinput" --describe "$TMPDIR/ck_kokkos.h5" | grep /heat/u0 > "$out/u0_kokkos.txt"
  "$build/apps/mkinput" --describe "$TMPDIR/ck_cuda.h5" | grep /heat/u0 > "$out/u0_cuda.txt"
  [ -s "$out/u0_kokkos.txt" ] && cmp -s "$out/u0_kokkos.txt" "$out/u0_cuda.txt" && echo "  heat final fields: identical (kokkos == cuda)" ||
    echo "  heat final fields: DIFFER ($(cat "$out/u0_kokkos.txt") vs $(cat "$out/u0_cuda.txt"))"
  # Kokkos md ghosts pushed device to device vs sent through MPI: the same
  # ghosts in the same order, so the same trajectory bit for bit.
  mpirun -np 4 "$build/apps/solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend kokkos --mps on \
    --set run.steps=300 --set run.halo=mpi --output "$TMPDIR/md_kokkos_mpi.h5" > "$out/md_kokkos_mpi.log" 2>&1
  echo "  md kokkos, run.halo=mpi: exit $?; $(grep -E '^  halo messages' "$out/md_kokkos_mpi.log")"
  for f in md_kokkos md_kokkos_mpi; do
    "$build/apps/mkinput" --describe "$TMPDIR/$f.h5" | grep /frames > "$out/$f.frames.txt"
  done
  [ -s "$out/md_kokkos.frames.txt" ] && cmp -s "$out/md_kokkos.frames.txt" "$out/md_kokkos_mpi.frames.txt" &&
    echo "  md kokkos trajectories: identical (same-GPU pushes == MPI)" ||
    echo "  md kokkos trajectories: DIFFER between run.halo=auto and mpi"
  # The native store reorders atoms as they migrate (sums in another order):
  # md agrees within round-off growth, so the last thermo rows are shown.
  for b in kokkos cuda; do echo "  md $b, step 300: $(grep -E '^ +300 ' "$out/md_$b.log")"; done
  echo "  daemons left: $(pgrep -fc nvidia-cuda-mps-control || true)"
fi

if has bandwidth; then
  echo "== heat update 512^3, one rank"
  for b in cuda kokkos; do
    "$build/bench/heat_bandwidth" --n 512 --backend "$b" > "$out/bandwidth_$b.txt" 2>&1
    grep -E "copy|kernel|step|of the device" "$out/bandwidth_$b.txt" | sed "s/^/  $b: /"
  done
  "$build/bench/heat_kokkos_variants" --n 512 2>&1 | tee "$out/kokkos_variants_512.txt"
  "$build/bench/heat_kokkos_variants" --n 256 > "$out/kokkos_variants_256.txt" 2>&1
  sed 's/^/  256^3: /' "$out/kokkos_variants_256.txt" | tail -24
fi

if has heat; then
  echo "== bench/heat_backends.sh: cuda vs kokkos, --mps on"
  for case in "256 1 8 16" "512 1 8"; do
    read -r size ranks <<<"$case"
    BACKENDS="cuda kokkos" RANKS="$ranks" SIZE=$size STEPS=300 REPEATS=3 MPS=on \
      "$MPSFW_ROOT/bench/heat_backends.sh" "$build" "$TMPDIR/bench$size" 2>&1 | tee "$out/heat_backends_$size.txt"
  done
fi

if has md; then
  echo "== bench/md_lj.sh: cuda vs kokkos, 1 rank"
  for b in cuda kokkos; do
    BACKEND=$b STEPS=500 REPEATS=3 "$MPSFW_ROOT/bench/md_lj.sh" "$build" "$TMPDIR/md_$b" "20 40" "1" 2>&1 |
      tee "$out/md_lj_$b.txt"
  done
fi
echo "total: $((SECONDS - t0)) s"
