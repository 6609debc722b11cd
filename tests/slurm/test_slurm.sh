#!/usr/bin/env bash
# The job scripts on a real (one-node, localhost) Slurm: a single run, the
# sweep, a site cap given through --gres=mps:50 that the MPS session keeps and
# reports (with a test double of the MPS control daemon: no GPU here), and the
# walltime path of run.sbatch (stop on SIGUSR1, checkpoint, requeue, resume from
# the newest checkpoint, the requeue bound).
#   tests/slurm/test_slurm.sh REPO BUILD_DIR WORKDIR PYTHON
# shellcheck source=slurm_test_lib.sh
source "$(dirname "$0")/slurm_test_lib.sh" "$@"
# shellcheck source=../mps/fake_gpu_lib.sh
source "$repo/tests/mps/fake_gpu_lib.sh"

cluster_up
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

# 2. The sweep inside one allocation: 2 ranks per GPU points x 2 modes (mps skipped
# without a GPU), one repeat.
if MPSFW_OUT=$work/sweep MPSFW_RANKS_PER_GPU=1,2 MPSFW_MODES=timeslice,mps MPSFW_SCALING=strong \
   MPSFW_REPEATS=1 MPSFW_GPUS=0 MPSFW_PYTHON=/usr/bin/python3 \
   timeout 240 sbatch --wait --chdir="$repo" --ntasks=2 --output="$work/sweep.out" \
   "$repo/slurm/sweep.sbatch" "$repo/inputs/heat_uneven.h5" >/dev/null; then
  rows=$(($(wc -l < "$work/sweep/sweep.csv") - 1))
  # No GPU here: the mps mode is skipped, timeslice runs at 1 and 2 ranks.
  if [ "$rows" -eq 2 ]; then
    pass "sweep.sbatch: sweep.csv has the 2 expected rows (mps skipped without a GPU)"
  else
    fail "sweep.sbatch: sweep.csv has $rows rows, expected 2"
  fi
else
  fail "sweep.sbatch: job failed: $(tail -5 "$work/sweep.out" 2>/dev/null)"
fi

# 3. A site cap: --gres=mps:50 sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 and a
#    site daemon answers; the session reuses it and keeps (and reports) 50%.
probe=$build/tests/mps/mps_session_probe
if [ -x "$probe" ]; then
  mkdir -p "$work/site/pipe" "$work/site/log"
  fake_mps_env "$work" "$python" || exit 1
  fake_gpus "$work" 1 || exit 1
  # Given to these commands only: the jobs below must not see this site's MPS
  # (sbatch exports the environment).
  site=("${FAKE_MPS_ENV[@]}" "CUDA_MPS_PIPE_DIRECTORY=$work/site/pipe" "CUDA_MPS_LOG_DIRECTORY=$work/site/log")
  env "${site[@]}" nvidia-cuda-mps-control -d </dev/null >/dev/null 2>&1
  for _ in $(seq 1 100); do [ -s "$work/site/pipe/nvidia-cuda-mps-control.pid" ] && break; sleep 0.05; done
  env "${site[@]}" timeout 60 srun --mpi=pmix -n 2 --gres=mps:50 "$probe" --enable on --dir "$work/root" \
    > "$work/gres.out" 2>&1
  caps=$(grep -c '^PROBE .*state=reused.* cap=50 ' "$work/gres.out")
  if [ "$caps" -eq 2 ] && ! grep -q "^FINAL .*daemons stopped" "$work/gres.out"; then
    pass "--gres=mps:50: both ranks reuse the site daemon with the site's 50% cap"
  else
    fail "--gres=mps:50: expected 2 ranks reusing with cap=50: $(grep -E '^(PROBE|REASON)' "$work/gres.out" | head -4)"
  fi
  if [ -s "$work/site/pipe/nvidia-cuda-mps-control.pid" ]; then
    pass "the site daemon is still running"
  else
    fail "the site daemon was stopped by the job"
  fi
  echo quit | env "${site[@]}" nvidia-cuda-mps-control >/dev/null 2>&1
else
  echo "SKIP: $probe not built: the --gres=mps check needs it"
fi

