#!/usr/bin/env bash
# Uniform against balanced MPS caps where the ranks on one GPU carry uneven
# work (docs/mps.md, "Balanced caps"), in one call:
#   heat  512 x 512 x 12 cells on 8 ranks split along z (run.pz = 8): blocks of
#         2 and 1 planes, 2 : 1 work
#   md    in.lj, 64 x 64 x 20 fcc cells (11 link cells along z) on 8 ranks split
#         along z: 3 ranks of 2 link-cell layers, 5 of 1, 2 : 1 atoms
# each under MPS (--mps on) with --mps-atp auto (the uniform cap) and balanced,
# the two taking turns, REPEATS times. Prints each run's throughput from its
# report, the medians, and balanced / auto; a failed run is reported and left
# out of the median. The caps each rank got are in the logs (summary's MPS
# lines).
#   bench/balanced_caps.sh BUILD_DIR OUT_DIR
# Environment: REPEATS (default 3), HEAT_STEPS (default 2000), MD_STEPS
# (default 1000), RANKS (default 8), MPIRUN.
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/bench_lib.sh"
ranks=${RANKS:-8}
bench_setup "$build" "$out" 512 "${HEAT_STEPS:-2000}"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
heat=("$input" --set heat.nz=12 --set run.px=1 --set run.py=1 --set run.pz="$ranks")
md=("$root/inputs/md_lj.h5" --set md.cells_x=64 --set md.cells_y=64 --set md.cells_z=20
  --set run.px=1 --set run.py=1 --set run.pz="$ranks" --set run.steps="${MD_STEPS:-1000}"
  --set run.diag_every=0)

for rep in $(seq "${REPEATS:-3}"); do
  for workload in heat md; do
    for caps in auto balanced; do
      name=${workload}_${caps}_k${rep}
      if [ "$workload" = heat ]; then args=("${heat[@]}"); else args=("${md[@]}"); fi
      "$mpirun" -np "$ranks" "$solver" "${args[@]}" --backend cuda --mps on --mps-atp "$caps" \
        --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
        { echo "$name failed:"; tail -5 "$out/$name.log"; }
    done
  done
done

"$python" - "$out" <<'PY'
import glob, json, os, re, statistics, sys
out = sys.argv[1]
figures = {}
for path in sorted(glob.glob(os.path.join(out, "*_k*.json"))):
    workload, caps, k = re.search(r"(\w+?)_(auto|balanced)_k(\d+)\.json$", path).groups()
    report = json.load(open(path))
    figures.setdefault((workload, caps), []).append(report["updates_per_second"])
for workload in ("heat", "md"):
    medians = {}
    for caps in ("auto", "balanced"):
        runs = figures.get((workload, caps), [])
        medians[caps] = statistics.median(runs) if runs else float("nan")
        print("%-4s %-8s median %.4g  runs %s" % (workload, caps, medians[caps],
                                                 " ".join("%.4g" % f for f in runs)))
    print("%-4s balanced / auto: %.3f" % (workload, medians["balanced"] / medians["auto"]))
PY
