#!/usr/bin/env bash
# The walltime stop on the GPU machine, with the launcher found there, heat
# and MD under MPS (docs/restart.md), in one command:
#   mpirun   SIGUSR1 to mpirun (what a job script's `kill` of the launcher
#            does); run.wall_limit = 40 s is the net: whether the ranks got the
#            signal (exit 138) or the limit ended the run (exit 75) is printed
#   rank     SIGUSR1 to one rank: exit 138, the seconds from the signal to the
#            end, the checkpoint
#   limit    no signal: heat with run.wall_limit = 25, MD with the job's end
#            (SLURM_JOB_END_TIME 25 s ahead, run.wall_limit = auto): exit 75,
#            the end against the limit
# Each stop's checkpoint then resumes on another rank count (4 ranks, 10 more
# steps, completed); after each run: no .partial, no MPS daemon or server left.
#   scripts/device_walltime_check.sh [RANKS=8]
# Logs in $OUT/walltime (and walltime.tgz).
set -uo pipefail
source "$(dirname "$0")/env.sh"
ranks=${1:-8}
device_logs walltime
record_device_machine "$out/machine.txt"
build="$MPSFW_ROOT/build/device-walltime"
export TMPDIR=/tmp/mpsfw-walltime-check
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_BUILD_TESTS=OFF > "$out/configure.log" 2>&1 &&
  cmake --build "$build" -j 16 --target solver > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
echo "build: ok; mpirun: $(mpirun --version 2>&1 | head -1); OMPI_MCA_plm=${OMPI_MCA_plm:-unset}"
solver="$build/apps/solver"
cd "$TMPDIR" || exit 1

heat=("$MPSFW_ROOT/inputs/heat_default.h5" --set heat.nx=256 --set heat.ny=256 --set heat.nz=256
  --set run.diag_every=0)
md=("$MPSFW_ROOT/inputs/md_lj.h5" --set md.cells_x=40 --set md.cells_y=40 --set md.cells_z=40
  --set run.diag_every=0)
common=(--backend cuda --mps on --set run.steps=100000000 --set run.wall_margin=3)

# The ranks of the job started by mpirun PID (the solver's processes under it).
ranks_of() { pgrep -P "$1" -f "$solver" || true; }
now() { date +%s.%N; }
# after_run NAME: what a run leaves.
after_run() {
  sleep 1
  echo "  $1: .partial files $(find . -name '*.partial' | wc -l)," \
    "MPS daemons $(pgrep -fc nvidia-cuda-mps-control || true)," \
    "servers $(pgrep -fc nvidia-cuda-mps-server || true)"
}
# resume NAME CHECKPOINT LOG: the stop's checkpoint on 4 ranks, 10 more steps.
resume() {
  local step
  step=$(sed -n 's/^mpsfw: stopped by .* at step \([0-9]*\);.*/\1/p' "$3")
  if [ -z "$step" ] || [ ! -s "$2" ]; then
    echo "  $1: no stop line or no checkpoint $2: nothing to resume"
    return
  fi
  SLURM_JOB_END_TIME='' mpirun -np 4 "$solver" "$2" --backend cuda --mps on \
    --set run.steps=$((step + 10)) > "$out/$1-resumed.log" 2>&1
  echo "  $1: resumed on 4 ranks from step $step: exit $?;" \
    "$(grep -E 'ended ' "$out/$1-resumed.log" | sed 's/^ *//')"
  after_run "$1-resumed"
}
# start NAME ARGS...: the solver in the background on $ranks ranks; sets job.
start() {
  local name=$1
  shift
  mpirun -np "$ranks" "$solver" "$@" > "$out/$name.log" 2>&1 &
  job=$!
  for _ in $(seq 1 600); do
    grep -q '^mpsfw: \(heat\|md\) ' "$out/$name.log" 2>/dev/null && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  sleep 5  # into the loop
}
# finish NAME SINCE: waits; prints the exit and how the run ended.
finish() {
  local rc=0
  wait "$job" || rc=$?
  echo "  $1: exit $rc, $(awk -v a="$2" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }') s after" \
    "the signal or start; $(grep -E '^mpsfw: stopped by|^  ended ' "$out/$1.log" | head -1)"
  after_run "$1"
}

for w in heat md; do
  if [ "$w" = heat ]; then input=("${heat[@]}"); else input=("${md[@]}"); fi
  echo "== $w, $ranks ranks under MPS"
  # 1. SIGUSR1 to mpirun: forwarded or not, the wall limit ends it.
  start "$w-mpirun" "${input[@]}" "${common[@]}" --set run.checkpoint_file="$w-mpirun.h5" \
    --set run.wall_limit=40
  t=$(now)
  kill -USR1 "$job"
  finish "$w-mpirun" "$t"
  resume "$w-mpirun" "$w-mpirun.h5" "$out/$w-mpirun.log"
  # 2. SIGUSR1 to one rank.
  start "$w-rank" "${input[@]}" "${common[@]}" --set run.checkpoint_file="$w-rank.h5"
  t=$(now)
  kill -USR1 "$(ranks_of "$job" | tail -1)"
  finish "$w-rank" "$t"
  resume "$w-rank" "$w-rank.h5" "$out/$w-rank.log"
  # 3. The time limit alone: heat's key, MD's job end.
  t=$(now)
  if [ "$w" = heat ]; then
    mpirun -np "$ranks" "$solver" "${input[@]}" "${common[@]}" --set run.checkpoint_file="$w-limit.h5" \
      --set run.wall_limit=25 > "$out/$w-limit.log" 2>&1 &
  else
    SLURM_JOB_END_TIME=$(($(date +%s) + 25)) mpirun -np "$ranks" "$solver" "${input[@]}" \
      "${common[@]}" --set run.checkpoint_file="$w-limit.h5" > "$out/$w-limit.log" 2>&1 &
  fi
  job=$!
  finish "$w-limit" "$t"
  grep -E '^mpsfw: wall limit' "$out/$w-limit.log" | sed 's/^/  /'
  resume "$w-limit" "$w-limit.h5" "$out/$w-limit.log"
done
