#!/usr/bin/env bash
# advise on the host backend (no GPU needed): it probes, skips the MPS arm
# (no GPU; on the MPS test double: runs it, and the unverified point fails)
# and the points with more ranks than the job's cores, chooses, and
# prints a launch line that runs; --json holds the same; --weak launches the
# grown problem; a point that fails is marked, its log kept, and another is
# chosen; bad input is refused with the solver's error. --command (any
# program, through mpsfw-run): timed by the figure it prints or the wall
# clock, a launch line that runs, a point without a figure or with a failed
# exit marked, its MPS arm on the double not verified and never chosen.
#   tests/sweep/test_advise.sh PYTHON ADVISE_PY SOLVER MKINPUT WORKDIR MPSFW_RUN
set -uo pipefail
# shellcheck source=../mps/fake_gpu_lib.sh
source "$(dirname "$0")/../mps/fake_gpu_lib.sh"
python=$1 advise=$2 solver=$3 mkinput=$4 work=$5 wrapper=$6
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
json() { "$python" -c "import json, sys; r = json.load(open('$1')); print($2)"; }
# The job's cores as advise counts them (nproc would count OMP_NUM_THREADS).
cores=$("$python" -c "import os; print(len(os.sched_getaffinity(0)))")

"$mkinput" in.h5 --set heat.nx=32 --set heat.ny=24 --set heat.nz=16 --set run.steps=30 >/dev/null ||
  { echo "FAIL: mkinput"; exit 1; }
# A program that is not ours: it prints the time its work would take on
# OMPI_COMM_WORLD_SIZE ranks (4 s on one), and fails when asked to.
cat > app.sh <<'APP'
#!/bin/sh
[ "${1:-}" = fail ] && exit 3
awk -v n="${OMPI_COMM_WORLD_SIZE:-1}" 'BEGIN { printf "elapsed %g s\n", 4 / n }'
APP
chmod +x app.sh
advise() { "$python" "$advise" "$@" --solver "$solver" --gpus 0 --steps 3; }

# One core: 1 rank per "GPU" (the node) runs, 2 ranks are skipped, 1 is chosen.
taskset -c 0 "$python" "$advise" in.h5 --solver "$solver" --gpus 0 --steps 3 --json one.json \
  > one.log 2>&1 || fail "advise on one core exited $? ($(tail -3 one.log))"
grep -q "2 ranks .*skipped: 2 ranks on 1 cores" one.log || fail "2 ranks on one core were not skipped"
grep -q "skipped: no GPU, MPS cannot be active" one.log || fail "the MPS arm was not skipped without a GPU"
[ "$(json one.json 'r["choice"]["point"]')" = "1 rank" ] || fail "one core: the choice is not 1 rank"
# On the host there is no GPU to share: rank counts and node-hours, not
# time-slicing and GPU-hours.
grep -q "GPU-hours\|time-sliced" one.log && fail "advise on the host speaks of GPU-hours or time-slicing"
grep -q "node-hours" one.log || fail "advise on the host gives no node-hours"
[ "$(json one.json 'r["run_steps"]')" = 30 ] || fail "run_steps is not the input's 30"
[ "$(json one.json 'r["choice"]["forecast"]["seconds"] > 0')" = True ] || fail "no forecast"

# Two cores where the machine has them: the launch line runs as printed.
advise in.h5 --json two.json > two.log 2>&1 || fail "advise exited $? ($(tail -3 two.log))"
line=$(json two.json 'r["choice"]["launch"]["mpirun"]')
case "$line" in
  "mpirun -np "*" $solver $work/in.h5 --mps off") ;;
  *) fail "unexpected launch line: $line" ;;
esac
ranks=$(json two.json 'r["choice"]["ranks"]')
grep -q "#SBATCH --ntasks-per-node=$ranks" two.log || fail "no #SBATCH line for $ranks tasks"
# shellcheck disable=SC2086  # the printed line, word by word
OMPI_MCA_rmaps_base_oversubscribe=1 $line --set run.steps=2 > launched.log 2>&1 ||
  fail "the printed launch line failed ($(tail -3 launched.log))"
[ "$(json two.json 'len(r["table"]) >= 3')" = True ] || fail "the JSON table lacks points"

# Weak scaling: the launch line carries the grown grid and its rank grid.
advise in.h5 --weak --max-ranks-per-gpu 2 --json weak.json > weak.log 2>&1 ||
  fail "advise --weak exited $? ($(tail -3 weak.log))"
case "$(json weak.json 'r["choice"]["ranks"]')" in
  1) grown="--set heat.nz=16 --set run.px=1 --set run.py=1 --set run.pz=1" ;;
  2) grown="--set heat.nz=32 --set run.px=1 --set run.py=1 --set run.pz=2" ;;
  *) grown="(a choice of 1 or 2 ranks)" ;;
esac
json weak.json 'r["choice"]["launch"]["mpirun"]' | grep -q -- "$grown" ||
  fail "weak launch line lacks $grown: $(json weak.json 'r["choice"]["launch"]["mpirun"]')"

