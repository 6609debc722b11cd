#!/usr/bin/env bash
# The ranks-per-GPU sweep on the host backend (no GPU needed): the CSV has one
# row per run, MPS points that could not get MPS are marked, plots and summary
# are written, a second call resumes without re-running, and a different input
# (or the same input with other --set values) in the same folder is refused,
# --plot-only redraws from the CSV alone, figures are consistent (cells x
# steps / loop time), and a failing point is marked and fails the sweep.
# --command (any program through mpsfw-run): a row per run with the figure it
# prints as runs per hour, strong scaling only.
#   tests/sweep/test_sweep.sh PYTHON SWEEP_PY SOLVER MKINPUT WORKDIR MPSFW_RUN
set -uo pipefail
python=$1 sweep=$2 solver=$3 mkinput=$4 work=$5 wrapper=$6
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$mkinput" in.h5 --set heat.nx=12 --set heat.ny=10 --set heat.nz=8 --set run.steps=5 >/dev/null ||
  { echo "FAIL: mkinput"; exit 1; }
run() { "$python" "$sweep" "$@" --solver "$solver" --gpus 0 --ranks-per-gpu 1,2 --repeats 1; }

run in.h5 --out out > first.log 2>&1 || fail "first sweep exited $? ($(tail -3 first.log))"
rows=$(($(wc -l < out/sweep.csv) - 1))
[ "$rows" -eq 4 ] || fail "sweep.csv has $rows rows, expected 4 (2 scalings x 2 ranks/GPU x timeslice)"
# Without a GPU the MPS modes cannot be active: skipped, and the sweep says so.
grep -q "no GPU here: mode(s) mps,mps-caps skipped" first.log || fail "the sweep does not say it skipped the MPS modes"
grep -q ',mps,\|,mps-caps,' out/sweep.csv && fail "MPS rows were run without a GPU"
# Two blocks stacked along z: weak scaling cuts x last, as heat's rank grid does.
grep -q '^weak,2,2,timeslice,1,host,12x10x16,' out/sweep.csv || fail "weak scaling at 2 ranks is not 2 blocks of 12x10x8 along z"
grep -q '^strong,2,2,timeslice,1,host,12x10x8,' out/sweep.csv || fail "strong scaling changed the grid"
grep -q "MPS modes skipped" out/summary.md || fail "summary does not say the MPS modes were skipped"
grep -q "host backend" out/summary.md || fail "summary does not say it ran on the host backend"
if "$python" -c 'import matplotlib' 2>/dev/null; then
  for p in out/sweep_strong.png out/sweep_weak.png; do [ -s "$p" ] || fail "no plot $p"; done
