#!/usr/bin/env bash
# The LJ liquid of LAMMPS's "in.lj" benchmark (fcc rho 0.8442, T 1.44, cutoff
# 2.5 sigma, skin 0.3, dt 0.005, NVE, double precision) on the MD solver: 32k,
# 256k and ~1M atoms (20, 40, 64 FCC cells a side) on one GPU, at each rank
# count of RANKS (more than one rank: with MPS). Each point runs STEPS and
# 2 x STEPS steps, REPEATS times; the figure after warm-up is the difference,
# atoms x STEPS / (t(2 STEPS) - t(STEPS)), so start-up, first allocations and
# the first neighbour build drop out; the median over the repeats is printed,
# with the median whole-loop figure of the longer runs (the two can disagree:
# a difference of two runs is the noisier) and the last one's phase split.
# Thermo lines come at the first and last step only (run.diag_every = 0,
# passed where the solver knows the key; a tree whose MD reads
# run.thermo_every does the same by default): every tree does the same work.
#   bench/md_lj.sh BUILD_DIR OUT_DIR [CELLS="20 40 64"] [RANKS="1 8 16"]
# Environment: STEPS (default 1000), REPEATS (default 3), BACKEND (default
# cuda), SET (extra "--set key=value" arguments for every run), FIRST_REPEAT
# (default 1: the first repeat's number; the table covers every repeat in
# OUT_DIR, so calls with REPEATS=1 and rising FIRST_REPEAT add up, and
# REPEATS=0 only prints the table).
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
cells_list=${3:-20 40 64}
ranks_list=${4:-1 8 16}
steps=${STEPS:-1000}
repeats=${REPEATS:-3}
first_repeat=${FIRST_REPEAT:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
read -r -a extra <<<"${SET:-}"
diag=()
"$build/apps/solver" --list-keys=md 2>/dev/null | grep -q "run\.diag_every" && diag=(--set run.diag_every=0)

for cells in $cells_list; do
  for ranks in $ranks_list; do
    mps=(--mps off)
    [ "$ranks" -gt 1 ] && mps=(--mps on)
    for rep in $(seq "$first_repeat" $((first_repeat + repeats - 1))); do
    for n in "$steps" $((2 * steps)); do
      name=md_c${cells}_r${ranks}_s${n}_k${rep}
      mpirun -np "$ranks" "$build/apps/solver" "$root/inputs/md_lj.h5" \
        --set md.cells_x="$cells" --set md.cells_y="$cells" --set md.cells_z="$cells" \
        --set run.steps="$n" "${diag[@]}" --backend "${BACKEND:-cuda}" \
        "${extra[@]}" "${mps[@]}" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
        { echo "$name failed:"; tail -5 "$out/$name.log"; }
    done
    done
  done
done

python3 - "$out" "$steps" <<'PY'
import glob, json, os, re, statistics, sys
out, steps = sys.argv[1], int(sys.argv[2])
runs = {}
for path in glob.glob(os.path.join(out, "md_c*_r*_s*_k*.json")):
    c, r, s, k = map(int, re.search(r"md_c(\d+)_r(\d+)_s(\d+)_k(\d+)\.json$", path).groups())
    runs[(c, r, s, k)] = json.load(open(path))
print("%9s %5s %16s %14s %10s  %s" % ("atoms", "ranks", "after warm-up", "whole loop", "loop [s]",
                                      "phases of the last longer run (avg s, % of loop); repeats"))
for c, r in sorted({(c, r) for c, r, _, _ in runs}):
    warm_figures, loop_figures, long_ = [], [], None
    for k in sorted({k for c2, r2, _, k in runs if (c2, r2) == (c, r)}):
        short, long_k = runs.get((c, r, steps, k)), runs.get((c, r, 2 * steps, k))
        if not short or not long_k:
            continue
        long_ = long_k
        loop_figures.append(long_k["updates_per_second"])
        atoms = round(long_["updates_per_second"] * long_["loop_seconds"] / long_["steps"])
        dt = long_["loop_seconds"] - short["loop_seconds"]
        warm_figures.append(atoms * steps / dt if dt > 0 else float("nan"))
    if not long_:
        print("%9s %5d  incomplete" % ("c%d" % c, r))
        continue
    warm = statistics.median(warm_figures)
    phases = ", ".join("%s %.3f (%.0f%%)" % (p["name"], p["avg"], 100 * p["avg"] / long_["loop_seconds"])
                       for p in long_["phases"].values())
    print("%9d %5d %16.4g %14.4g %10.3f  %s  [MPS: %s]  [%s; loops %s]" % (
        atoms, r, warm, statistics.median(loop_figures), long_["loop_seconds"], phases, long_["mps"],
        " ".join("%.4g" % w for w in warm_figures), " ".join("%.4g" % w for w in loop_figures)))
PY