# A point that fails (a 1x1x1 rank grid cannot take 2 ranks) is marked with
# its log, and the probe chooses among the rest.
advise in.h5 --set run.px=1 --set run.py=1 --set run.pz=1 --max-ranks-per-gpu 2 --json failed.json \
  > failed.log 2>&1 || fail "advise with a failing point exited $? ($(tail -3 failed.log))"
if [ "$cores" -ge 2 ]; then
  grep -q "2 ranks .*failed (exit [0-9]*)" failed.log || fail "the failing point is not marked"
  log=$(grep -o "log /[^ ]*\.log" failed.log | head -1 | cut -c5-)
  [ -s "$log" ] || fail "the failing point's log was not kept ($log)"
fi
[ "$(json failed.json 'r["choice"]["point"]')" = "1 rank" ] || fail "a failed point was chosen"

# On the MPS test double (tests/mps: a fake GPU in a fake /proc, the double
# first on PATH; no CUDA process ever connects to it): the MPS arm runs with
# --mps on, its ranks are not verified clients, so the point is marked failed
# with the solver's reason and never chosen, and every daemon the probe's runs
# started has quit (each one up is one exit by quit, no session folder left).
if [ "$cores" -ge 2 ]; then
  # Given to advise's runs only: the checks after these run without a GPU.
  fake_mps_env "$work/fake" || exit 1
  fake_gpus "$work/fake" 1 || exit 1
  record=$work/fake/record
  mkdir -p "$work/mps-root"
  env "${FAKE_MPS_ENV[@]}" "$python" "$advise" in.h5 --solver "$solver" --steps 3 \
    --max-ranks-per-gpu 2 --set run.backend=host --set mps.directory="$work/mps-root" \
    --json double.json > double.log 2>&1 ||
    fail "advise on the MPS double exited $? ($(tail -3 double.log))"
  # The GPU count is the solver's view (mpsctl gpus beside it), not --gpus.
  grep -q "^node: 1 GPU(s)" double.log || fail "advise did not find the fake GPU: $(grep node: double.log)"
  grep -q "2 MPS .*failed (exit [0-9]*): mpsfw: error: MPS (mps.enable = on): 2 of 2 local ranks are not verified MPS clients" \
    double.log || fail "the MPS point on the double is not marked failed with the solver's reason"
  [ "$(json double.json '[t["ran"] for t in r["table"] if t["arm"] == "MPS"]')" = "[False]" ] ||
    fail "double.json: the MPS point is not the one failed point"
  [ "$(json double.json 'r["choice"]["arm"]')" != MPS ] || fail "an unverified MPS point was chosen"
  up=$(grep -c "daemon-up" "$record" 2>/dev/null)
  quit=$(grep -c "daemon-exit .*reason=quit" "$record" 2>/dev/null)
  [ "${up:-0}" -ge 1 ] || fail "the MPS arm started no daemon on the double"
  [ "${up:-0}" = "${quit:-0}" ] || fail "$up daemons came up, $quit quit"
  [ -z "$(ls -A "$work/mps-root")" ] || fail "a session folder was left: $(ls "$work/mps-root")"
  # Any program through mpsfw-run on the double: its MPS point is not
  # verified (the program is not a client), marked so and never chosen;
  # the daemons its runs started quit.
  : > "$record"
  env "${FAKE_MPS_ENV[@]}" TMPDIR="$work/mps-root" "$python" "$advise" --command "./app.sh" \
    --time 'elapsed ([0-9.]+)' --mpsfw-run "$wrapper" --max-ranks-per-gpu 2 --json cmd_double.json \
    > cmd_double.log 2>&1 ||
    fail "advise --command on the MPS double exited $? ($(tail -3 cmd_double.log))"
  grep -q "^node: 1 GPU(s)" cmd_double.log || fail "advise --command did not find the fake GPU (mpsctl beside mpsfw-run)"
  grep -q "2 MPS .*MPS not active: NOT active .*0 of 2 clients verified" cmd_double.log ||
    fail "the command's MPS point on the double is not marked unverified: $(grep MPS cmd_double.log)"
  [ "$(json cmd_double.json 'r["choice"]["arm"]')" != MPS ] || fail "an unverified MPS point of a command was chosen"
  up=$(grep -c "daemon-up" "$record" 2>/dev/null)
  quit=$(grep -c "daemon-exit .*reason=quit" "$record" 2>/dev/null)
  [ "${up:-0}" -ge 1 ] && [ "${up:-0}" = "${quit:-0}" ] || fail "command on the double: $up daemons up, $quit quit"
  [ -z "$(ls -A "$work/mps-root")" ] || fail "a folder was left: $(ls "$work/mps-root")"
else
  echo "note: the MPS double's arm needs 2 cores (this job has $cores): not run"
fi

# A checkpoint (heat at step 10) is probed from its step, and run.steps = 40
# leaves 30 steps to forecast; --weak is refused with the workload's reason (a
# checkpoint's grid is its dataset's: heat.initial = dataset cannot grow).
"$solver" in.h5 --backend host --mps off --set run.steps=10 --set run.checkpoint_file=ck.h5 \
  > ck_run.log 2>&1 || fail "the run that writes a checkpoint failed ($(tail -2 ck_run.log))"
