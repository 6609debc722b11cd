#!/usr/bin/env bash
# The heat backends side by side (docs/performance.md): the same SIZE^3 heat job
# on RANKS ranks for each backend in BACKENDS, REPEATS times round-robin (after
# one unmeasured run of each), throughput from each run's report. Prints the
# median cell-updates/s of each backend and its ratio to the first.
#   bench/heat_backends.sh BUILD_DIR [OUT_DIR]
# BUILD_DIR holds apps/solver. Environment: BACKENDS ("host kokkos"; on the
# GPU e.g. "cuda kokkos"), RANKS ("1 4"), SIZE (128), STEPS (500), REPEATS (5),
# MPS (auto: passed as --mps), MPIRUN (mpirun), PYTHON (python3).
set -uo pipefail
build=${1:?build dir (with apps/solver)}
backends=(${BACKENDS:-host kokkos})
ranks_list=(${RANKS:-1 4})
size=${SIZE:-128}
steps=${STEPS:-500}
repeats=${REPEATS:-5}
mps=${MPS:-auto}
source "$(dirname "$0")/bench_lib.sh"
bench_setup "$build" "${2:-$build/heat-backends}" "$size" "$steps"

# run RANKS BACKEND TAG: one job; its report is $out/TAG.json.
run() {
  "$mpirun" -np "$1" "$solver" "$input" --backend "$2" --mps "$mps" --report "$out/$3.json" \
    > "$out/$3.log" 2>&1 || { echo "  $2 on $1 ranks failed: $(tail -2 "$out/$3.log")" >&2; return 1; }
}
echo "heat ${size}^3, $steps steps, --mps $mps, median of $repeats; backends: ${backends[*]}"
for ranks in "${ranks_list[@]}"; do
  for b in "${backends[@]}"; do run "$ranks" "$b" "warm-$ranks-$b" || exit 1; done
  for r in $(seq 1 "$repeats"); do
    for b in "${backends[@]}"; do run "$ranks" "$b" "r$r-$ranks-$b" || exit 1; done
  done
  "$python" - "$out" "$ranks" "$repeats" "${backends[@]}" <<'PY'
import json, statistics, sys
out, ranks, repeats, backends = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
medians = {}
for b in backends:
    values = [json.load(open(f"{out}/r{r}-{ranks}-{b}.json"))["updates_per_second"]
              for r in range(1, repeats + 1)]
    medians[b] = statistics.median(values)
first = medians[backends[0]]
for b in backends:
    print(f"  {ranks:>2} ranks  {b:<8} {medians[b]:.3e} cell-updates/s  "
          f"{medians[b] / first:.2f} of {backends[0]}")
PY
done
