#!/usr/bin/env bash
# SIGINT, SIGTERM and --timeout end advise and sweep cleanly (host backend, no
# GPU needed): when the script exits no process of its runs is left (the
# launcher and its ranks), its temporary files are gone, an interrupt says so
# in one line on stderr without a traceback and exits 130 (SIGINT) or 143
# (SIGTERM), and a run past --timeout is a failed point: a non-zero exit.
#   tests/sweep/test_interrupt.sh PYTHON ADVISE_PY SWEEP_PY SOLVER MKINPUT WORKDIR
set -uo pipefail
python=$1 advise=$2 sweep=$3 solver=$4 mkinput=$5 work=$6
rm -rf "$work" && mkdir -p "$work/tmp" && cd "$work" || exit 1
export TMPDIR=$work/tmp
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# A run that lasts far longer than the test: every process of it (mpirun, its
# ranks) names this input on its command line.
slow=$work/slow.h5
"$mkinput" "$slow" --set heat.nx=16 --set heat.ny=16 --set heat.nz=16 --set run.steps=1000000000 \
  >/dev/null || { echo "FAIL: mkinput"; exit 1; }
left() { pgrep -f -- "$slow"; }

# Waits (at most 60 s) for pid $1 to exit; its exit code, or 255 after killing it.
finish() {
  local i
  for ((i = 0; i < 600; i++)); do
    kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
    sleep 0.1
  done
  kill -KILL "$1"; wait "$1"; return 255
}

# No process of the runs left, and none of the script's temporary files but
# a folder its output names (advise keeps a failed run's log and says where).
check_clean() {
  local name=$1 procs file
  procs=$(left)
  if [ -n "$procs" ]; then
    fail "$name: processes of its runs left after it exited: $(ps -o pid=,args= -p "$(echo $procs | tr ' ' ,)")"
    kill -KILL $procs 2>/dev/null  # this test's own runs (they name its input)
  fi
  for file in $(ls "$TMPDIR" | grep '^mpsfw-'); do
    grep -q "$TMPDIR/$file/" "$name".* || fail "$name: temporary file left, and not named: $file"
    rm -rf "${TMPDIR:?}/$file"
  done
}

# NAME SIGNAL EXIT PATTERN COMMAND...: starts COMMAND, waits until a rank of
# its probe's or sweep's runs matches PATTERN, sends SIGNAL to the script alone
# (a user's kill; Ctrl-C would reach only the script's process group too).
interrupt() {
  local name=$1 sig=$2 want=$3 pattern=$4 i pid rc
  shift 4
  "$@" > "$name.out" 2> "$name.err" &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    pgrep -f -- "$pattern" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! pgrep -f -- "$pattern" >/dev/null; then
    fail "$name: its run never started ($(cat "$name.out" "$name.err" | tail -n 3))"
  fi
  sleep 1  # the run under way
  kill -"$sig" "$pid"
  finish "$pid"; rc=$?
  [ "$rc" -eq "$want" ] || fail "$name: exit $rc after SIG$sig, expected $want"
  grep -q Traceback "$name.err" && fail "$name: a traceback: $(cat "$name.err")"
  [ "$(wc -l < "$name.err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$name.err")"
  grep -q "stopped by SIG$sig" "$name.err" || fail "$name: no line says it stopped: $(cat "$name.err")"
  check_clean "$name"
}

# A probe's run reports into advise's work folder; the short run that reads the
# input's size (its report beside that folder) ends at once and must not match.
probe_rank="^$solver $slow .*--report $TMPDIR/mpsfw-advise-[^/ ]*/"
interrupt advise_int INT 130 "$probe_rank" \
  "$python" "$advise" "$slow" --solver "$solver" --gpus 0 --steps 500000000 --max-ranks-per-gpu 1
interrupt advise_term TERM 143 "$probe_rank" \
  "$python" "$advise" "$slow" --solver "$solver" --gpus 0 --steps 500000000 --max-ranks-per-gpu 1
interrupt sweep_int INT 130 "^$solver $slow .*--report out/runs/" \
  "$python" "$sweep" "$slow" --out out --solver "$solver" --gpus 0 --ranks-per-gpu 1 --repeats 1 \
  --scaling strong
[ -z "$(ls out/runs | grep '\.tmp$')" ] || fail "sweep_int: a run's partial report left: $(ls out/runs)"

# --timeout: the run past it is ended with all its processes, and is a failed
# point; advise (no other point) and the sweep exit non-zero.
"$python" "$advise" "$slow" --solver "$solver" --gpus 0 --steps 500000000 --max-ranks-per-gpu 1 \
  --timeout 3 > advise_timeout.out 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "advise: a probe whose only point timed out exited 0"
grep -q "1 rank .*failed (timed out after 3 s (--timeout))" advise_timeout.out ||
  fail "advise: the timed-out point is not marked: $(tail -3 advise_timeout.out)"
grep -q Traceback advise_timeout.out && fail "advise --timeout: a traceback"
check_clean advise_timeout

"$python" "$sweep" "$slow" --out out_timeout --solver "$solver" --gpus 0 --ranks-per-gpu 1 \
  --repeats 1 --scaling strong --timeout 3 > sweep_timeout.out 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "sweep: a sweep whose only point timed out exited 0"
grep -q "run FAILED (timed out after 3 s (--timeout))" sweep_timeout.out ||
  fail "sweep: the timed-out point is not marked: $(tail -3 sweep_timeout.out)"
grep -q Traceback sweep_timeout.out && fail "sweep --timeout: a traceback"
check_clean sweep_timeout

[ "$failures" -eq 0 ] && echo "interrupt: all checks passed"
exit $((failures > 0))
