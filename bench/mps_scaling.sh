#!/usr/bin/env bash
# Ranks-per-GPU scaling on one GPU, as a benchmark: the ranks-per-GPU sweep
# (scripts/sweep.py) on the heat solver at 1, 2, 4, 8, 16 ranks, three ways:
#   timeslice  --mps off                  (the GPU time-slices between processes)
#   mps        --mps on --mps-atp 100     (MPS, no caps)
#   mps-caps   --mps on --mps-atp auto    (MPS, min(100, ceil(200/k)) % per rank)
# For each SIZE: weak scaling (SIZE³ cells per rank, the default) or strong
# scaling (SIZE³ cells in all; SCALING=strong). Prints each size's table of
# aggregate cell-updates/s (median of REPEATS runs), efficiency against one
# rank and MPS / time-slicing; the sweep folders hold the CSV, plots and runs.
#   bench/mps_scaling.sh BUILD_DIR OUT_DIR [SIZES="64 128"] [RANKS="1 2 4 8 16"]
# Environment: SCALING=weak|strong, REPEATS (3), STEPS (default: 400 at 64³,
# fewer for larger sizes but at least 50), BENCH_SECONDS (stop after this long;
# the sweep resumes where it stopped when called again with the same OUT_DIR),
# HALO (a list of run.halo values, e.g. "mpi auto": one sweep per value, in
# folders named SCALING-SIZE-HALO; unset: the input's run.halo, folders
# SCALING-SIZE), MODES (sharing modes, default "timeslice,mps,mps-caps": fewer
# to fit a run into a short device lease).
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
sizes=${3:-64 128}
ranks=${4:-1 2 4 8 16}
scaling=${SCALING:-weak}
root=$(cd "$(dirname "$0")/.." && pwd)
deadline=$(( $(date +%s) + ${BENCH_SECONDS:-100000} ))
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1

status=0
for size in $sizes; do
for halo in ${HALO:-input}; do
  # 64³ -> 400 steps, larger -> 50 (at least: shorter loops time badly) unless STEPS says.
  steps=$(( 400 * 64 * 64 * 64 / (size * size * size) ))
  [ "$steps" -lt 50 ] && steps=50
  steps=${STEPS:-$steps}
  left=$(( deadline - $(date +%s) ))
  if [ "$left" -le 0 ]; then
    echo "BENCH_SECONDS reached: size $size not run"
    continue
  fi
  dir=$out/$scaling-$size
  halo_set=()
  if [ "$halo" != input ]; then
    dir=$out/$scaling-$size-$halo
    halo_set=(--set run.halo="$halo")
  fi
  echo "== $scaling scaling, $size³ cells $([ "$scaling" = weak ] && echo per rank || echo in all), $steps steps$([ "$halo" != input ] && echo ", run.halo=$halo")"
  timeout "$left" /usr/bin/python3 "$root/scripts/sweep.py" "$root/inputs/heat_default.h5" \
    --out "$dir" --solver "$build/apps/solver" --scaling "$scaling" \
    --ranks-per-gpu "$(echo $ranks | tr ' ' ',')" --repeats "${REPEATS:-3}" \
    --modes "${MODES:-timeslice,mps,mps-caps}" \
    --set heat.nx="$size" --set heat.ny="$size" --set heat.nz="$size" \
    --set run.steps="$steps" --set run.diag_every=0 "${halo_set[@]}" > "$dir.log" 2>&1 || {
    echo "sweep for size $size stopped (exit $?): see $dir.log"
    tail -3 "$dir.log"
    status=1
  }
  [ -f "$dir/summary.md" ] && sed -n "/^Best/,\$p" "$dir/summary.md" | grep -v "^Plots"
done
done
exit $status
