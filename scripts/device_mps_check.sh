#!/usr/bin/env bash
# The MPS helper against the real daemon, in one command on the GPU machine:
# build, 8 ranks on one GPU with mps=on (every rank verified, SMs as the cap
# says, nvidia-smi shows the MPS server), nothing left after the run, nothing
# left after a rank or the leader is killed, a real GPU fault named by rank, a
# bring-up that times out (the daemon stopped before its pid file, the log kept),
# two mpsctl start of one job; then the scaling benchmark.
#   scripts/device_mps_check.sh [--no-bench | --bench-only]
# MPSFW_BUILD_TESTS=ON also runs the whole ctest suite; REPEATS, BENCH_BLOCKS,
# BENCH_RANKS, BENCH_SECONDS shape the benchmark (bench/mps_scaling.sh).
set -uo pipefail
source "$(dirname "$0")/env.sh"
out="${OUT:-$MPSFW_ROOT/device-logs}"   # what comes back: few files
logs=/tmp/mpsfw-device-logs                # everything else
mkdir -p "$out" "$logs"
build="$MPSFW_ROOT/build/device"
export TMPDIR=/tmp/mpsfw-mps-check
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
targets=(--target solver mpsctl mps_fault_probe)
[ "${MPSFW_BUILD_TESTS:-OFF}" = ON ] && targets=()
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_BUILD_TESTS=ON > "$logs/configure.log" 2>&1 &&
  cmake --build "$build" -j 16 "${targets[@]}" > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
echo "build: ok"
solver="$build/apps/solver"
input="$MPSFW_ROOT/inputs/heat_default.h5"
leftovers() {
  # Daemons and session folders that outlived a run.
  echo "  daemons left: $(pgrep -fc nvidia-cuda-mps-control || true)," \
       "servers left: $(pgrep -fc nvidia-cuda-mps-server || true)," \
       "session folders left: $(ls -d "$TMPDIR"/mpsfw-mps-* 2>/dev/null | wc -l)"
}

if [ "${1:-}" != "--bench-only" ]; then
echo "== 8 ranks, one GPU, --mps on"
mpirun -np 8 "$solver" "$input" --mps on --set heat.nx=256 --set heat.ny=256 --set heat.nz=256 \
  --set run.steps=3000 --report "$out/mps8.json" > "$out/mps8.log" 2>&1 &
run=$!
sleep 6
nvidia-smi > "$out/mps8_nvidia_smi.txt" 2>&1
grep -E "mps-server|M\+C|C  " "$out/mps8_nvidia_smi.txt" | head -12
# Servers and their clients per GPU (with two GPUs: each rank on its own GPU's only).
"$build/apps/mpsctl" status --dir "$TMPDIR" | tee "$out/mps8_status.txt"
wait $run
echo "  exit $?"
grep -E "MPS|local rank|steps  |throughput" "$out/mps8.log"
leftovers

# A real GPU fault: the job must end, and its message must name the faulting
# rank from the MPS server's log.
echo "== 4 ranks, --mps on, rank 1 writes through a null pointer after 2 s"
mpirun -np 4 "$build/tests/mps/mps_fault_probe" --fault-rank 1 --after 2 --seconds 30 \
  --keep-log "$out/fault_server.log" > "$out/fault.log" 2>&1
echo "  mpirun exit $?"
grep -E "^mpsfw: error|^probe:" "$out/fault.log" | cut -c1-600
sleep 5
leftovers

# kill_one N: 8 ranks with --mps on; the Nth solver process (0 = the leader)
# gets SIGKILL after 5 s; then nothing may be left.
kill_one() {
  echo "== 8 ranks, --mps on, local rank $1 killed with SIGKILL after 5 s"
  mpirun -np 8 "$solver" "$input" --mps on --set heat.nx=256 --set heat.ny=256 \
    --set heat.nz=256 --set run.steps=200000 > "$logs/kill$1.log" 2>&1 &
  local run=$!
  sleep 5
  ps -eo pid,args | grep "[a]pps/solver" | awk -v n=$(($1 + 1)) 'NR==n {print $1}' | xargs -r kill -9
  wait $run
  echo "  mpirun exit $?"
  sleep 8
  leftovers
}
kill_one 3
kill_one 0

echo "== mpsctl start / solver reuses / mpsctl stop"
eval "$("$build/apps/mpsctl" start --ranks-per-gpu 4)"
"$build/apps/mpsctl" status
mpirun -np 4 "$solver" "$input" --mps on --report "$logs/reuse.json" > "$logs/reuse.log" 2>&1
echo "  solver exit $?"
grep -E "MPS" "$logs/reuse.log" | head -3
"$build/apps/mpsctl" status | head -8
"$build/apps/mpsctl" stop
unset MPSFW_MPS_SESSION
leftovers

echo "== bring-up that times out (mps.timeout_seconds = 0.01): the real daemon, no pid file yet"
mpirun -np 2 "$solver" "$input" --mps on --set mps.timeout_seconds=0.01 > "$logs/timeout.log" 2>&1
echo "  solver exit $? (expected non-zero)"
grep -m1 "^mpsfw: error" "$logs/timeout.log"
for named in $(grep -m1 "^mpsfw: error" "$logs/timeout.log" | grep -oE "/[^ ;]*\.log"); do
  echo "  it names $named: $([ -e "$named" ] && echo "exists, $(wc -l < "$named") lines" || echo "absent")"
done
sleep 1
leftovers

echo "== two mpsctl start of one job at once"
("$build/apps/mpsctl" start --job twice > "$logs/first.out" 2>&1; echo "  first: exit $?") &
sleep 0.05
"$build/apps/mpsctl" start --job twice > "$logs/second.out" 2>&1
echo "  second: exit $?: $(cat "$logs/second.out")"
wait
"$build/apps/mpsctl" stop --job twice
leftovers

fi

ctest_rc=0
if [ "${MPSFW_BUILD_TESTS:-OFF}" = ON ]; then
  # A GPU test that finds no GPU here fails instead of skipping
  # (tests/support/gpu_skip.hpp).
  (cd "$build" && MPSFW_REQUIRE_GPU=1 ctest -j 8 --output-on-failure > "$logs/ctest.log" 2>&1)
  ctest_rc=$?
  echo "ctest: exit $ctest_rc"
  grep -E "tests passed|\*\*\*|Failed" "$logs/ctest.log" | head -20
fi

if [ "${1:-}" != "--no-bench" ]; then
  echo "== scaling benchmark"
  "$MPSFW_ROOT/bench/mps_scaling.sh" "$build" "$logs/scaling" "${BENCH_BLOCKS:-64 128}" \
    "${BENCH_RANKS:-1 2 4 8 16}" 2>&1 | tee "$out/scaling.txt" | tail -40
  # Only a few files come back from the GPU machine: one archive of the sweeps.
  tar czf "$out/scaling.tgz" -C "$logs" scaling 2>/dev/null
fi
# The benchmark is for reading; the check passes or fails as ctest did.
exit "$ctest_rc"