fi
runs=$(ls out/runs/*.json | wc -l)
[ "$runs" -eq 4 ] || fail "$runs run reports, expected 4"

run in.h5 --out out > second.log 2>&1 || fail "resumed sweep exited $?"
again=$(grep -c "done before" second.log)
[ "$again" -eq 4 ] || fail "the resumed sweep re-ran $((4 - again)) points"

"$mkinput" other.h5 --set heat.nx=14 --set heat.ny=10 --set heat.nz=8 --set run.steps=5 >/dev/null
if run other.h5 --out out > third.log 2>&1; then
  fail "a different input was accepted into the same folder"
else
  grep -q "holds results of input" third.log || fail "refusal does not say why: $(tail -2 third.log)"
fi

# The same input with other --set values would mix two problems in one plot.
if run in.h5 --out out --set run.steps=6 > fourth.log 2>&1; then
  fail "the same input with another --set list was accepted into the same folder"
else
  grep -q "holds results of input" fourth.log || fail "refusal does not say why: $(tail -2 fourth.log)"
fi

# --plot-only redraws from the CSV and runs nothing.
rm -f out/summary.md out/sweep_*.png
"$python" "$sweep" --plot-only --out out > fifth.log 2>&1 || fail "--plot-only exited $? ($(tail -2 fifth.log))"
grep -q "host backend" out/summary.md 2>/dev/null || fail "--plot-only wrote no summary"
[ "$(ls out/runs/*.json | wc -l)" -eq 4 ] || fail "--plot-only changed the runs"
if "$python" -c 'import matplotlib' 2>/dev/null; then
  [ -s out/sweep_weak.png ] || fail "--plot-only drew no plot"
fi
"$python" "$sweep" --plot-only --out missing > sixth.log 2>&1 && fail "--plot-only without a sweep succeeded"
grep -q "needs a finished sweep" sixth.log || fail "--plot-only on an empty folder does not say why"
# --baseline: the same sweep as its own baseline on as many GPUs shows no speed-up
# table but says why; a missing baseline is an error naming the folder.
"$python" "$sweep" --plot-only --out out --baseline out > seventh.log 2>&1 || fail "--baseline failed"
grep -q "no speed-up to show" out/summary.md || fail "--baseline on as many GPUs did not say so"
"$python" "$sweep" --plot-only --out out --baseline missing > eighth.log 2>&1 &&
  fail "--baseline without a sweep succeeded"
grep -q "missing" eighth.log || fail "a missing --baseline is not named"

# A point that asked for MPS and did not get it (a GPU machine's failure,
# drawn here from a row added to a copy of the CSV) is marked in the summary.
cp -r out out_marked
"$python" - out_marked/sweep.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
twin = dict(rows[0])
twin.update(mode="mps", mps_state="NOT active", mps_as_asked="NO")
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows + [twin])
PY
"$python" "$sweep" --plot-only --out out_marked > marked.log 2>&1 || fail "--plot-only with an MPS row exited $?"
grep -q "MPS NOT active" out_marked/summary.md || fail "summary does not mark a point where MPS was not active"
# MPS modes alone without a GPU: refused, saying why.
run in.h5 --out out_mps_only --modes mps > mps_only.log 2>&1 && fail "a sweep of MPS modes only ran without a GPU"
grep -q "asks only for MPS modes" mps_only.log || fail "the MPS-only refusal does not say why: $(tail -1 mps_only.log)"

# Repeats that disagree are listed in the summary, with their values: one
# repeat (none listed) and a point given a second repeat at twice the rate.
grep -q "Repeats that disagree" out/summary.md && fail "one repeat per point listed as disagreeing"
cp -r out out_spread
"$python" - out_spread/sweep.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
twin = dict(next(r for r in rows if r["scaling"] == "strong" and r["ranks_per_gpu"] == "1"
                 and r["mode"] == "timeslice"))
twin["repeat"] = "2"
twin["updates_per_second"] = str(2 * float(twin["updates_per_second"]))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows + [twin])
PY
"$python" "$sweep" --plot-only --out out_spread > spread.log 2>&1 || fail "--plot-only on two repeats exited $?"
grep -q "1 point(s) whose repeats spread more than 10 %" spread.log ||
  fail "the sweep does not say a point's repeats disagree: $(tail -2 spread.log)"
grep -q "^- strong scaling, 1 ranks/GPU, timeslice: spread 67 %" out_spread/summary.md ||
  fail "summary.md does not list the disagreeing point: $(grep -A4 'Repeats that' out_spread/summary.md)"

# The sweep's --set values shape the problem it scales: weak scaling doubles
# heat.nx=6 (not the file's 12) for 2 ranks.
run in.h5 --out out_set --set heat.nx=6 --scaling weak --modes timeslice > seventh.log 2>&1 ||
  fail "sweep with --set exited $?"
grep -q '^weak,2,2,timeslice,1,host,6x10x16,' out_set/sweep.csv ||
  fail "weak scaling ignored --set heat.nx=6: $(grep '^weak,2' out_set/sweep.csv | cut -d, -f1-7)"

# An MD input: weak scaling multiplies the FCC cells (4^3 -> 8x4x4 for 2 ranks,
# 4x2x2 link cells of cutoff + skin = 2.8), and throughput is in atom-steps/s.
"$mkinput" md.h5 --set solver=md --set md.cells_x=4 --set md.cells_y=4 --set md.cells_z=4 \
  --set run.steps=3 >/dev/null || fail "mkinput md"
run md.h5 --out out_md --modes timeslice > eighth.log 2>&1 || fail "MD sweep exited $? ($(tail -2 eighth.log))"
grep -q '^weak,2,2,timeslice,1,host,2x2x4,' out_md/sweep.csv ||
  fail "MD weak scaling at 2 ranks is not 4x4x8 FCC cells: $(grep '^weak,2' out_md/sweep.csv | cut -d, -f1-7)"
grep -q '^strong,2,2,timeslice,1,host,2x2x2,' out_md/sweep.csv || fail "MD strong scaling changed the box"
grep -q "atom-steps/s" out_md/summary.md || fail "MD summary does not speak of atom-steps/s"
# Which keys weak scaling multiplies is the workload's word (the report's
# weak_scaling): an MD checkpoint of step 0 (md.initial = dataset) has none,
# and says why.
"$solver" md.h5 --backend host --mps off --set run.steps=0 --set run.checkpoint_file=md_ck.h5 >/dev/null 2>&1 ||
  fail "MD run for a checkpoint failed"
if run md_ck.h5 --out out_md_ck --scaling weak --modes timeslice > md_ck.log 2>&1; then
  fail "a weak sweep of an MD dataset input ran"
fi
grep -q "cannot be weak-scaled: weak scaling multiplies md.cells_x/y/z, which only md.initial = fcc reads" md_ck.log ||
  fail "no reason for refusing a weak sweep of an MD dataset input: $(tail -2 md_ck.log)"

# A heat checkpoint of step 10 sweeps from its step (run.steps = 15: 5 steps
# a run), and weak scaling of it is refused with the workload's reason (its
# grid is its dataset's: heat.initial = dataset cannot grow).
"$solver" in.h5 --backend host --mps off --set run.steps=10 --set run.checkpoint_file=ck.h5 >/dev/null 2>&1 ||
  fail "heat run for a checkpoint failed"
run ck.h5 --out out_ck --scaling strong --modes timeslice --set run.steps=15 > ck.log 2>&1 ||
  fail "a sweep of a checkpoint exited $? ($(tail -2 ck.log))"
[ "$(grep -c '^strong,[12],[12],timeslice,1,host,12x10x8,' out_ck/sweep.csv)" = 2 ] ||
  fail "a sweep of a checkpoint lacks its 2 points: $(cat out_ck/sweep.csv)"
if run ck.h5 --out out_ck_weak --scaling weak --modes timeslice --set run.steps=15 > ck_weak.log 2>&1; then
  fail "a weak sweep of a heat checkpoint ran"
fi
grep -q "cannot be weak-scaled: weak scaling multiplies heat.nx/ny/nz, which heat.initial = dataset cannot grow" \
  ck_weak.log || fail "no reason for refusing a weak sweep of a heat checkpoint: $(tail -2 ck_weak.log)"

# Figures, not only rows: every completed row's throughput is the cells times
# the steps over its loop time (within rounding), and positive.
"$python" - out/sweep.csv <<'PY' || fail "implausible figures in out/sweep.csv"
import csv, sys
bad = []
for r in csv.DictReader(open(sys.argv[1])):
    ups, secs = float(r["updates_per_second"]), float(r["loop_seconds"])
    cells = 1
    for n in r["global_cells"].split("x"):
        cells *= int(n)
    if not (ups > 0 and secs > 0 and abs(ups * secs / (cells * 5) - 1) < 1e-3):
        bad.append("%s %s rpg %s: %g updates/s over %g s for %d cells x 5 steps" % (
            r["scaling"], r["mode"], r["ranks_per_gpu"], ups, secs, cells))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# A point that fails is a marked row, a line in the summary and a non-zero
# exit, never a silently missing point: a 1x1x1 rank grid fails at 2 ranks.
if run in.h5 --out out_fail --scaling strong --modes timeslice --set run.px=1 --set run.py=1 \
     --set run.pz=1 > ninth.log 2>&1; then
  fail "a sweep with a failing point exited 0"
fi
grep -q "1 of 2 points FAILED" ninth.log || fail "the sweep does not say a point failed: $(tail -2 ninth.log)"
grep -q '^strong,2,2,timeslice,1,.*FAILED (exit' out_fail/sweep.csv || fail "no FAILED row in sweep.csv"
grep -q '^strong,1,1,timeslice,1,host,' out_fail/sweep.csv || fail "the 1-rank point is missing"
grep -q "Failed points (1)" out_fail/summary.md || fail "summary.md does not list the failed point"

# Any program: the time it prints on OMPI_COMM_WORLD_SIZE ranks (4 s on one)
# becomes runs per hour, a row a run.
printf '#!/bin/sh\nawk -v n="${OMPI_COMM_WORLD_SIZE:-1}" %s\n' \
  "'BEGIN { printf \"elapsed %g s\\n\", 4 / n }'" > app.sh && chmod +x app.sh
"$python" "$sweep" --command ./app.sh --time 'elapsed ([0-9.]+)' --mpsfw-run "$wrapper" --out out_cmd \
  --gpus 0 --ranks-per-gpu 1,2 --repeats 1 > cmd.log 2>&1 || fail "sweep --command exited $? ($(tail -3 cmd.log))"
grep -q '^strong,1,1,timeslice,1,command,,900\.0,4\.0,' out_cmd/sweep.csv || fail "1 rank: not 900 runs/h from 4 s"
grep -q '^strong,2,2,timeslice,1,command,,1800\.0,2\.0,' out_cmd/sweep.csv || fail "2 ranks: not 1800 runs/h from 2 s"
grep -q "a command" out_cmd/summary.md || fail "the summary does not say it swept a command"
"$python" "$sweep" --command ./app.sh --mpsfw-run "$wrapper" --out out_cmd_weak --scaling weak --gpus 0 \
  > cmd_weak.log 2>&1 && fail "a weak sweep of a command ran"
grep -q "strong scaling only" cmd_weak.log || fail "a weak sweep of a command: no clear error"

if [ "$failures" -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
[ "$failures" -eq 0 ]
