#!/usr/bin/env bash
# Walltime and stop signals (docs/restart.md), process level, host backend:
#   heat_term_rank   SIGTERM to one rank of 2: exit 143, one "stopped by SIGTERM at
#                    step N; checkpoint C resumes it" line, run.json marked stopped
#                    (signal, step, checkpoint), C is a valid input that resumes
#                    the run (N+5 steps), snapshots committed, no .partial
#   heat_usr1_mpirun SIGUSR1 to mpirun (Slurm's --signal=B:USR1): forwarded here,
#                    exit 138, the checkpoint resumes the run on 3 ranks
#   md_term_rank     the MD solver likewise, on 3 ranks, resumed on 2
#   heat_wall_limit  run.wall_limit = 4 s, no signal: every rank stops at one
#                    step in time for its checkpoint, exit 75, the stop line and
#                    run.json name the limit, the checkpoint resumes on 3 ranks
#   md_wall_limit    MD likewise from the job's end (SLURM_JOB_END_TIME, the
#                    default run.wall_limit = auto), resumed on 2 ranks
#   no_checkpoint    without run.checkpoint_file: exit 143 and "no checkpoint"
#   heat_diverges    heat.amplitude = 1e308 runs to inf: exit 1, a message naming
#                    the step and the rank, no report of success
#   md_blows_up      md.dt = 0.03: atoms fly farther than a subdomain or the box
#                    in one step; on 1, 2, 3 and 4 ranks one agreed message naming
#                    the same step, exit 1, no MPI_Abort
#   check_every      one cell at 1e308 overflows in the first update: with
#                    run.diag_every = 0 the middle step's guard (100) finds it; with
#                    run.check_every = 7, step 7 does
#   memory_too_large a 10000^3 grid (16 TB): refused before allocating, with the
#                    need and what is free, exit 1, within seconds; MD likewise
#                    for 4000^3 FCC cells (2.6e11 atoms)
#   signals.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#              --input-dir DIR --workdir DIR CASE
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=()
cli_case_args 28 "$@"

# The job's start, end and signals (to its own ranks only) are cli_lib.sh's,
# shared with signals_more.sh.
finish() {
  cli_wait_job
  rc=$CLI_RC
}
expect_rc() { [ "$rc" -eq "$1" ] || problem "exit code $rc, expected $1"; }
step_of() { sed -n 's/.* at step \([0-9]*\);.*/\1/p' <<<"$1"; }

# resumes_to CHECKPOINT NP STEP: the checkpoint of a stop at STEP, run on NP
# ranks (another count), goes on to STEP + 5 and completes.
resumes_to() {
  [ -n "$3" ] || { problem "no stop step to resume from"; return; }
  cli_resume "$1" "$2" $(($3 + 5))
  grep -q "ended          completed at step $(($3 + 5))" resumed.out ||
    problem "resumed from $1 on $2 ranks, the run did not complete step $(($3 + 5))"
  cli_expect_ended resumed.json completed - $(($3 + 5)) -
}

# wall_limit NP INPUT SOURCE RESUME_NP ARGS...: a run that only its wall limit
# (named SOURCE, a pattern) ends: exit 75 before the limit, every rank at one
# step with its checkpoint, snapshot and report, resumed on RESUME_NP ranks.
wall_limit() {
  local np=$1 input=$2 source=$3 resume_np=$4 start=$SECONDS line step
  shift 4
  cli_start_job "$np" "$input" "$@" --report R.json || return
  finish
  expect_rc 75
  # The limit counts from the solver's start; mpirun takes a second or two
  # before it, and the run must have ended in time for its checkpoint.
  [ $((SECONDS - start)) -le 9 ] || problem "the run ended $((SECONDS - start)) s after its start"
  grep -q "^mpsfw: wall limit [0-9].* left ($source): the run stops in time" out ||
    problem "no start line naming the wall limit ($source)"
  line=$(cli_stopped_line "the wall limit \\($source\\)") ||
    { problem "no 'mpsfw: stopped by the wall limit ($source) at step N' line: $(tail -2 out)"; return; }
  step=$(step_of "$line")
  grep -q "checkpoint ck.h5 resumes it" <<<"$line" || problem "the line names no checkpoint: $line"
  [ -s ck.h5 ] && [ -s O.h5 ] || problem "ck.h5 or O.h5 missing"
  cli_no_partials
  cli_expect_ended R.json stopped - "$step" ck.h5
  python3 -c 'import json, re, sys
w = json.load(open(sys.argv[1]))["ended"]["wall_limit"]
assert re.fullmatch(sys.argv[2], w), w' R.json "$source" 2>/dev/null ||
    problem "R.json's ended.wall_limit does not match '$source'"
  # The resumed part is another job: the first one's end is not its own.
  SLURM_JOB_END_TIME='' resumes_to ck.h5 "$resume_np" "$step"
}

