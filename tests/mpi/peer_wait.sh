#!/usr/bin/env bash
# A dead neighbour never hangs the others (docs/mps.md), host stand-in for a
# GPU: runs peer_wait_probe on NP ranks (a line on one made-up GPU); rank 1
# stops itself (SIGSTOP) before step 5 and the deadline is 2 s. Passes when the
# job ends non-zero within BOUND seconds (an unbounded wait hangs until
# `timeout` ends it), every "did not reach" line names rank 1 and step 5, and
# there is at least one. Every probe process still there at the end (a stopped
# one) is killed.
#   peer_wait.sh WORKDIR PROBE MPIEXEC NP_FLAG NP [PREFLAGS...]
set -uo pipefail
work=$1 probe=$2 mpiexec=$3 np_flag=$4 np=$5
shift 5
seconds=2 bound=30 limit=90
rm -rf "$work" && mkdir -p "$work/pids" || exit 2

cleanup() {
  local f pid
  for f in "$work"/pids/*.pid; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    # Only a probe of ours: the id may have been reused since.
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$(basename "$probe" | cut -c1-15)" ]; then
      kill -KILL "$pid" 2>/dev/null
    fi
  done
}
trap cleanup EXIT

start=$(date +%s)
timeout --kill-after=5 "$limit" "$mpiexec" "$np_flag" "$np" "$@" "$probe" "$work/pids" 1 5 "$seconds" \
  >"$work/out" 2>"$work/err"
rc=$?
elapsed=$(($(date +%s) - start))
cat "$work/out" "$work/err"

fail() {
  echo "FAIL: $*"
  exit 1
}
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
  fail "the job still ran after ${limit} s (exit $rc): the others hang on the stopped rank"
[ "$rc" -ne 0 ] || fail "the job exited 0 although rank 1 never came back"
[ "$elapsed" -le "$bound" ] || fail "the job took ${elapsed} s to end, more than ${bound} s"
lines=$(grep -c 'did not reach step' "$work/err")
[ "$lines" -ge 1 ] || fail "no message names the rank that did not arrive"
expected="rank 1 did not reach step 5 within run.peer_wait_seconds = $seconds s"
others=$(grep 'did not reach step' "$work/err" | grep -vc "$expected")
[ "$others" -eq 0 ] || fail "a message names another rank or step than: $expected"
echo "PASS: the job ended (exit $rc) in ${elapsed} s with: $expected ($lines line(s))"
