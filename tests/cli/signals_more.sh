#!/usr/bin/env bash
# More of docs/restart.md's stops and guards, process level, host
# backend; signals.sh has the first ones.
#   heat_int_rank         SIGINT to one rank of 2: every rank stops at one step,
#                         exit 130, the stop line names the checkpoint, which
#                         resumes the run
#   heat_term_mpirun      SIGTERM to mpirun itself: Open MPI forwards it, exits 1
#                         and kills ranks still running after its
#                         odls_base_sigkill_timeout (1 s): a checkpoint is whole
#                         or absent, no rank is left. With that timeout at 5 s
#                         the ranks always get to stop: checkpoint, report, resume
#   heat_second_signal    one rank held (SIGSTOP) so the first SIGTERM's stop
#                         cannot finish; a second SIGTERM 4 s later ends the
#                         signalled rank at once (default action): no stop line,
#                         no checkpoint, the job ends
#   heat_repeated_signal  the same with the second SIGTERM 1 s after the first:
#                         one request (Ctrl-C plus mpirun's forward), a clean stop
#   heat_checkpoint_minutes  run.checkpoint_minutes = 0.0005 (30 ms) with
#                         run.checkpoint_keep = 2, stopped by SIGUSR1 after 3 s: a
#                         checkpoint by time before the stop's, which resumes to
#                         the stop's field bit for bit (h5diff; skipped without)
#   md_not_finite         MD's non-finite guards, exit 1, one message naming the
#                         step: md.sigma = 1e27 (every atom inside the others'
#                         sigma) at step 0; a thermostat to 1e305 at step 10 on
#                         1, 2, 3 ranks, found by run.check_every = 3 at 12 and
#                         by the middle step's guard (20, where the report's
#                         steady half starts) without either; at step 30 (a
#                         rescale then), by the end (step 40)
#   heat_stalled_rank     one rank of 3 held (SIGSTOP) with halos through
#   md_stalled_rank       MPI and run.peer_wait_seconds = 1: the others, blocked
#                         in MPI with it, end the job within twice that (the stall
#                         watch) plus 4 s to abort, counted from the hold, each
#                         naming its last step, the held rank silent once
#                         resumed by the kill; no rank is left
#   signals_more.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#                   --input-dir DIR --workdir DIR CASE
#   signals_more.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(heat_int_rank heat_term_mpirun heat_second_signal heat_repeated_signal
  heat_checkpoint_minutes md_not_finite heat_stalled_rank md_stalled_rank)
cli_case_ranks() { case $1 in md_not_finite | *_stalled_rank) echo 3 ;; *) echo 2 ;; esac; }
cli_case_args 34 "$@"
HEAT=$INPUTS/heat_default.h5
rc=0

finish() {
  cli_wait_job
  rc=$CLI_RC
}
expect_rc() { [ "$rc" -eq "$1" ] || problem "exit code $rc, expected $1"; }
step_of() { sed -n 's/.* at step \([0-9]*\);.*/\1/p' <<<"$1"; }
# A rank held with SIGSTOP is let go whatever happens, or it outlives the test.
held=""
trap '[ -z "$held" ] || kill -CONT "$held" 2>/dev/null' EXIT
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# No process of this job may outlive it.
expect_no_ranks_left() {
  local left
  left=$(cli_job_ranks "$CLI_JOB")
  [ -z "$left" ] || problem "ranks still running after the job ended: $left"
}
# A checkpoint under its final name must be whole: an HDF5 file with the state.
whole_checkpoint() {
  h5dump -H -d /heat/u0 "$1" >/dev/null 2>&1 || problem "$1 is not a whole checkpoint"
}

# stop_and_resume SIGNAL CODE: the clean stop every case ends with when the
# ranks get to their step boundary.
stop_and_resume() {
  local line step
  line=$(cli_stopped_line "$1") || { problem "no 'mpsfw: stopped by $1 at step N' line"; return; }
  step=$(step_of "$line")
  grep -q "checkpoint ck.h5 resumes it" <<<"$line" || problem "the line names no checkpoint: $line"
  [ -s ck.h5 ] || problem "no checkpoint ck.h5"
  cli_no_partials
  cli_expect_ended R.json stopped "$1" "$step" ck.h5
  cli_resume ck.h5 2 $((step + 5))
  cli_expect_ended resumed.json completed - $((step + 5)) -
}

heat=(--backend host --set run.steps=100000000 --set run.diag_every=0
  --set run.checkpoint_file=ck.h5 --report R.json)

