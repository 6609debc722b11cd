#!/usr/bin/env bash
# The MD checks of one GPU session, in one command (the GPU machine is lent
# briefly and starts bare): build the solver and the MD tests for sm_90, run
# host vs CUDA, the shipped md_lj.h5 on CUDA at 1, 2, 3, 4, 8 ranks, same-GPU
# ghosts vs MPI ghosts under MPS at 8 ranks (ipc), 1M atoms on 8 and 16 ranks
# under MPS with a 30 s peer wait: each must finish (big: a launch whose every
# block waited for its neighbours filled the GPU and stalled there), the in.lj
# benchmark (bench/md_lj.sh) at 1 rank (bench) and with MPS at 8 and 16 ranks
# (mps), the same at 256k and 1M atoms with caps of 50 % and 100 % against auto
# (caps; docs/archive/performance-journal.md), and the
# per-kernel times of a short run (ncu; NCU_CELLS FCC cells a side, default 64:
# 1M atoms). Logs and a tarball in $OUT.
#   scripts/device_md_check.sh [PARTS="tests shipped ipc big bench mps caps kernels"]
set -uo pipefail
source "$(dirname "$0")/env.sh"
device_logs md
parts=${1:-tests shipped ipc big bench mps caps kernels}
build="$MPSFW_ROOT/build/device"

record_device_machine "$out/machine.txt"

cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j 16 --target solver test_md_backends test_md_ranks > "$out/build.log" 2>&1 ||
  { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"

if has tests; then
  for np in 1 2 4; do
    timeout 120 mpirun -np "$np" "$build/tests/test_md_backends" > "$out/test_md_backends_np$np.log" 2>&1
    echo "test_md_backends np=$np: exit $?"
    grep -E "host vs cuda|OK|FAILED|SKIPPED" "$out/test_md_backends_np$np.log"
  done
fi

if has shipped; then
  for np in 1 2 3 4 8; do
    timeout 200 bash "$MPSFW_ROOT/tests/cli/md_shipped_input.sh" --solver "$build/apps/solver" \
      --input "$MPSFW_ROOT/inputs/md_lj.h5" --np "$np" --backend cuda --steps 1000 \
      --mpiexec mpirun --np-flag -np --timeout 150 --workdir "$out/shipped_np$np" \
      > "$out/shipped_np$np.log" 2>&1
    echo "shipped md_lj.h5 on cuda, np=$np: exit $?"
    grep -E "PASS|FAIL|total energy|    - " "$out/shipped_np$np.log"
  done
fi

if has ipc; then
  # Under MPS (GPU-side waits): same-GPU ghosts vs MPI ghosts, 8 ranks, checkpoints equal bit for bit.
  for halo in mpi auto; do
    timeout 120 mpirun -np 8 "$build/apps/solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend cuda \
      --mps on --set run.steps=300 --set run.diag_every=100 --set run.halo=$halo \
      --set run.checkpoint_file="$out/ck_$halo.h5" > "$out/ipc_$halo.log" 2>&1
    echo "8 ranks, run.halo=$halo: exit $?"
    grep -E "halo messages|MPS  " "$out/ipc_$halo.log"
  done
  python3 "$MPSFW_ROOT/scripts/compare_md_checkpoints.py" "$out/ck_mpi.h5" "$out/ck_auto.h5"
fi

if has big; then
  for np in 8 16; do
    timeout 150 mpirun -np "$np" --bind-to none "$build/apps/solver" "$MPSFW_ROOT/inputs/md_lj.h5" \
      --backend cuda --mps on --set md.cells_x=64 --set md.cells_y=64 --set md.cells_z=64 \
      --set run.steps=200 --set run.diag_every=100 --set run.peer_wait_seconds=30 \
      > "$out/big_np$np.log" 2>&1
    echo "1M atoms, $np ranks under MPS: exit $?"
    grep -E "throughput|error" "$out/big_np$np.log" | head -3
  done
fi

if has bench; then
  STEPS=1000 timeout 300 bash "$MPSFW_ROOT/bench/md_lj.sh" "$build" "$out/bench1" "20 40 64" "1" \
    > "$out/bench_one_rank.txt" 2>&1
  cat "$out/bench_one_rank.txt"
fi
if has mps; then
  STEPS=1000 timeout 240 bash "$MPSFW_ROOT/bench/md_lj.sh" "$build" "$out/bench_mps" "64" "8 16" \
    > "$out/bench_mps.txt" 2>&1
  cat "$out/bench_mps.txt"
fi

if has caps; then
  for cap in auto 50 100; do
    echo "== MPS caps: mps.active_thread_percentage=$cap"
    SET="--set mps.active_thread_percentage=$cap" STEPS=500 REPEATS=2 timeout 150 bash \
      "$MPSFW_ROOT/bench/md_lj.sh" "$build" "$out/caps_$cap" "40 64" "8 16" | cut -c1-70
  done
fi

if has kernels && command -v ncu >/dev/null; then
  timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum --csv --launch-skip 200 \
    --launch-count 120 "$build/apps/solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend cuda --mps off \
    --set md.cells_x=${NCU_CELLS:-64} --set md.cells_y=${NCU_CELLS:-64} \
    --set md.cells_z=${NCU_CELLS:-64} --set run.steps=60 \
    --set run.diag_every=0 > "$out/ncu.csv" 2> "$out/ncu.err"
  echo "ncu: exit $?"
  python3 - "$out/ncu.csv" <<'PY'
import csv, collections, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("no ncu rows")
head = rows[0]
name_i, value_i = head.index("Kernel Name"), head.index("Metric Value")
total = collections.defaultdict(lambda: [0, 0.0])
for r in rows[1:]:
    try:
        v = float(r[value_i].replace(",", ""))
    except ValueError:
        continue
    k = r[name_i].split("(")[0][:60]
    total[k][0] += 1
    total[k][1] += v
for k, (n, ns) in sorted(total.items(), key=lambda kv: -kv[1][1]):
    print("%-60s %5d launches %10.1f us total %8.1f us each" % (k, n, ns / 1e3, ns / 1e3 / n))
PY
fi