# Walltime: run.sbatch's --signal=B:USR1 / --requeue / resume from the checkpoint.
# job_field JOB KEY: KEY=value from `scontrol show job`.
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
# wait_requeued JOB SECONDS: until the job is back in the queue (Restarts=1).
wait_requeued() {
  for _ in $(seq 1 $(($2 * 5))); do
    [ "$(job_field "$1" Restarts)" = 1 ] && [ "$(job_field "$1" JobState)" = PENDING ] && return 0
    sleep 0.2
  done
  return 1
}
# wait_job JOB SECONDS STATE...: until the job is in one of STATEs; false at the limit.
wait_job() {
  local job=$1 limit=$2 state
  shift 2
  for _ in $(seq 1 $((limit * 5))); do
    state=$(job_field "$job" JobState)
    for s in "$@"; do [ "$state" = "$s" ] && return 0; done
    sleep 0.2
  done
  return 1
}
# stop_and_resume JOB: once its ranks started (the start line in job.out here),
# SIGUSR1 to its batch shell (what --signal=B:USR1 does at the time limit, here
# at a known moment: scancel --batch), then, once requeued, let it start
# (Slurm holds a requeued job about 2 min) and wait until it ended. Not in the
# same second: slurmd refuses a job whose credential is no newer, to the
# second, than the kill that ended its last part ("Job N already killed, do not
# launch batch job", the job FAILED: seen here). StartTime=now also starts it
# at once, a time ahead only at Slurm's next scheduling pass (~30 s).
stop_and_resume() {
  for _ in $(seq 1 3000); do grep -q '^mpsfw: heat ' job.out 2>/dev/null && break; sleep 0.02; done
  scancel --batch --signal=USR1 "$1"
  wait_requeued "$1" 60 || return 1
  sleep 2
  scontrol update JobId="$1" StartTime=now
  wait_job "$1" 300 COMPLETED FAILED CANCELLED TIMEOUT
}
# u0 FILE: the hash of a heat checkpoint's field.
u0() { "$build/apps/mkinput" --describe "$1" 2>/dev/null | grep ' /heat/u0 '; }
# 32^3 cells: 40000 steps take a few seconds on an idle machine, and ten times
# that on a loaded one stays inside the waits below.
heat=("$repo/inputs/heat_default.h5" --set heat.nx=32 --set heat.ny=32 --set heat.nz=32)

# 4. Stopped, requeued, resumed, finished: SIGUSR1 to the batch shell, then the
#    requeued job (same id) resumes from the checkpoint and ends at run.steps;
#    its field equals an uninterrupted run's.
steps=40000
mkdir -p "$work/requeue" && cd "$work/requeue" || exit 1
timeout 300 srun --mpi=pmix -n 2 "$build/apps/solver" "${heat[@]}" --set run.steps=$steps \
  --set run.checkpoint_file=straight.h5 --output straight-field.h5 > straight.out 2>&1 ||
  fail "the uninterrupted run failed"
# MPSFW_SIGNAL_GRACE=0: the signal comes after the ranks printed their start line.
job=$(MPSFW_CHECKPOINT_MINUTES=0 MPSFW_SIGNAL_GRACE=0 sbatch --parsable --chdir="$work/requeue" --ntasks-per-node=2 \
  --time=10 --output="$work/requeue/job.out" "$repo/slurm/run.sbatch" "${heat[@]}" \
  --set run.steps=$steps)
stop_and_resume "$job"
state=$(job_field "$job" JobState)
stop=$(sed -n "s/^mpsfw: stopped by SIGUSR1 at step \([0-9]*\); checkpoint ck-$job.h5 resumes it$/\1/p" job.out)
if [ "$state" = COMPLETED ] && [ -n "$stop" ] && [ "$stop" -lt "$steps" ] &&
   grep -q "^mpsfw-run: part 2 of job $job resumes from ck-$job.h5" job.out &&
   grep -q "ended          completed at step $steps" job.out &&
   grep -q "^mpsfw-run: job $job completed; final state: ck-$job.h5$" job.out; then
  pass "requeue: stopped by SIGUSR1 at step $stop, requeued, resumed and completed step $steps"
else
  fail "requeue: job $job $state (stop step '${stop}'): $(grep -E '^(mpsfw|srun|slurmstepd)' job.out | tail -6)"
fi
if [ -n "$(u0 straight.h5)" ] && [ "$(u0 straight.h5)" = "$(u0 "ck-$job.h5")" ]; then
  pass "requeue: the resumed job's field equals the uninterrupted run's bit for bit"
else
  fail "requeue: the final field differs from the uninterrupted run's"
fi
if "$python" -c 'import json, sys
a, b = (json.load(open(f))["ended"] for f in sys.argv[1:3])
assert (a["how"], a["signal"], b["how"], b["step"]) == ("stopped", "SIGUSR1", "completed", int(sys.argv[3]))' \
  "run-$job.json" "run-$job.part1.json" "$steps" 2>/dev/null; then
  pass "requeue: the two parts' reports say stopped (SIGUSR1), then completed"
else
  fail "requeue: run-$job.json / run-$job.part1.json do not say stopped, then completed"
fi
[ -z "$(find . -name '*.partial')" ] || fail "requeue: .partial files left: $(find . -name '*.partial')"

