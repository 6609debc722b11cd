#!/usr/bin/env bash
# The LJ liquid of LAMMPS's "in.lj" benchmark (rho 0.8442, T 1.44, cutoff
# 2.5 sigma, dt 0.005, NVE) on the MD solver: 32k, 256k and ~1M atoms (20, 40,
# 64 FCC cells a side) on one GPU, 1 rank and 8 ranks with MPS. Prints
# atom-steps/s and the time split by phase, from each run's report.
#   bench/md_lj.sh BUILD_DIR OUT_DIR [CELLS="20 40 64"] [RANKS="1 8"]
# Environment: STEPS (default 200), BACKEND (default cuda).
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
cells_list=${3:-20 40 64}
ranks_list=${4:-1 8}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1

for cells in $cells_list; do
  for ranks in $ranks_list; do
    mps=(--mps off)
    [ "$ranks" -gt 1 ] && mps=(--mps on)
    name=md_c${cells}_r${ranks}
    mpirun -np "$ranks" "$build/apps/solver" "$root/inputs/md_lj.h5" \
      --set md.cells_x="$cells" --set md.cells_y="$cells" --set md.cells_z="$cells" \
      --set run.steps="${STEPS:-200}" --set run.thermo_every=0 --backend "${BACKEND:-cuda}" \
      "${mps[@]}" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
      { echo "$name failed:"; tail -5 "$out/$name.log"; continue; }
  done
done

python3 - "$out" <<'PY'
import glob, json, os, sys
print("%9s %5s %12s %10s  %s" % ("atoms", "ranks", "atom-steps/s", "loop [s]", "phases (avg s, % of loop)"))
for path in sorted(glob.glob(os.path.join(sys.argv[1], "md_c*_r*.json")),
                   key=lambda p: (int(p.split("_c")[1].split("_")[0]), int(p.split("_r")[-1][:-5]))):
    r = json.load(open(path))
    atoms = int(r["updates_per_second"] * r["loop_seconds"] / r["steps"] + 0.5) if r["steps"] else 0
    phases = ", ".join("%s %.3f (%.0f%%)" % (k, v["avg"], 100 * v["avg"] / r["loop_seconds"])
                       for k, v in r["phases"].items())
    print("%9d %5d %12.4g %10.3f  %s  [MPS: %s]" % (atoms, r["ranks"], r["updates_per_second"],
                                                    r["loop_seconds"], phases, r["mps"]))
PY
