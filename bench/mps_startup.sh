#!/usr/bin/env bash
# What MPS costs a short job (docs/performance.md): a RANKS-rank, STEPS-step
# heat job on one node, REPEATS times with --mps on and with --mps off
# (alternating, after one unmeasured run of each), end to end from mpirun's
# start to its exit. Prints the median seconds of each, their difference (the
# MPS overhead per job), and the median seconds of each step the run report
# records (run.json mps_details.seconds: each step's slowest rank) for both
# modes.
#   bench/mps_startup.sh BUILD_DIR [OUT_DIR]
# BUILD_DIR holds apps/solver (nothing is built here). Environment: RANKS (16),
# REPEATS (5), STEPS (1), SIZE (64: SIZE^3 cells in all), MPIRUN (mpirun),
# PYTHON (python3).
set -uo pipefail
build=${1:?build dir (with apps/solver)}
ranks=${RANKS:-16}
repeats=${REPEATS:-5}
steps=${STEPS:-1}
size=${SIZE:-64}
source "$(dirname "$0")/bench_lib.sh"
bench_setup "$build" "${2:-$build/mps-startup}" "$size" "$steps"

# run MODE NAME: one job; its wall seconds go to $out/NAME.seconds.
run() {
  local start end rc
  start=$(date +%s.%N)
  timeout 60 "$mpirun" -np "$ranks" "$solver" "$input" --mps "$1" --report "$out/$2.json" \
    > "$out/$2.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "$start $end" | awk '{printf "%.3f\n", $2 - $1}' > "$out/$2.seconds"
  [ "$rc" -eq 0 ] || { echo "run $2 (--mps $1) failed (exit $rc), see $out/$2.log"; return 1; }
}

status=0
run on warmup-on || status=1
run off warmup-off || status=1
for i in $(seq 1 "$repeats"); do
  # Alternate which mode goes first, so drift does not favour one.
  if [ $((i % 2)) -eq 1 ]; then
    run on "on-$i" || status=1
    run off "off-$i" || status=1
  else
    run off "off-$i" || status=1
    run on "on-$i" || status=1
  fi
done

"$python" - "$out" "$repeats" "$ranks" <<'PY' || status=1
import json, os, re, statistics, sys
out, repeats, ranks = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def runs(mode):
    walls, steps, states = [], {}, []
    for i in range(1, repeats + 1):
        name = os.path.join(out, "%s-%d" % (mode, i))
        try:  # a failed run wrote no report: it does not count
            with open(name + ".json") as f:
                m = json.load(f).get("mps_details", {})
            walls.append(float(open(name + ".seconds").read()))
        except (OSError, ValueError):
            continue
        states.append(m.get("state", "?"))
        for key, value in m.get("seconds", {}).items():
            steps.setdefault(key, []).append(float(value))
    return walls, steps, states

on, off = runs("on"), runs("off")
if not on[0] or not off[0]:
    print("no complete runs")
    sys.exit(1)
med = statistics.median
print("%s ranks, %d repeats: end to end (mpirun start to exit), median [min..max] s" % (ranks, repeats))
for name, (walls, _, states) in (("mps on", on), ("mps off", off)):
    print("  %-8s %6.3f  [%.3f .. %.3f]  (%s)" % (name, med(walls), min(walls), max(walls),
                                                 ", ".join(sorted(set(states)))))
print("  MPS overhead per job: %.3f s" % (med(on[0]) - med(off[0])))
print("steps of the run report (mps_details.seconds, slowest rank), median s")
print("  %-18s %8s %8s" % ("step", "mps on", "mps off"))
keys = list(on[1]) + [k for k in off[1] if k not in on[1]]
for key in keys:
    cell = lambda steps: "%8.3f" % med(steps[key]) if key in steps else "%8s" % "-"
    print("  %-18s %s %s" % (key, cell(on[1]), cell(off[1])))
if any(not s.startswith("active") for s in on[2]):
    print("WARNING: a run with --mps on was not active: %s" % ", ".join(on[2]))
    sys.exit(1)
PY
exit $status