# 5. The same with run.checkpoint_keep=3 and snapshots (MPSFW_OUTPUT): the
#    requeued part resumes from the newest numbered checkpoint
#    ck-<job>.<stop step>.h5; the job ends naming its final state
#    ck-<job>.<steps>.h5 and its snapshots field.h5 field.from<stop step>.h5,
#    whose last snapshot equals the uninterrupted run's (h5diff).
mkdir -p "$work/keep" && cd "$work/keep" || exit 1
job=$(MPSFW_CHECKPOINT_MINUTES=0 MPSFW_SIGNAL_GRACE=0 MPSFW_OUTPUT=field.h5 sbatch --parsable \
  --chdir="$work/keep" --ntasks-per-node=2 --time=10 --output="$work/keep/job.out" \
  "$repo/slurm/run.sbatch" "${heat[@]}" --set run.steps=$steps --set run.checkpoint_keep=3)
stop_and_resume "$job"
state=$(job_field "$job" JobState)
stop=$(sed -n "s/^mpsfw: stopped by SIGUSR1 at step \([0-9]*\); checkpoint .*/\1/p" job.out)
at=$(printf '%08d' "${stop:-0}") last=$(printf '%08d' "$steps")
if [ "$state" = COMPLETED ] && [ -n "$stop" ] &&
   grep -q "^mpsfw: stopped by SIGUSR1 at step $stop; checkpoint ck-$job.$at.h5 resumes it$" job.out &&
   grep -q "^mpsfw-run: stopped by SIGUSR1; requeueing job $job (it resumes from ck-$job.$at.h5)$" job.out &&
   grep -q "^mpsfw-run: part 2 of job $job resumes from ck-$job.$at.h5$" job.out &&
   grep -q "^mpsfw-run: job $job completed; final state: ck-$job.$last.h5$" job.out &&
   grep -q "^mpsfw-run: snapshots: field.h5 field.from$at.h5$" job.out; then
  pass "keep=3: resumed from ck-$job.$at.h5, final state ck-$job.$last.h5, snapshots named"
else
  fail "keep=3: job $job $state: $(grep -E '^(mpsfw|srun|slurmstepd)' job.out | tail -6)"
fi
if [ -n "$(u0 ../requeue/straight.h5)" ] && [ "$(u0 ../requeue/straight.h5)" = "$(u0 "ck-$job.$last.h5")" ] &&
   h5diff "field.from$at.h5" ../requeue/straight-field.h5 "/u/$last" "/u/$last" >/dev/null 2>&1; then
  pass "keep=3: the final checkpoint and last snapshot equal the uninterrupted run's bit for bit"
else
  fail "keep=3: the final checkpoint or last snapshot differs from the uninterrupted run's"
fi
[ -z "$(find . -name '*.partial')" ] || fail "keep=3: .partial files left: $(find . -name '*.partial')"

# 6. The real time limit: --time=1 with --signal=B:USR1@45 (due 15 s after the
#    start, but Slurm may send it up to a minute early, even at once: the script
#    passes it on after the ranks' 10 s to start): the run is stopped before the limit,
#    writes its checkpoint, and the job is requeued. (Cancelled then: 4 and 5 show
#    the rest.)
mkdir -p "$work/limit" && cd "$work/limit" || exit 1
job=$(MPSFW_CHECKPOINT_MINUTES=0 sbatch --parsable --chdir="$work/limit" --ntasks-per-node=2 \
  --time=1 --signal=B:USR1@45 --output="$work/limit/job.out" "$repo/slurm/run.sbatch" \
  "${heat[@]}" --set run.steps=100000000)
if wait_requeued "$job" 90 &&
   grep -q "^mpsfw: stopped by SIGUSR1 at step [0-9]*; checkpoint ck-$job.h5 resumes it" job.out &&
   grep -q "^mpsfw-run: stopped by SIGUSR1; requeueing job $job (it resumes from ck-$job.h5)" job.out &&
   [ -s "ck-$job.h5" ]; then
  pass "time limit: SIGUSR1 before the limit, checkpoint ck-$job.h5, job requeued"
else
  fail "time limit: job $job $(job_field "$job" JobState): $(grep -E '^(mpsfw|srun|slurmstepd)' job.out | tail -5)"
fi
scancel "$job" 2>/dev/null