# second_signal_after SECONDS: rank 0 held, SIGTERM to the newest rank, the
# same again SECONDS later; sets victim. The stop cannot finish meanwhile: it
# needs every rank at the agreement.
second_signal_after() {
  cli_start_job 2 "$HEAT" "${heat[@]}" || return 1
  local -a ranks
  mapfile -t ranks < <(cli_job_ranks "$CLI_JOB")
  [ ${#ranks[@]} -eq 2 ] || { problem "expected 2 ranks of job $CLI_JOB, found ${ranks[*]}"; return 1; }
  held=${ranks[0]} victim=${ranks[1]}
  kill -STOP "$held"
  cli_signal_rank TERM "$victim"
  sleep "$1"
  alive "$victim" || { problem "rank $victim ended after the first SIGTERM, rank $held held"; return 1; }
  cli_signal_rank TERM "$victim"
}

# stalled_rank INPUT ARGS...: 3 ranks, one held once the run is going; the
# job must end by the stall watch: within twice run.peer_wait_seconds of the
# hold, plus an allowance for the watch's look period and the launcher's abort
# on a loaded machine, small enough that a watch several times too slow fails.
stalled_rank() {
  local input=$1 peer_wait=1 allowance=4 start ranks took bound
  shift
  bound=$((2 * peer_wait + allowance))
  cli_start_job 3 "$input" --backend host --set run.halo=mpi \
    --set run.peer_wait_seconds="$peer_wait" --set run.steps=100000000 "$@" || return
  mapfile -t ranks < <(cli_job_ranks "$CLI_JOB")
  [ ${#ranks[@]} -eq 3 ] || { problem "expected 3 ranks of job $CLI_JOB, found ${ranks[*]}"; return; }
  held=${ranks[1]}
  local held_rank
  held_rank=$(tr '\0' '\n' <"/proc/$held/environ" | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
  kill -STOP "$held"
  start=$EPOCHREALTIME
  finish
  took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  echo "the job ended $took s after the hold (at most $bound s)"
  [ "$rc" -ne 0 ] || problem "exit code 0 although rank 1 never came back"
  awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }' ||
    problem "the job took $took s to end after rank $held_rank was held, more than $bound s" \
      "(twice run.peer_wait_seconds = $((2 * peer_wait)) s, plus $allowance s to abort)"
  grep -q "no step after step [0-9]* finished within $((2 * peer_wait)) s (twice run.peer_wait_seconds)" err ||
    problem "no stall message: $(grep -m1 'error' err)"
  # Resumed by the launcher's kill, the held rank waited for nobody: it must
  # not blame the others.
  [ -z "$held_rank" ] || ! grep -q "error on rank $held_rank: no step after" err ||
    problem "the held rank $held_rank printed a stall line itself"
  expect_no_ranks_left
}

case "$case_name" in
  heat_stalled_rank) stalled_rank "$HEAT" --set run.diag_every=0 ;;
  md_stalled_rank) stalled_rank "$INPUTS/md_lj.h5" --set run.diag_every=0 ;;
  heat_int_rank)
    cli_start_job 2 "$HEAT" "${heat[@]}" || cli_case_end "$case_name"
    cli_signal_rank INT
    finish
    expect_rc 130
    stop_and_resume SIGINT
    ;;
  heat_term_mpirun)
    # A checkpoint found after the kill must be read to be called whole.
    command -v h5dump >/dev/null || { echo "SKIP $case_name: no h5dump (hdf5-tools)"; exit 77; }
    # As shipped: 1 s between Open MPI's SIGTERM and its SIGKILL.
    cli_start_job 2 "$HEAT" "${heat[@]}" || cli_case_end "$case_name"
    kill -TERM "$CLI_JOB"
    finish
    expect_rc 1
    expect_no_ranks_left
    # mpirun may also exit before it forwards the ranks' last lines.
    if [ -e ck.h5 ]; then
      whole_checkpoint ck.h5
    elif cli_stopped_line SIGTERM >/dev/null; then
      problem "the stop line names ck.h5, which is not there"
    else
      echo "note: Open MPI killed the ranks before their step boundary (allowed)"
    fi
    # Time enough to reach the step boundary: the documented stop, always.
    rm -f ck.h5 ck.h5.partial R.json
    OMPI_MCA_odls_base_sigkill_timeout=5 cli_start_job 2 "$HEAT" "${heat[@]}" ||
      cli_case_end "$case_name"
    kill -TERM "$CLI_JOB"
    finish
    expect_rc 1
    stop_and_resume SIGTERM
    ;;
  heat_second_signal)
    if second_signal_after 4; then
      # The default action ends the process at once; mpirun then ends the job.
      for _ in $(seq 1 20); do alive "$victim" && sleep 0.1; done
      alive "$victim" && problem "rank $victim still running 2 s after the second SIGTERM"
      kill -CONT "$held"
      finish
      [ "$rc" -ne 0 ] || problem "exit code 0 after a rank was killed"
      grep -q "exited on signal 15" err || problem "mpirun does not report a rank ended by SIGTERM"
      ! cli_stopped_line SIGTERM >/dev/null || problem "a clean stop, expected the kill"
      [ ! -e ck.h5 ] || problem "a checkpoint was written by a run that was killed"
      expect_no_ranks_left
    fi
    ;;
  heat_repeated_signal)
    if second_signal_after 1; then
      sleep 1
      alive "$victim" || problem "rank $victim was killed by a repeat 1 s after the first SIGTERM"
      kill -CONT "$held"
      finish
      expect_rc 143
      stop_and_resume SIGTERM
    fi
    ;;
  heat_checkpoint_minutes)
    command -v h5diff >/dev/null || { echo "SKIP $case_name: no h5diff (hdf5-tools)"; exit 77; }
    cli_start_job 2 "$HEAT" --backend host --set run.steps=100000000 --set run.diag_every=0 \
      --set run.checkpoint_file=ck.h5 --set run.checkpoint_minutes=0.0005 \
      --set run.checkpoint_keep=2 || cli_case_end "$case_name"
    # The ranks read the clock about every 0.5 s of loop time: several reads,
    # on any machine, before the stop (its own checkpoint, as the run's last).
    sleep 3
    kill -USR1 "$CLI_JOB"
    finish
    expect_rc 138
    line=$(cli_stopped_line SIGUSR1) || cli_case_end "$case_name" "no stop line"
    step=$(step_of "$line")
    last=ck.$(printf '%08d' "$step").h5
    [ -s "$last" ] || problem "no checkpoint $last of the stop"
    by_time=$(find . -maxdepth 1 -name 'ck.[0-9]*.h5' ! -name "$last" -printf '%f\n' | sort | tail -1)
    if [ -z "$by_time" ]; then
      problem "no checkpoint by time in 3 s before the stop at step $step"
    else
      cli_no_partials
      # The checkpoint keeps run.checkpoint_keep and _minutes: one file here.
      cli_resume "$by_time" 2 "$step" --set run.checkpoint_file=resumed.h5 \
        --set run.checkpoint_keep=1 --set run.checkpoint_minutes=0
      h5diff -q "$last" resumed.h5 /heat/u0 /heat/u0 >diff.out 2>&1
      case $? in
        0) ;;
        1) problem "resumed from $by_time, the field at step $step differs from the straight run" ;;
        *) problem "h5diff could not compare $last and resumed.h5: $(tail -1 diff.out)" ;;
      esac
    fi
    ;;
  md_not_finite)
    MD=$INPUTS/md_lj.h5
    # md_guard NP STEP QUANTITY ARGS...: the run ends at STEP naming QUANTITY.
    md_guard() {
      local np=$1 step=$2 quantity=$3
      shift 3
      cli_run "$np" out err "$MD" --backend host --set run.steps=40 --output T.h5 "$@"
      rc=$CLI_RC
      local want="^mpsfw: error: MD: the $quantity is no longer finite at step $step: the run blew up"
      [ "$rc" -eq 1 ] || problem "$np ranks, $*: exit code $rc, expected 1"
      grep -q "$want" err || problem "$np ranks, $*: not '$want': $(grep 'mpsfw: error' err | head -1)"
      [ "$(grep -c '^mpsfw: error: ' err)" -eq 1 ] || problem "$np ranks, $*: not one error line"
      ! grep -q "MPI_ABORT\|error on rank" err || problem "$np ranks, $*: a rank aborted the job"
      [ ! -e T.h5 ] || problem "$np ranks, $*: a trajectory T.h5 of a run that blew up"
      cli_no_partials
    }
    for np in 1 2; do md_guard "$np" 0 "potential energy" --set md.sigma=1e27; done
    # Rescaled to 1e305 at step 10: the kinetic energy overflows, nothing moves
    # (md.dt = 1e-200), so no other guard fires first.
    hot=(--set md.thermostat=rescale --set md.target_temperature=1e305 --set md.thermostat_every=10
      --set md.thermostat_until=10 --set md.dt=1e-200)
    for np in 1 2 3; do md_guard "$np" 10 "kinetic energy" "${hot[@]}" --set run.diag_every=5; done
    md_guard 2 12 "kinetic energy" "${hot[@]}" --set run.diag_every=0 --set run.check_every=3
    md_guard 2 20 "kinetic energy" "${hot[@]}" --set run.diag_every=0 --set run.check_every=0
    # Rescaled at step 30, after the middle step: the last step's guard.
    late=(--set md.thermostat=rescale --set md.target_temperature=1e305 --set md.thermostat_every=30
      --set md.thermostat_until=30 --set md.dt=1e-200)
    md_guard 2 40 "kinetic energy" "${late[@]}" --set run.diag_every=0 --set run.check_every=0
    ;;
esac

cli_case_end "$case_name" "exit code: $rc"
