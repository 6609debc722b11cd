#!/usr/bin/env bash
# mpsfw-run with programs that are not ours, on the GPU machine (docs/mps.md,
# "Any program"), in one command. THIRDPARTY holds their sources, fetched
# beforehand into a git-ignored folder (nothing of them enters mpsfw):
#   THIRDPARTY/CloverLeaf     github.com/UoB-HPC/CloverLeaf (MPI + CUDA model)
#   THIRDPARTY/cuda-samples   github.com/NVIDIA/cuda-samples (Common/,
#                             Samples/1_Utilities/deviceQuery)
# Builds mpsfw-run and mpsctl (Release, sm_90), CloverLeaf's CUDA model with
# MPI (halos staged through the host: --staging-buffer true) and deviceQuery,
# then the parts asked, in order:
#   sms      deviceQuery through mpsfw-run --mps on at 1, 8, 16 ranks: the
#            SMs each rank's program sees (the cap), verified clients
#   clover   CloverLeaf clover_bm4_short at 1, 8, 16 ranks, MPS on and off:
#            its own wall clock, PASSED, verified clients
#   kill     CloverLeaf clover_bm16 at 8 ranks under MPS, local rank 0's and
#            then local rank 3's program SIGKILLed: how long the job takes to
#            end, and nothing left (programs, wrappers, daemons, folders)
#   advise   bench/advise_vs_sweep.sh command: advise --command against the
#            sweep of the same points (1/GPU, 2-16 time-sliced and MPS at the
#            auto cap, 3 repeats), timed by CloverLeaf's wall clock
#   scripts/device_any_program_check.sh THIRDPARTY ["sms clover kill advise"]
# Logs: $OUT/any-program (tarred into $OUT/any-program.tgz).
set -uo pipefail
source "$(dirname "$0")/env.sh"
third=$(cd "${1:?usage: device_any_program_check.sh THIRDPARTY [PARTS]}" && pwd)
parts=${2:-sms clover kill advise}
device_logs any-program
record_device_machine "$out/machine.txt"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
build=$MPSFW_ROOT/build/device-any-program
{ cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF -DMPSFW_BUILD_TESTS=OFF -DMPSFW_BUILD_BENCH=OFF &&
  cmake --build "$build" -j "$(nproc)" --target run mpsctl; } > "$out/build-mpsfw.log" 2>&1 ||
  { tail -30 "$out/build-mpsfw.log"; exit 1; }
{ cmake -S "$third/CloverLeaf" -B "$build/clover" "${gen[@]}" -DMODEL=cuda -DENABLE_MPI=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDA_ARCH=sm_90 -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$build/clover" -j "$(nproc)"; } > "$out/build-clover.log" 2>&1 ||
  { tail -30 "$out/build-clover.log"; exit 1; }
samples=$third/cuda-samples
"$nvcc" -arch=sm_90 -I "$samples/Common" "$samples/Samples/1_Utilities/deviceQuery/deviceQuery.cpp" \
  -o "$build/deviceQuery" > "$out/build-devicequery.log" 2>&1 || { tail -20 "$out/build-devicequery.log"; exit 1; }
run=$build/apps/run clover=$build/clover/cuda-cloverleaf decks=$third/CloverLeaf/InputDecks
work=$(mktemp -d)  # CloverLeaf writes clover.out where it runs
cd "$work" || exit 1
leftovers() {
  echo "programs $(pgrep -x cuda-cloverleaf | wc -l), wrappers $(pgrep -f "$run" | wc -l)," \
    "MPS processes $(pgrep -f nvidia-cuda-mps | wc -l), folders: $(ls -d "${TMPDIR:-/tmp}"/mpsfw-* 2>/dev/null | wc -l)," \
    "GPU compute apps $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)"
}

if has sms; then
  for np in 1 8 16; do
    timeout 60 mpirun -np "$np" --bind-to none "$run" --mps on -- "$build/deviceQuery" > "$out/sms-np$np.log" 2>&1
    echo "$np rank(s), exit $?: $(grep -h 'Multiprocessors' "$out/sms-np$np.log" | sort | uniq -c | tr -s ' ');" \
      "$(grep -h '^mpsfw-run:' "$out/sms-np$np.log" | head -1)" | tee -a "$out/sms.txt"
  done
fi
if has clover; then
  for np in 1 8 16; do
    for mps in on off; do
      log=$out/clover-np$np-mps-$mps.log
      timeout 120 mpirun -np "$np" --bind-to none "$run" --mps "$mps" -- "$clover" \
        --file "$decks/clover_bm4_short.in" --staging-buffer true > "$log" 2>&1
      echo "$np rank(s), MPS $mps, exit $?: $(grep -h 'Wall clock' "$log" | tail -1);" \
        "$(grep -h 'PASSED\|FAILED' "$log" | head -1); $(grep -h '^mpsfw-run:' "$log" | head -1)" | tee -a "$out/clover.txt"
    done
  done
fi
if has kill; then
  for victim_rank in 0 3; do
    log=$out/kill-rank$victim_rank.log
    timeout 150 mpirun -np 8 --bind-to none "$run" --mps on -- "$clover" --file "$decks/clover_bm16.in" \
      --staging-buffer true > "$log" 2>&1 &
    job=$!
    for _ in $(seq 60); do [ "$(pgrep -x cuda-cloverleaf | wc -l)" -ge 8 ] && break; sleep 0.5; done
    sleep 4
    victim=""
    for p in $(pgrep -x cuda-cloverleaf); do
      tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_LOCAL_RANK=$victim_rank" && victim=$p
    done
    {
      echo "before: $(leftovers)"
      t0=$(date +%s.%N)
      kill -9 "$victim"
      wait "$job"
      rc=$?
      echo "local rank $victim_rank's program (pid $victim) SIGKILLed: mpirun exit $rc" \
        "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }') s later"
      sleep 2
      echo "after: $(leftovers)"
      grep -h '^mpsfw-run' "$log"
    } | tee -a "$out/kill.txt"
  done
fi
if has advise; then
  COMMAND="$clover --file $decks/clover_bm4_short.in --staging-buffer true" TIME='Wall clock ([0-9.eE+-]+)' \
    MODES=timeslice,mps-caps RANKS_PER_GPU=1,2,4,8,16 REPEATS=3 \
    bash "$MPSFW_ROOT/bench/advise_vs_sweep.sh" "$build" "$out/advise" command | tee "$out/advise.txt"
fi
rm -rf "$work"
