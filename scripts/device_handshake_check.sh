#!/usr/bin/env bash
# A dead neighbour never hangs the others (docs/mps.md), on the GPU machine in
# one command: build the solver and the handshake tests for sm_90, then
#   tests  test_step_handshake with its CUDA cases (a device wait that runs
#          out gives up naming the rank and step and raises the host's record;
#          one that waits for a rank that gave up follows at once; later
#          handshakes return at once), and tests/mpi/peer_wait.sh (the host
#          stand-in, as in CI)
#   heat   heat on 4 ranks of one GPU under MPS, halos over CUDA IPC ordered
#          by GPU-side waits (a short control run shows that ordering in its
#          report), run.peer_wait_seconds = WAIT; rank 1 is SIGSTOPped
#          mid-run. PASS when mpirun ends non-zero within 2 WAIT + 30 s, at
#          least one line says "rank 1 did not reach step N within
#          run.peer_wait_seconds = WAIT s" and every such line names rank 1
#          and the same step (or, for a rank blocked in MPI, the loop's stall
#          watch: "no step after step N finished within 2 WAIT s", from ranks
#          other than 1), and no rank or MPS daemon is left
#   md     the same for MD (md_lj.h5, same-GPU ghosts)
# Exits non-zero if any check failed. Logs and a tarball in $OUT.
#   scripts/device_handshake_check.sh [PARTS="tests heat md"] [WAIT=5]
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_logs handshake
parts=${1:-tests heat md}
wait_s=${2:-5}
build="$MPSFW_ROOT/build/device-handshake"
failures=0
pass() { echo "PASS: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

record_device_machine "$out/machine.txt"
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$MPSFW_JOBS" --target solver test_step_handshake peer_wait_probe \
  > "$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"
solver="$build/apps/solver"

# Every rank of a job still there at the end (a stopped one) is killed.
pids=()
cleanup_ranks() {
  local p
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
  done
  pids=()
}
trap 'cleanup_ranks; tar czf "${OUT:-$MPSFW_ROOT/device-logs}/handshake.tgz" -C "$(dirname "$out")" handshake' EXIT

if has tests; then
  MPSFW_REQUIRE_GPU=1 timeout 120 mpirun -np 1 "$build/tests/test_step_handshake" \
    > "$out/test_step_handshake.log" 2>&1
  rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|OK \]|FAILED \]" "$out/test_step_handshake.log"
  [ "$rc" -eq 0 ] && pass "test_step_handshake (host and CUDA cases)" ||
    fail "test_step_handshake exited $rc"
  timeout 150 bash "$MPSFW_ROOT/tests/mpi/peer_wait.sh" "$out/peer_wait" \
    "$build/tests/peer_wait_probe" mpirun -np 3 > "$out/peer_wait.log" 2>&1
  rc=$?
  tail -1 "$out/peer_wait.log"
  [ "$rc" -eq 0 ] && pass "tests/mpi/peer_wait.sh (host stand-in)" ||
    fail "tests/mpi/peer_wait.sh exited $rc"
fi

