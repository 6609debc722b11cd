#!/usr/bin/env bash
# One run of the solver with its timeline (--timeline, docs/input-format.md),
# read as text by scripts/timeline_summary.py: each phase per rank, the ranks'
# skew at each step and who comes last (who waits for whom). The run's report
# and log stay beside the timeline.
#   bench/timeline.sh BUILD_DIR OUT_DIR NAME RANKS SOLVER_ARGS...
# e.g. bench/timeline.sh build/default /tmp/t md16 16 inputs/md_lj.h5 --mps on \
#        --set md.cells_x=40 --set md.cells_y=40 --set md.cells_z=40 --set run.steps=1000
# Environment: MPIRUN (default mpirun), PYTHON (default python3).
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
name=${3:?run name}
ranks=${4:?ranks}
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
solver=$build/apps/solver
[ -x "$solver" ] || { echo "no $solver" >&2; exit 2; }
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
"${MPIRUN:-mpirun}" -np "$ranks" "$solver" "$@" --timeline "$out/$name.timeline.json" \
  --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
  { echo "$name failed (exit $?):"; tail -5 "$out/$name.log"; exit 1; }
echo "== $name ($ranks ranks): $(grep -m1 "throughput" "$out/$name.log" | sed 's/^ *//')"
"${PYTHON:-python3}" "$root/scripts/timeline_summary.py" "$out/$name.timeline.json"
