#!/usr/bin/env bash
# advise against the full ranks-per-GPU sweep (docs/advise.md), each CASE in one
# call: scripts/advise.py on the case's input, then scripts/sweep.py over every
# ranks-per-GPU of RANKS_PER_GPU and every mode, both timed. Prints advise's
# choice, the sweep's median throughput at that point and at the sweep's best
# point, their ratio (target >= 0.95) and advise's time over the sweep's
# (target <= 0.10).
#   heat-strong  heat 256^3, strong scaling
#   heat-weak    heat 128^3 a rank, weak scaling
#   md-strong    in.lj 256k atoms (40^3 fcc cells), strong scaling
#   md-weak      in.lj 16k atoms a rank (16^3 fcc cells), weak scaling
#   command      COMMAND (any program, run through BUILD_DIR's mpsfw-run in this
#                folder), timed by TIME or RATE (advise's --time / --rate) or its
#                wall clock, strong scaling
#   bench/advise_vs_sweep.sh BUILD_DIR OUT_DIR ["heat-strong heat-weak md-strong md-weak"]
# Environment: RANKS_PER_GPU (default 1,2,4,8,16), REPEATS (the sweep's,
# default 3), STEPS (run.steps of every input, default 200), MODES (the
# sweep's, default all three).
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
cases=${3:-heat-strong heat-weak md-strong md-weak}
root=$(cd "$(dirname "$0")/.." && pwd)
solver=$build/apps/solver
[ -x "$solver" ] || [ "$cases" = command ] || { echo "no $solver" >&2; exit 2; }
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
steps=${STEPS:-200}

for c in $cases; do
  weak=()
  sets=()
  subject=()
  case $c in
    heat-strong | heat-weak)
      size=256
      [ "$c" = heat-weak ] && size=128
      input=$out/$c.h5
      "$solver" --write-input "$input" --force --set heat.nx=$size --set heat.ny=$size \
        --set heat.nz=$size --set run.steps="$steps" > /dev/null || exit 1
      ;;
    md-strong | md-weak)
      cells=40
      [ "$c" = md-weak ] && cells=16
      input=$root/inputs/md_lj.h5
      sets=(--set md.cells_x=$cells --set md.cells_y=$cells --set md.cells_z=$cells
        --set run.steps="$steps" --set run.diag_every=0)
      ;;
    command)
      subject=(--command "${COMMAND:?the command case needs COMMAND}" --mpsfw-run "$build/apps/run")
      [ -n "${TIME:-}" ] && subject+=(--time "$TIME")
      [ -n "${RATE:-}" ] && subject+=(--rate "$RATE")
      ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  [ ${#subject[@]} -eq 0 ] && subject=("$input" --solver "$solver" "${sets[@]}")
  scaling=strong
  [[ $c == *-weak ]] && { weak=(--weak); scaling=weak; }
  t0=$(date +%s.%N)
  python3 "$root/scripts/advise.py" "${subject[@]}" "${weak[@]}" \
    --json "$out/$c.advise.json" > "$out/$c.advise.log" 2>&1 || echo "$c: advise failed ($(tail -2 "$out/$c.advise.log"))"
  t1=$(date +%s.%N)
  python3 "$root/scripts/sweep.py" "${subject[@]}" --out "$out/$c.sweep" \
    --ranks-per-gpu "${RANKS_PER_GPU:-1,2,4,8,16}" --scaling "$scaling" --repeats "${REPEATS:-3}" \
    --modes "${MODES:-timeslice,mps,mps-caps}" \
    > "$out/$c.sweep.log" 2>&1 || echo "$c: sweep exited $? ($(tail -2 "$out/$c.sweep.log"))"
  t2=$(date +%s.%N)
  python3 - "$c" "$out/$c.advise.json" "$out/$c.sweep/sweep.csv" "$t0" "$t1" "$t2" <<'PY'
import csv, json, statistics, sys
case, advice, table, t0, t1, t2 = sys.argv[1], sys.argv[2], sys.argv[3], *map(float, sys.argv[4:])
choice = json.load(open(advice))["choice"]
rows = [r for r in csv.DictReader(open(table)) if r["status"] == "ok" and r["mps_as_asked"] == "yes"]
medians = {}
for key in {(int(r["ranks_per_gpu"]), r["mode"]) for r in rows}:
    medians[key] = statistics.median(float(r["updates_per_second"]) for r in rows
                                     if (int(r["ranks_per_gpu"]), r["mode"]) == key)
best = max(medians, key=medians.get)
mode = {"one per GPU": "timeslice", "time-sliced": "timeslice", "MPS": "mps-caps"}[choice["arm"]]
chosen = medians.get((choice["ranks_per_gpu"], mode), float("nan"))
print("%-11s advise: %s -> sweep %.4g; sweep's best: %d/GPU %s %.4g; ratio %.3f; "
      "time advise %.0f s / sweep %.0f s = %.3f" % (
          case, choice["point"], chosen, best[0], best[1], medians[best], chosen / medians[best],
          t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1)))
PY
done
