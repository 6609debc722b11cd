#!/usr/bin/env bash
# Resuming a checkpoint of the run's last step, and runs of no steps, process
# level, host backend, 2 ranks.
#   heat_nothing_to_run  a heat checkpoint at step 20 with run.steps = 20: exit 0,
#                        one line saying there is nothing to run and how to go on
#                        (--set run.steps=40), no banner, no summary, no output
#                        or checkpoint written, and the report ended "nothing to
#                        run" at step 20; then --set step=5 on it is refused
#                        (the saved state's, not a setting); then resumed with
#                        run.steps = 30: the banner says "steps 20..30"
#   md_nothing_to_run    the same for MD
#   zero_steps           a fresh heat input with run.steps = 0 (what
#                        scripts/sweep.py runs to read the problem) and --output:
#                        exit 0, its report written, the phase table without a
#                        "% loop" share of a loop that did not run
#   keep_spares_user_files  run.checkpoint_keep = 2 of run.checkpoint_file = notes
#                        beside the user's notes.20261130 (text) and
#                        notes.20261001 (an HDF5 input, no checkpoint): both kept
#                        byte for byte with one warning each, and of the run's
#                        own checkpoints the last two
#   checkpoint_deck      a heat checkpoint described as a deck (--describe
#                        --as-set, /mps keys included) resumes with it and
#                        written out (--write-input --set-file) has the same
#                        attributes but the state's (step, time, heat.initial)
#   resume.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#             --input-dir DIR --workdir DIR CASE
#   resume.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(heat_nothing_to_run md_nothing_to_run zero_steps keep_spares_user_files checkpoint_deck)
cli_case_args 26 "$@"

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
  for f in ck2.h5 o.h5 o.from00000020.h5 o.from00000020.xmf; do
    [ ! -e "$f" ] || problem "$f was written by a run that had nothing to run"
  done
  # A job chain's last link has its report too.
  grep -q '"how": "nothing to run"' r.json 2>/dev/null ||
    problem "no report r.json ending \"nothing to run\": $(grep -A3 '"ended"' r.json 2>&1 | tr '\n' ' ')"
  grep -A4 '"ended"' r.json 2>/dev/null | grep -q '"step": 20' || problem "r.json does not end at step 20"
  # The saved state's step is not a setting.
  cli_run 2 out err --backend host ck.h5 --set step=5 --set run.steps=30
  [ "$CLI_RC" -eq 1 ] || problem "--set step=5 on a checkpoint: exit $CLI_RC, expected 1"
  grep -qF -- "--set step=5: 'step' is the step of a checkpoint's saved state, not a setting" err ||
    problem "--set step=5 is not refused by name: $(head -2 err)"
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
    # Its one snapshot is timed (phase "output files"), outside the loop.
    solve "$INPUTS/heat_default.h5" --set run.steps=0 --report r.json --output o.h5
    [ -s r.json ] || problem "no report r.json"
    grep -q "% loop" out || problem "no phase table"
    # The rows under "phase ... % loop": a number with % would be a share of nothing.
    if sed -n '/% loop/,/^$/p' out | tail -n +2 | grep -q '%'; then
      problem "a share of a loop of no steps: $(sed -n '/% loop/,/^$/p' out | tr '\n' '|')"
    fi
    ;;
  keep_spares_user_files)
    printf 'my notes\n' >notes.20261130
    # An HDF5 file of a numbered name that is no checkpoint.
    cli_run 0 out err --write-input notes.20261001 --set solver=heat
    [ "$CLI_RC" -eq 0 ] || problem "--write-input notes.20261001: exit $CLI_RC: $(head -2 err)"
    cp notes.20261130 notes.20261130.before
    cp notes.20261001 notes.20261001.before
    solve "$INPUTS/heat_default.h5" --set heat.nx=8 --set heat.ny=8 --set heat.nz=8 \
      --set run.steps=20 --set run.checkpoint_every=5 --set run.checkpoint_keep=2 \
      --set run.checkpoint_file=notes
    for f in notes.20261130 notes.20261001; do
      cmp -s "$f" "$f.before" || problem "the user's $f was removed or changed"
      [ "$(grep -c "warning: run.checkpoint_keep: '\./$f' .*not a heat checkpoint" err)" -eq 1 ] ||
        problem "not one warning naming $f"
    done
    for f in notes.00000005 notes.00000010; do
      [ ! -e "$f" ] || problem "$f, an older checkpoint of the run, was not pruned"
    done
    for f in notes.00000015 notes.00000020; do
      [ -s "$f" ] || problem "$f, one of the last two checkpoints, is missing"
    done
    ;;
  checkpoint_deck)
    solve "$INPUTS/heat_default.h5" --set heat.nx=8 --set heat.ny=8 --set heat.nz=8 \
      --set run.steps=3 --set run.checkpoint_file=ck.h5
    cli_run 0 deck err --describe ck.h5 --as-set
    [ "$CLI_RC" -eq 0 ] || problem "--describe --as-set ck.h5: exit $CLI_RC: $(head -2 err)"
    grep -q '^mps\.enable=' deck || problem "the checkpoint's deck has no /mps keys"
    # Onto the checkpoint itself (its step is no line of the deck)...
    solve ck.h5 --set-file deck --set run.steps=5
    grep -q "steps 3\.\.5 on 2 ranks" out || problem "ck.h5 --set-file of its deck did not resume"
    # ...and as a fresh input (the state stays in ck.h5: a computed start).
    cli_run 0 out err --write-input again.h5 --set-file deck --set heat.initial=sine
    [ "$CLI_RC" -eq 0 ] || problem "--write-input of the checkpoint's deck: exit $CLI_RC: $(head -2 err)"
    # The same attributes but the state's (step, time, heat.initial).
    attributes() {
      cli_run 0 "$2" err --describe "$1"
      [ "$CLI_RC" -eq 0 ] && grep -q '^attribute /heat/nx .* = 8$' "$2" ||
        problem "--describe $1 failed or lists no heat.nx = 8"
      grep '^attribute ' "$2" | grep -v '^attribute /\(step\|time\|heat/initial\) ' >"$2.kept"
    }
    attributes ck.h5 ck.described
    attributes again.h5 again.described
    cmp -s ck.described.kept again.described.kept ||
      problem "checkpoint -> deck -> input changed attributes: $(diff ck.described.kept again.described.kept | head -4 | tr '\n' ' ')"
    ;;
esac

cli_case_end "$case_name"