advise ck.h5 --set run.steps=40 --max-ranks-per-gpu 1 --json ck.json > ck.log 2>&1 ||
  fail "advise on a checkpoint exited $? ($(tail -3 ck.log))"
[ "$(json ck.json 'r["run_steps"]')" = 30 ] || fail "checkpoint: run_steps is not 40 - 10"
[ "$(json ck.json 'r["choice"]["point"]')" = "1 rank" ] || fail "checkpoint: its one point did not run"
advise ck.h5 --weak > ck_weak.log 2>&1 && fail "advise --weak accepted a heat checkpoint"
grep -q "ck.h5 cannot be weak-scaled: weak scaling multiplies heat.nx/ny/nz, which heat.initial = dataset cannot grow" \
  ck_weak.log || fail "advise --weak on a checkpoint gives no reason: $(tail -2 ck_weak.log)"

# Bad input: the solver's own error, a non-zero exit, nothing probed.
advise in.h5 --set heat.nx=0 > bad.log 2>&1 && fail "advise accepted heat.nx=0"
grep -q "heat.nx" bad.log || fail "the error does not name heat.nx: $(tail -2 bad.log)"
advise missing.h5 > missing.log 2>&1 && fail "advise accepted a missing input"
grep -q "missing.h5: no such input file" missing.log || fail "no clear error for a missing input"

# --command on the host: the figure it prints is its speed (runs per hour), the
# launch line runs it through mpsfw-run as printed.
cmd() { "$python" "$advise" --command "$@" --mpsfw-run "$wrapper" --gpus 0; }
cmd "./app.sh" --time 'elapsed ([0-9.]+)' --json cmd.json > cmd.log 2>&1 ||
  fail "advise --command exited $? ($(tail -3 cmd.log))"
[ "$(json cmd.json 'r["table"][0]["throughput"]')" = 900.0 ] || fail "1 rank: not 3600 / 4 s runs/h"
[ "$(json cmd.json 'r["throughput_unit"]')" = runs/h ] || fail "a --time command's unit is not runs/h"
if [ "$cores" -ge 2 ]; then
  [ "$(json cmd.json 'r["choice"]["point"]')" = "2 ranks" ] || fail "the faster 2-rank point was not chosen"
  line=$(json cmd.json 'r["choice"]["launch"]["mpirun"]')
  [ "$line" = "mpirun -np 2 --bind-to none $wrapper --mps off -- ./app.sh" ] || fail "command launch line: $line"
  # shellcheck disable=SC2086  # the printed line, word by word
  $line > cmd_launched.log 2>&1 && grep -q "elapsed 2 s" cmd_launched.log ||
    fail "the printed command line did not run ($(tail -2 cmd_launched.log))"
  grep -q "srun --cpus-per-task=1 $wrapper --mps off -- ./app.sh" cmd.log || fail "no srun line for the command"
fi
# The wall clock when no figure is named.
cmd "sleep 0.3" --max-ranks-per-gpu 1 --json wall.json > wall.log 2>&1 || fail "advise --command (wall clock) exited $?"
[ "$(json wall.json 'r["table"][0]["seconds_per_step"] >= 0.3')" = True ] || fail "the wall clock of sleep 0.3 is under 0.3 s"
# A run without the figure, or that fails, is marked; none ran: exit 1.
cmd "./app.sh" --time 'nothing ([0-9]+)' --max-ranks-per-gpu 1 > nofig.log 2>&1 && fail "advise chose without a figure"
grep -q "1 rank .*failed (exit 0 but no figure of its speed in its output)" nofig.log || fail "no-figure point not marked"
cmd "./app.sh fail" --max-ranks-per-gpu 1 > cmdfail.log 2>&1 && fail "advise chose a failing command"
grep -q "1 rank .*failed (exit 3)" cmdfail.log || fail "the command's exit code is not named: $(grep "1 rank" cmdfail.log)"
# Usage errors name the option.
cmd "./app.sh" --time 'elapsed [0-9]+' > nogroup.log 2>&1 && fail "--time without a group accepted"
grep -q "put a group" nogroup.log || fail "--time without a group: no clear error"
"$python" "$advise" in.h5 --command ./app.sh > both.log 2>&1 && fail "an input and a --command accepted together"
# --launcher srun outside an allocation: said so, not blamed on the input.
env -u SLURM_JOB_ID "$python" "$advise" in.h5 --solver "$solver" --launcher srun > srun.log 2>&1 &&
  fail "advise --launcher srun ran outside Slurm"
grep -q "starts ranks inside a Slurm allocation" srun.log || fail "--launcher srun outside Slurm: $(tail -1 srun.log)"
grep -q "give an INPUT or a --command" both.log || fail "input and --command: no clear error"

[ "$failures" -gt 0 ] && exit 1
if [ "$cores" -lt 2 ]; then
  echo "SKIP: the failing point's and the MPS double's checks need 2 cores (this job has $cores);" \
    "the others passed"
  exit 77
fi
echo "advise: all checks passed"