heat=(--backend host --set run.steps=100000000 --set run.diag_every=0)
case "$case_name" in
  heat_term_rank)
    cli_start_job 2 "$INPUTS/heat_default.h5" "${heat[@]}" --set run.checkpoint_file=ck.h5 \
      --output O.h5 --report R.json
    cli_signal_rank TERM
    finish
    expect_rc 143
    line=$(cli_stopped_line SIGTERM) || problem "no 'mpsfw: stopped by SIGTERM at step N' line"
    step=$(sed -n 's/.* at step \([0-9]*\);.*/\1/p' <<<"$line")
    grep -q "checkpoint ck.h5 resumes it" <<<"$line" || problem "the line names no checkpoint: $line"
    [ -s ck.h5 ] && [ -s O.h5 ] && [ -s O.xmf ] || problem "ck.h5, O.h5 or O.xmf missing"
    cli_no_partials
    cli_expect_ended R.json stopped SIGTERM "$step" ck.h5
    [ -n "$step" ] && cli_resume ck.h5 1 $((step + 5))
    grep -q "$((step + 5))" resumed.out 2>/dev/null || problem "the resumed run did not reach step $((step + 5))"
    cli_expect_ended resumed.json completed - $((step + 5)) -
    ;;
  heat_usr1_mpirun)
    cli_start_job 2 "$INPUTS/heat_default.h5" "${heat[@]}" --set run.checkpoint_file=ck.h5 \
      --report R.json
    kill -USR1 "$CLI_JOB"
    finish
    expect_rc 138
    line=$(cli_stopped_line SIGUSR1) || problem "no 'mpsfw: stopped by SIGUSR1' line"
    step=$(step_of "$line")
    [ -s ck.h5 ] || problem "no checkpoint ck.h5"
    cli_no_partials
    cli_expect_ended R.json stopped SIGUSR1 "$step" ck.h5
    resumes_to ck.h5 3 "$step"
    ;;
  md_term_rank)
    cli_start_job 3 "$INPUTS/md_lj.h5" --backend host --set run.steps=100000000 \
      --set run.checkpoint_file=md.h5 --output T.h5
    cli_signal_rank TERM
    finish
    expect_rc 143
    line=$(cli_stopped_line SIGTERM) || problem "no 'mpsfw: stopped by SIGTERM at step N' line"
    step=$(sed -n 's/.* at step \([0-9]*\);.*/\1/p' <<<"$line")
    [ -s md.h5 ] && [ -s T.h5 ] || problem "md.h5 or T.h5 missing"
    cli_no_partials
    resumes_to md.h5 2 "$step"
    ;;
  heat_wall_limit)
    wall_limit 2 "$INPUTS/heat_default.h5" "run.wall_limit = 4" 3 "${heat[@]}" \
      --set run.checkpoint_file=ck.h5 --output O.h5 --set run.wall_limit=4 --set run.wall_margin=1
    ;;
  md_wall_limit)
    SLURM_JOB_END_TIME=$(($(date +%s) + 6)) wall_limit 3 "$INPUTS/md_lj.h5" \
      "SLURM_JOB_END_TIME = [0-9]*" 2 --backend host --set run.steps=100000000 \
      --set run.checkpoint_file=ck.h5 --output O.h5 --set run.wall_margin=1
    ;;
  no_checkpoint)
    cli_start_job 2 "$INPUTS/heat_default.h5" "${heat[@]}"
    cli_signal_rank TERM
    finish
    expect_rc 143
    cli_stopped_line SIGTERM | grep -q "no checkpoint" || problem "no 'no checkpoint' in the stop line"
    ;;
  heat_diverges)
    cli_run 2 out err "$INPUTS/heat_default.h5" --backend host --set heat.amplitude=1e308 \
      --set run.steps=50 --set run.diag_every=5 --report R.json
    rc=$CLI_RC
    expect_rc 1
    grep -q "heat: the field is no longer finite at step [0-9]* (first on rank [0-9])" err ||
      problem "no message naming the step and rank: $(tail -2 err)"
    [ -e R.json ] && problem "a report was written for a run that diverged"
    ;;
  md_blows_up)
    steps=""
    for np in 1 2 3 4; do
      cli_run "$np" out err "$INPUTS/md_lj.h5" --backend host --set md.dt=0.03 \
        --set run.steps=300 --set run.diag_every=0
      rc=$CLI_RC
      expect_rc 1
      line=$(grep -E "^mpsfw: error: MD: [0-9]+ atoms? .*moved (farther than one subdomain|more than a box length) in one step \(step [0-9]+\)" err) ||
        problem "$np ranks: no agreed message: $(grep mpsfw err | head -2)"
      grep -q "MPI_ABORT\|error on rank" err && problem "$np ranks: one rank aborted the job"
      steps="$steps $(sed -n 's/.*(step \([0-9]*\)).*/\1/p' <<<"$line")"
    done
    [ "$(tr ' ' '\n' <<<"$steps" | sort -u | grep -c .)" = 1 ] ||
      problem "the blow-up was caught at different steps on 1, 2, 3, 4 ranks:$steps"
    ;;
  check_every)
    # A gaussian narrower than a cell on an odd grid: the centre cell holds
    # 1e308 (the sum stays finite), 2u in the first update does not.
    spike=(--backend host --set heat.nx=33 --set heat.ny=33 --set heat.nz=33
      --set heat.initial=gaussian --set heat.gaussian_width=0.003 --set heat.amplitude=1e308
      --set run.steps=200 --set run.diag_every=0)
    for every in 0 7; do
      cli_run 2 out err "$INPUTS/heat_default.h5" "${spike[@]}" --set run.check_every=$every
      rc=$CLI_RC
      expect_rc 1
      # Without checks: the middle step's guard (100, where the report's steady half starts).
      expected=$([ "$every" = 0 ] && echo 100 || echo 7)
      grep -q "heat: the field is no longer finite at step $expected " err ||
        problem "run.check_every=$every: not stopped at step $expected: $(grep mpsfw err | head -1)"
    done
    ;;
  memory_too_large)
    cli_run 2 out err "$INPUTS/heat_default.h5" --backend host --set heat.nx=10000 \
      --set heat.ny=10000 --set heat.nz=10000 --set run.steps=1
    rc=$CLI_RC
    expect_rc 1
    grep -q "heat's fields and halo buffers need .* of host memory per rank, .* for the 2 ranks sharing it, but only .* is free" err ||
      problem "no message with the need and what is free: $(tail -2 err)"
    cli_run 2 out err "$INPUTS/md_lj.h5" --backend host --set md.cells_x=4000 \
      --set md.cells_y=4000 --set md.cells_z=4000 --set run.steps=1
    rc=$CLI_RC
    expect_rc 1
    grep -q "MD's atoms, neighbour lists and ghosts need .* TiB of host memory per rank, .* for the 2 ranks sharing it, but only .* is free" err ||
      problem "md: no message with the need and what is free: $(tail -2 err)"
    ;;
  *) cli_die "unknown case '$case_name'" ;;
esac

cli_case_end "$case_name"