# 6b. The job's end without any signal reaching the ranks (as under a launcher
#    that forwards none): MPSFW_SIGNAL_GRACE outlasts the job, so the script
#    never passes SIGUSR1 on; the run stops itself at the job's end
#    (SLURM_JOB_END_TIME, which run.sbatch exports from squeue on a Slurm that
#    does not set it) less run.wall_margin = 40 s, writes its checkpoint, exits
#    75, and the job is requeued.
mkdir -p "$work/wall" && cd "$work/wall" || exit 1
job=$(MPSFW_CHECKPOINT_MINUTES=0 MPSFW_SIGNAL_GRACE=100000 sbatch --parsable --chdir="$work/wall" \
  --ntasks-per-node=2 --time=1 --output="$work/wall/job.out" "$repo/slurm/run.sbatch" \
  "${heat[@]}" --set run.steps=100000000 --set run.wall_margin=40)
if wait_requeued "$job" 90 &&
   grep -q "^mpsfw: wall limit .* left (SLURM_JOB_END_TIME = [0-9]*)" job.out &&
   grep -q "^mpsfw: stopped by the wall limit (SLURM_JOB_END_TIME = [0-9]*) at step [0-9]*; checkpoint ck-$job.h5 resumes it" job.out &&
   grep -q "^mpsfw-run: stopped by its wall limit; requeueing job $job (it resumes from ck-$job.h5)" job.out &&
   ! grep -q "stopped by SIGUSR1" job.out && [ -s "ck-$job.h5" ]; then
  pass "wall limit: no signal passed on, the run stopped at the job's end with ck-$job.h5, job requeued"
else
  fail "wall limit: job $job $(job_field "$job" JobState): $(grep -E '^(mpsfw|srun|slurmstepd)' job.out | tail -5)"
fi
scancel "$job" 2>/dev/null

# 7. No loop: a part stopped again after MPSFW_MAX_REQUEUES (0 here) parts, and
#    a run that fails (exit 1: a bad input key), end the job FAILED, not requeued.
mkdir -p "$work/bound" && cd "$work/bound" || exit 1
job=$(MPSFW_CHECKPOINT_MINUTES=0 MPSFW_SIGNAL_GRACE=0 MPSFW_MAX_REQUEUES=0 sbatch --parsable \
  --chdir="$work/bound" --ntasks-per-node=2 --time=10 --output="$work/bound/job.out" \
  "$repo/slurm/run.sbatch" "${heat[@]}" --set run.steps=100000000)
for _ in $(seq 1 3000); do grep -q '^mpsfw: heat ' job.out 2>/dev/null && break; sleep 0.02; done
scancel --batch --signal=USR1 "$job"
if wait_job "$job" 60 FAILED COMPLETED CANCELLED && [ "$(job_field "$job" JobState)" = FAILED ] &&
   [ "$(job_field "$job" Restarts)" = 0 ] &&
   grep -q "^mpsfw-run: stopped by SIGUSR1 after 0 requeues; not requeued (MPSFW_MAX_REQUEUES=0)" job.out; then
  pass "bound: stopped with MPSFW_MAX_REQUEUES=0 parts left: FAILED, not requeued"
else
  fail "bound: job $job $(job_field "$job" JobState), Restarts $(job_field "$job" Restarts)"
  scancel "$job" 2>/dev/null
fi
job=$(sbatch --parsable --chdir="$work/bound" --ntasks-per-node=2 --time=10 --output="$work/bound/bad.out" \
  "$repo/slurm/run.sbatch" "${heat[@]}" --set heat.no_such_key=1)
if wait_job "$job" 60 FAILED COMPLETED CANCELLED && [ "$(job_field "$job" JobState)" = FAILED ] &&
   [ "$(job_field "$job" Restarts)" = 0 ]; then
  pass "bound: a failing run (ExitCode $(job_field "$job" ExitCode)) is FAILED, not requeued"
else
  fail "bound: failing job $job $(job_field "$job" JobState), Restarts $(job_field "$job" Restarts)"
  scancel "$job" 2>/dev/null
fi

# srun's MPI plugin comes from MPSFW_SRUN_MPI: one srun does not know fails
# the job, and its log names it.
job=$(MPSFW_SRUN_MPI=no_such_plugin sbatch --parsable --chdir="$work/bound" --ntasks-per-node=2 \
  --time=10 --output="$work/bound/plugin.out" "$repo/slurm/run.sbatch" "${heat[@]}")
if wait_job "$job" 60 FAILED COMPLETED CANCELLED && [ "$(job_field "$job" JobState)" = FAILED ] &&
   grep -q "no_such_plugin" "$work/bound/plugin.out"; then
  pass "MPSFW_SRUN_MPI reaches srun (--mpi=no_such_plugin: FAILED, named in the log)"
else
  fail "MPSFW_SRUN_MPI: job $job $(job_field "$job" JobState): $(tail -3 "$work/bound/plugin.out" 2>/dev/null)"
  scancel "$job" 2>/dev/null
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
