# Shared by the install tests (sourced, not run): their options
# (--build DIR --mpiexec PATH [--work DIR]), a fresh WORK folder, fail(), and
# install_into PREFIX (cmake --install of BUILD).
set -euo pipefail
BUILD="" MPIEXEC="" WORK=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "$(basename "$0"): unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$BUILD" ] && [ -n "$MPIEXEC" ] || { echo "$(basename "$0"): --build and --mpiexec are required" >&2; exit 2; }
WORK=${WORK:-$(mktemp -d)}
rm -rf "$WORK"; mkdir -p "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
install_into() { cmake --install "$BUILD" --prefix "$1" > "$WORK/install.log"; }

# The time loop's stops, with no code of the example's own for them: SIGUSR1
# to mpirun (Slurm's --signal=B:USR1) stops 2 ranks of SOLVER on INPUT at a
# step with a complete checkpoint WORK/ck.h5 (exit 138, the report saying
# "stopped"). Sets STOP_STEP to that step.
#   stop_at_a_checkpoint SOLVER INPUT NAME
stop_at_a_checkpoint() {
  local solver=$1 input=$2 name=$3 job rc
  "$MPIEXEC" -n 2 "$solver" "$input" --backend host --set run.steps=100000000 \
    --set run.checkpoint_file="$WORK/ck.h5" --report "$WORK/stopped.json" > "$WORK/stopped.log" 2>&1 &
  job=$!
  # Once the run has begun (its banner; up to 30 s on a loaded machine), some steps later.
  for _ in $(seq 300); do grep -q "^mpsfw: $name" "$WORK/stopped.log" && break; sleep 0.1; done
  sleep 2
  kill -USR1 "$job"
  rc=0; wait "$job" || rc=$?
  [ "$rc" -eq 138 ] || { cat "$WORK/stopped.log"; fail "$name stopped by SIGUSR1: exit $rc, expected 138"; }
  STOP_STEP=$(sed -n 's/^mpsfw: stopped by SIGUSR1 at step \([0-9]*\); checkpoint .* resumes it$/\1/p' "$WORK/stopped.log")
  [ -n "$STOP_STEP" ] || { cat "$WORK/stopped.log"; fail "no 'stopped by SIGUSR1 at step N; checkpoint ... resumes it' line"; }
  grep -q '"how": "stopped"' "$WORK/stopped.json" || fail "stopped.json does not say the run stopped"
  [ -s "$WORK/ck.h5" ] && [ ! -e "$WORK/ck.h5.partial" ] || fail "no complete checkpoint ck.h5"
}

# A grid solver stopped (stop_at_a_checkpoint) resumes on 3 ranks to step
# STOP_STEP + 7; each of FIELDS there must equal that of one run of as many
# steps on 1 rank, bit for bit.
#   check_stop_resume SOLVER INPUT NAME FIELD...
check_stop_resume() {
  local solver=$1 input=$2 name=$3 step last resumed field dataset
  shift 3
  stop_at_a_checkpoint "$solver" "$input" "$name"
  step=$STOP_STEP
  last=$((step + 7))
  "$MPIEXEC" -n 3 "$solver" "$WORK/ck.h5" --backend host --set run.steps=$last --set run.output_every=0 \
    --output "$WORK/resumed.h5" > "$WORK/resumed.log" 2>&1 || { cat "$WORK/resumed.log"; fail "resuming ck.h5 on 3 ranks"; }
  grep -q "steps $step..$last on 3 ranks" "$WORK/resumed.log" || { cat "$WORK/resumed.log"; fail "the resumed banner names no steps $step..$last"; }
  resumed=$(printf '%s/resumed.from%08d.h5' "$WORK" "$step")
  "$MPIEXEC" -n 1 "$solver" "$input" --backend host --set run.steps=$last --set run.output_every=0 \
    --output "$WORK/straight.h5" > "$WORK/straight.log" 2>&1 || { cat "$WORK/straight.log"; fail "the straight run to step $last"; }
  for field in "$@"; do
    dataset=$(printf '/%s/%08d' "$field" "$last")
    h5diff "$WORK/straight.h5" "$resumed" "$dataset" "$dataset" > "$WORK/h5diff-resume.log" 2>&1 || {
      head -20 "$WORK/h5diff-resume.log"; fail "$field at step $last: resumed (2 then 3 ranks) differs from one run on 1 rank"; }
  done
  echo "$name example: stopped by SIGUSR1 at step $step, resumed on 3 ranks to $last == 1 rank bit for bit"
}
