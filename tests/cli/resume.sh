#!/usr/bin/env bash
# Resuming a checkpoint of the run's last step, and runs of no steps (issue 36),
# process level, host backend, 2 ranks.
#   heat_nothing_to_run  a heat checkpoint at step 20 with run.steps = 20: exit 0,
#                        one line saying there is nothing to run and how to go on
#                        (--set run.steps=40), no banner, no summary, and no
#                        output, checkpoint or report written; then resumed with
#                        run.steps = 30: the banner says "steps 20..30"
#   md_nothing_to_run    the same for MD
#   zero_steps           a fresh heat input with run.steps = 0 (what
#                        scripts/sweep.py runs to read the problem) and --output:
#                        exit 0, its report written, the phase table without a
#                        "% loop" share of a loop that did not run
#   resume.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#             --input-dir DIR --workdir DIR CASE
#   resume.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(heat_nothing_to_run md_nothing_to_run zero_steps)
cli_case_args 17 "$@"

# solve ARGS...: the solver on 2 ranks, host backend; sets rc, output in out and err.
solve() {
  cli_run 2 out err --backend host "$@"
  rc=$CLI_RC
  [ "$rc" -eq 0 ] || problem "exit code $rc of: $(cli_command_text 2 --backend host "$@")"
}

# check_nothing_to_run INPUT ARGS...: a checkpoint of step 20 made from INPUT
# (with ARGS), resumed at its last step, then with more steps.
check_nothing_to_run() {
  local input=$1
  shift
  solve "$input" "$@" --set run.steps=20 --set run.checkpoint_file=ck.h5
  [ -s ck.h5 ] || { problem "no checkpoint ck.h5 to resume"; return; }
  solve ck.h5 --set run.checkpoint_file=ck2.h5 --output o.h5 --report r.json
  local want="mpsfw: the checkpoint ck.h5 is at step 20 and run.steps = 20: nothing to run; "
  want+="set run.steps above 20 to continue (--set run.steps=40)"
  grep -qxF "$want" out || problem "no line: $want"
  ! grep -q "run summary\|% loop\|^mpsfw: \(heat\|md\) " out ||
    problem "a banner or summary of a run that had nothing to run"
  local f
  for f in ck2.h5 o.h5 o.from00000020.h5 o.from00000020.xmf r.json; do
    [ ! -e "$f" ] || problem "$f was written by a run that had nothing to run"
  done
  solve ck.h5 --set run.steps=30
  grep -q "^mpsfw: \(heat\|md\) .*, steps 20\.\.30 on 2 ranks" out ||
    problem "the resumed run's banner does not say 'steps 20..30': $(grep '^mpsfw: ' out | head -1)"
}

case "$case_name" in
  heat_nothing_to_run)
    check_nothing_to_run "$INPUTS/heat_default.h5" --set heat.nx=16 --set heat.ny=16 \
      --set heat.nz=16
    ;;
  md_nothing_to_run)
    check_nothing_to_run "$INPUTS/md_lj.h5" --set md.cells_x=4 --set md.cells_y=4 \
      --set md.cells_z=4
    ;;
  zero_steps)
    # Its one snapshot is timed (phase "output"), outside the loop.
    solve "$INPUTS/heat_default.h5" --set run.steps=0 --report r.json --output o.h5
    [ -s r.json ] || problem "no report r.json"
    grep -q "% loop" out || problem "no phase table"
    # The rows under "phase ... % loop": a number with % would be a share of nothing.
    if sed -n '/% loop/,/^$/p' out | tail -n +2 | grep -q '%'; then
      problem "a share of a loop of no steps: $(sed -n '/% loop/,/^$/p' out | tr '\n' '|')"
    fi
    ;;
esac

cli_case_end "$case_name"