# stall NAME INPUT SETTINGS...: a control run of 20 steps (its report must say
# GPU-side waits), then the same with far more steps, rank 1 SIGSTOPped once
# the run is a few seconds in, and the checks above.
stall() {
  local name=$1 input=$2
  shift 2
  local log="$out/$name.log" p rank start rc elapsed lines others step
  timeout 300 mpirun -np 4 "$solver" "$input" --backend cuda --mps on "$@" --set run.steps=20 \
    > "$out/${name}_control.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] || ! grep -q "GPU-side waits" "$out/${name}_control.log"; then
    fail "$name: the control run (exit $rc) did not order its same-GPU halos by GPU-side waits"
    grep -iE "halo|ghost|error" "$out/${name}_control.log" | head -5
    return
  fi
  mpirun -np 4 "$solver" "$input" --backend cuda --mps on "$@" --set run.steps=100000000 \
    --set run.peer_wait_seconds="$wait_s" > "$log" 2>&1 &
  local job=$!
  for _ in $(seq 1 600); do
    grep -q '^mpsfw: \(heat\|md\)' "$log" 2>/dev/null && break
    sleep 0.1
  done
  sleep 5
  # mpirun's children only: the node's MPS watchdog runs the same command line
  # (a fork of the leader, adopted by init) and must live to tear MPS down.
  for p in $(pgrep -P "$job" -f "^$solver $input"); do
    pids+=("$p")
    rank=$(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [ "$rank" = 1 ] && kill -STOP "$p" && echo "$name: SIGSTOP to rank 1 (pid $p)"
  done
  start=$SECONDS
  while kill -0 "$job" 2>/dev/null && [ $((SECONDS - start)) -lt $((wait_s + 90)) ]; do
    sleep 0.5
  done
  elapsed=$((SECONDS - start))
  if kill -0 "$job" 2>/dev/null; then
    cleanup_ranks
    kill -KILL "$job" 2>/dev/null
    wait "$job"
    fail "$name: still running $elapsed s after rank 1 stopped (the others hang)"
    return
  fi
  wait "$job"
  rc=$?
  cleanup_ranks
  grep -E "did not reach|no step after|MPI_ABORT was invoked" "$log" | head -6
  lines=$(grep -c 'did not reach step' "$log")
  step=$(sed -n 's/.*rank 1 did not reach step \([0-9]*\) within.*/\1/p' "$log" | head -1)
  others=$(grep 'did not reach step' "$log" |
    grep -vc "rank 1 did not reach step $step within run.peer_wait_seconds = $wait_s s")
  # A rank blocked in MPI with the stopped one (MD's rebuilds) is ended by the
  # loop's stall watch instead: its lines come from the other ranks only.
  local stalls stalled_self
  stalls=$(grep -c "no step after step [0-9]* finished within $((2 * wait_s)) s" "$log")
  stalled_self=$(grep -c "error on rank 1: no step after" "$log")
  if [ "$lines" -eq 0 ] && [ "$stalls" -ge 1 ] && [ "$stalled_self" -eq 0 ]; then
    step="(stall watch: $stalls line(s), none from rank 1)"
  fi
  [ "$rc" -ne 0 ] || fail "$name: exit 0 although rank 1 never came back"
  [ "$elapsed" -le $((2 * wait_s + 30)) ] || fail "$name: the job took $elapsed s to end after the stop"
  [ -n "$step" ] || fail "$name: no line names rank 1 as the rank that did not arrive, and no stall line"
  [ "$others" -eq 0 ] || fail "$name: a line names another rank or step than rank 1, step $step"
  # The node's watchdog stops the MPS daemon once the ranks are gone.
  local left daemons
  for _ in $(seq 1 30); do
    left=$(pgrep -fc "^$solver $input" || true)
    daemons=$(pgrep -fc nvidia-cuda-mps-control || true)
    [ "$left" -eq 0 ] && [ "$daemons" -eq 0 ] && break
    sleep 0.5
  done
  [ "$left" -eq 0 ] || fail "$name: $left rank(s) left after the job ended"
  [ "$daemons" -eq 0 ] || fail "$name: $daemons MPS daemon(s) left after the job ended"
  [ "$rc" -ne 0 ] && [ "$elapsed" -le $((2 * wait_s + 30)) ] && [ -n "$step" ] &&
    [ "$others" -eq 0 ] && [ "$left" -eq 0 ] && [ "$daemons" -eq 0 ] &&
    pass "$name: rank 1 stopped; the job ended (exit $rc) $elapsed s later with $lines line(s)" \
      "naming rank 1 and step $step; no rank or daemon left"
}

if has heat; then
  stall heat "$MPSFW_ROOT/inputs/heat_default.h5" --halo ipc --set heat.nx=128 \
    --set heat.ny=128 --set heat.nz=128 --set run.diag_every=0
fi
if has md; then
  stall md "$MPSFW_ROOT/inputs/md_lj.h5" --set run.halo=ipc --set run.diag_every=0
fi

echo "handshake check: $failures failure(s)"
[ "$failures" -eq 0 ]
