#!/usr/bin/env bash
# The heat backends side by side (issue 15): the same SIZE^3 heat job on
# RANKS ranks for each backend in BACKENDS, REPEATS times round-robin (after
# one unmeasured run of each), throughput from each run's report. Prints the
# median cell-updates/s of each backend and its ratio to the first.
#   bench/heat_backends.sh BUILD_DIR [OUT_DIR]
# BUILD_DIR holds apps/solver. Environment: BACKENDS ("host kokkos"; on the
# GPU e.g. "cuda kokkos"), RANKS ("1 4"), SIZE (128), STEPS (500), REPEATS (5),
# MPS (auto: passed as --mps), MPIRUN (mpirun), PYTHON (python3).
set -uo pipefail
build=${1:?build dir (with apps/solver)}
out=${2:-$build/heat-backends}
backends=(${BACKENDS:-host kokkos})
ranks_list=(${RANKS:-1 4})
size=${SIZE:-128}
steps=${STEPS:-500}
repeats=${REPEATS:-5}
mps=${MPS:-auto}
mpirun=${MPIRUN:-mpirun}
python=${PYTHON:-python3}
solver="$build/apps/solver"
[ -x "$solver" ] || { echo "no $solver" >&2; exit 2; }
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
input="$out/input.h5"
"$solver" --write-input "$input" --set heat.nx="$size" --set heat.ny="$size" \
  --set heat.nz="$size" --set run.steps="$steps" --set run.diag_every=0 > /dev/null ||
  { echo "--write-input failed" >&2; exit 1; }

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
