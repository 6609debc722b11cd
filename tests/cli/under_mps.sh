#!/usr/bin/env bash
# The solver under a real MPS daemon on a GPU, 8 ranks on one GPU: the paths
# that only run there (same-GPU pushes ordered by GPU-side waits) against runs
# that cannot take them, bit for bit. The other GPU tests run without MPS,
# where the host orders the ranks, so a GPU-side wait that is missing goes
# unseen by them (docs/testing.md).
#   heat_pushes  heat 64³, 400 steps: halos pushed device to device ==
#                every halo through MPI, every diagnostics row
#   md_ghosts    MD in.lj 32k atoms, 300 steps: same-GPU ghost pushes ==
#                every ghost through MPI, every thermo row
# (The same rank count on both sides: a sum over 8 ranks may differ from one
# rank's in its last digit, docs/archive/performance-journal.md.)
# Each case also checks that MPS was on (every rank a verified client) and that
# the pushes took the GPU-side path. Without a GPU, or without
# nvidia-cuda-mps-control, a case says SKIP and exits 77; with
# MPSFW_REQUIRE_GPU=1 (the GPU machine's scripts) that is a failure instead.
#   under_mps.sh --solver PATH --input-dir DIR --workdir DIR --python PATH
#                [launcher options] CASE
#   under_mps.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(heat_pushes md_ghosts)
cli_case_ranks() { echo 8; }
PYTHON=python3
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --python) PYTHON=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
cli_case_args 20 "${args[@]}"

missing=""
cli_gpu_present || missing="no GPU (nvidia-smi -L lists none)"
[ -n "$missing" ] || command -v nvidia-cuda-mps-control >/dev/null 2>&1 ||
  missing="no nvidia-cuda-mps-control on PATH"
if [ -n "$missing" ]; then
  if [ "${MPSFW_REQUIRE_GPU:-0}" = 1 ]; then
    echo "FAIL  $case_name: $missing, and MPSFW_REQUIRE_GPU=1"
    exit 1
  fi
  echo "SKIP  $case_name: $missing"
  exit 77
fi

# solve NAME NP ARGS...: one run, stdout in NAME.out, its report NAME.json.
solve() {
  local name=$1 np=$2
  shift 2
  cli_run "$np" "$name.out" "$name.err" --backend cuda --report "$name.json" "$@"
  cp "$name.out" out && cp "$name.err" err
  [ "$CLI_RC" -eq 0 ] ||
    problem "exit code $CLI_RC of: $(cli_command_text "$np" --backend cuda "$@")"
}

# same_rows A B: the diagnostics rows of reports A.json and B.json, bit for
# bit (the reports keep 17 digits), with MPS on for every rank of both.
same_rows() {
  if [ ! -s "$1.json" ] || [ ! -s "$2.json" ]; then
    problem "no report of $1 or $2 to compare"
    return
  fi
  "$PYTHON" - "$1.json" "$2.json" <<'PY' || problem "$1 and $2 differ (above)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
rows_a, rows_b = a["diagnostics"], b["diagnostics"]
bad = []
if len(rows_a) < 3 or len(rows_a) != len(rows_b):
    bad.append("%d and %d diagnostics rows (3 or more, as many in both, expected)"
               % (len(rows_a), len(rows_b)))
for ra, rb in zip(rows_a, rows_b):
    if ra != rb:
        bad.append("step %s: %s against %s" % (ra.get("step"), ra, rb))
for path, report in zip(sys.argv[1:], (a, b)):
    mps = report["mps_details"]
    if not mps["state"].startswith("active") or mps["verified_clients"] != mps["expected_clients"]:
        bad.append("%s: MPS %s, verified clients %s of %s (active, all expected)"
                   % (path, mps["state"], mps["verified_clients"], mps["expected_clients"]))
for line in bad[:10]:
    print(line)
sys.exit(1 if bad else 0)
PY
}

# gpu_side NAME: the run's halo line says the pushes were ordered on the GPU.
gpu_side() {
  grep -q "halo messages.*GPU-side waits" "$1.out" ||
    problem "$1: no same-GPU pushes with GPU-side waits: $(grep 'halo messages' "$1.out")"
}

case "$case_name" in
  heat_pushes)
    heat=("$INPUTS/heat_default.h5" --set heat.nx=64 --set heat.ny=64 --set heat.nz=64
          --set run.steps=400 --set run.diag_every=50 --mps on)
    solve mpi 8 "${heat[@]}" --set run.halo=mpi
    solve pushed 8 "${heat[@]}" --set run.halo=auto
    gpu_side pushed
    same_rows mpi pushed
    ;;
  md_ghosts)
    md=("$INPUTS/md_lj.h5" --set run.steps=300 --set run.diag_every=50 --mps on)
    solve mpi 8 "${md[@]}" --set run.halo=mpi
    solve pushed 8 "${md[@]}" --set run.halo=auto
    gpu_side pushed
    same_rows mpi pushed
    ;;
esac
cli_case_end "$case_name" "8 ranks on one GPU under MPS"
