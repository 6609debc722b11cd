#!/usr/bin/env bash
# The job scripts on a real (one-node, localhost) Slurm: a single run, the
# sweep, and a site cap given through --gres=mps:50 that the MPS session keeps
# and reports (with a test double of the MPS control daemon: no GPU here).
#   tests/slurm/test_slurm.sh REPO BUILD_DIR WORKDIR PYTHON
set -uo pipefail
repo=$1 build=$2 work=$3 python=$4
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
cluster=$work/cluster
failures=0 passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; passes=$((passes + 1)); }

"$repo/tests/slurm/cluster.sh" up "$cluster" || { echo "0 passed, 1 failed"; exit 1; }
trap '"$repo/tests/slurm/cluster.sh" down "$cluster" >/dev/null' EXIT
export SLURM_CONF=$cluster/slurm.conf MPSFW_ROOT=$repo MPSFW_BUILD=$build
cd "$work" || exit 1

# 1. One run through run.sbatch (2 ranks, the host backend here).
if timeout 120 sbatch --wait --chdir="$work" --ntasks-per-node=2 --output="$work/run.out" \
    "$repo/slurm/run.sbatch" "$repo/inputs/heat_default.h5" --set run.steps=5 >/dev/null; then
  job=$(sed -n 's/^report: run-\([0-9]*\)\.json$/\1/p' run.out)
  if grep -q "run summary" run.out && [ -s "run-$job.json" ] &&
     "$python" -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['ranks']==2" "run-$job.json"; then
    pass "run.sbatch: the run completed and wrote run-$job.json (2 ranks)"
  else
    fail "run.sbatch: no summary or report: $(tail -5 run.out)"
  fi
else
  fail "run.sbatch: job failed: $(tail -5 run.out 2>/dev/null)"
fi

# 2. The sweep inside one allocation: 2 ranks per GPU points x 2 modes, one repeat.
if MPSFW_OUT=$work/sweep MPSFW_RANKS_PER_GPU=1,2 MPSFW_MODES=timeslice,mps MPSFW_SCALING=strong \
   MPSFW_REPEATS=1 MPSFW_GPUS=0 MPSFW_PYTHON=/usr/bin/python3 \
   timeout 240 sbatch --wait --chdir="$repo" --ntasks=2 --output="$work/sweep.out" \
   "$repo/slurm/sweep.sbatch" "$repo/inputs/heat_uneven.h5" >/dev/null; then
  rows=$(($(wc -l < "$work/sweep/sweep.csv") - 1))
  if [ "$rows" -eq 4 ]; then
    pass "sweep.sbatch: sweep.csv has the 4 expected rows"
  else
    fail "sweep.sbatch: sweep.csv has $rows rows, expected 4"
  fi
else
  fail "sweep.sbatch: job failed: $(tail -5 "$work/sweep.out" 2>/dev/null)"
fi

# 3. A site cap: --gres=mps:50 sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 and a
#    site daemon answers; the session reuses it and keeps (and reports) 50%.
probe=$build/tests/mps/mps_session_probe
double=$repo/tests/mps/fake-nvidia-cuda-mps-control
if [ -x "$probe" ]; then
  mkdir -p "$work/bin" "$work/proc/0000:01:00.0" "$work/site/pipe" "$work/site/log"
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$python" "$double" > "$work/bin/nvidia-cuda-mps-control"
  chmod +x "$work/bin/nvidia-cuda-mps-control"
  printf 'GPU UUID: \t GPU-5105e000-0000-4000-8000-000000000000\n' \
    > "$work/proc/0000:01:00.0/information"
  export MPSFW_MPS_CONTROL=$work/bin/nvidia-cuda-mps-control MPSFW_NVIDIA_PROC_ROOT=$work/proc
  export CUDA_MPS_PIPE_DIRECTORY=$work/site/pipe CUDA_MPS_LOG_DIRECTORY=$work/site/log
  "$MPSFW_MPS_CONTROL" -d </dev/null >/dev/null 2>&1
  for _ in $(seq 1 100); do [ -s "$work/site/pipe/nvidia-cuda-mps-control.pid" ] && break; sleep 0.05; done
  timeout 60 srun --mpi=pmix -n 2 --gres=mps:50 "$probe" --enable on --dir "$work/root" \
    > "$work/gres.out" 2>&1
  caps=$(grep -c '^PROBE .*state=reused.* cap=50 ' "$work/gres.out")
  if [ "$caps" -eq 2 ] && ! grep -q "^FINAL .*daemons stopped" "$work/gres.out"; then
    pass "--gres=mps:50: both ranks reuse the site daemon with the site's 50% cap"
  else
    fail "--gres=mps:50: expected 2 ranks reusing with cap=50: $(grep -E '^(PROBE|REASON)' "$work/gres.out" | head -4)"
  fi
  [ -s "$work/site/pipe/nvidia-cuda-mps-control.pid" ] && pass "the site daemon is still running" ||
    fail "the site daemon was stopped by the job"
  echo quit | "$MPSFW_MPS_CONTROL" >/dev/null 2>&1
else
  echo "SKIP: $probe not built: the --gres=mps check needs it"
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
