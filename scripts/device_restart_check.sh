#!/usr/bin/env bash
# Restart and stop signals on the GPU machine, in one command (docs/restart.md):
#   1. heat 128^3 on the CUDA backend: 40 steps straight vs 20 steps, then the
#      checkpoint resumed on another rank count (bit for bit: the checkpoints'
#      /heat/u0 hashes from mkinput --describe must match);
#   2. 8 ranks under MPS (--mps on), SIGTERM to one rank: exit 143, the stop
#      line, a checkpoint, no .partial, no MPS daemon or server left; the
#      checkpoint resumes on 4 ranks;
#   3. md (in.lj, 32k atoms) on the CUDA backend under MPS, 4 ranks (same-GPU
#      ghosts): 50 steps straight vs 23 steps, then resumed on the same 4 ranks
#      (bit for bit: /md/positions and /md/velocities hashes must match) and on
#      1 rank (a new layout: close, not identical).
# Logs in $OUT.
#   scripts/device_restart_check.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
out="${OUT:-$MPSFW_ROOT/device-logs}/restart"
mkdir -p "$out"
trap 'tar czf "${OUT:-$MPSFW_ROOT/device-logs}/restart.tgz" -C "$(dirname "$out")" restart' EXIT
build="$MPSFW_ROOT/build/device"
export TMPDIR=/tmp/mpsfw-restart-check OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$MPSFW_ROOT" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_BUILD_TESTS=OFF > "$out/configure.log" 2>&1 &&
  cmake --build "$build" -j 16 --target solver mkinput > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
echo "build: ok"
solver="$build/apps/solver" mkinput="$build/apps/mkinput"
input="$MPSFW_ROOT/inputs/heat_default.h5"
cd "$TMPDIR" || exit 1
grid=(--set heat.nx=128 --set heat.ny=128 --set heat.nz=128 --backend cuda)
u0() { "$mkinput" --describe "$1" | grep '/heat/u0'; }

echo "== 1. heat on the GPU: straight vs checkpoint + resume"
mpirun -np 4 "$solver" "$input" "${grid[@]}" --set run.steps=40 --set run.checkpoint_file=whole.h5 \
  > "$out/whole.log" 2>&1; echo "  straight, 4 ranks: exit $?"
mpirun -np 4 "$solver" "$input" "${grid[@]}" --set run.steps=20 --set run.checkpoint_file=half.h5 \
  > "$out/half.log" 2>&1; echo "  first half, 4 ranks: exit $?"
for np in 1 8; do
  mpirun -np "$np" "$solver" half.h5 --backend cuda --set run.steps=40 \
    --set run.checkpoint_file="resumed$np.h5" > "$out/resumed$np.log" 2>&1
  echo "  resumed on $np ranks: exit $?; /heat/u0 $([ "$(u0 whole.h5)" = "$(u0 "resumed$np.h5")" ] &&
    echo identical || echo DIFFERS) to the straight run"
done

echo "== 2. SIGTERM to one of 8 ranks under MPS"
mpirun -np 8 "$solver" "$input" --mps on --backend cuda --set heat.nx=256 --set heat.ny=256 \
  --set heat.nz=256 --set run.steps=100000000 --set run.checkpoint_file=sig.h5 --output O.h5 \
  --report R.json > "$out/sig.log" 2>&1 &
job=$!
sleep 12
pkill -TERM -n -f "$solver $input"
wait "$job"; rc=$?
echo "  exit $rc (expected 143)"
grep -E "^mpsfw: stopped by|MPS  |verified" "$out/sig.log" | head -4
ls -la sig.h5 O.h5 R.json 2>&1 | sed 's/^/  /'
echo "  .partial files: $(find . -name '*.partial' | wc -l)"
sleep 2
echo "  daemons left: $(pgrep -fc nvidia-cuda-mps-control || true), servers left: $(pgrep -fc nvidia-cuda-mps-server || true)"
mpirun -np 4 "$solver" sig.h5 --backend cuda --mps on \
  --set run.steps="$(($(sed -n 's/.* at step \([0-9]*\);.*/\1/p' "$out/sig.log") + 10))" \
  > "$out/sig_resumed.log" 2>&1
echo "  resumed on 4 ranks: exit $?; $(grep -E '^  steps ' "$out/sig_resumed.log")"

echo "== 3. md on the GPU under MPS: straight vs checkpoint + resume"
md_input="$MPSFW_ROOT/inputs/md_lj.h5"
md=(--backend cuda --mps on --set md.rebuild_every=7 --set run.diag_every=0)
state() { "$mkinput" --describe "$1" | grep -E '/md/(positions|velocities)'; }
mpirun -np 4 "$solver" "$md_input" "${md[@]}" --set run.steps=50 --set run.checkpoint_file=md_whole.h5 \
  > "$out/md_whole.log" 2>&1; echo "  straight, 4 ranks: exit $?"
mpirun -np 4 "$solver" "$md_input" "${md[@]}" --set run.steps=23 --set run.checkpoint_file=md_half.h5 \
  > "$out/md_half.log" 2>&1; echo "  first half, 4 ranks: exit $?"
for np in 4 1; do
  mpirun -np "$np" "$solver" md_half.h5 --backend cuda --mps on --set run.steps=50 \
    --set run.checkpoint_file="md_resumed$np.h5" > "$out/md_resumed$np.log" 2>&1
  echo "  resumed on $np ranks: exit $?; positions and velocities $([ "$(state md_whole.h5)" = \
    "$(state "md_resumed$np.h5")" ] && echo identical || echo differ) to the straight run"
done
grep -E "^ +50 " "$out/md_whole.log" "$out"/md_resumed*.log | sed 's/^/  /'
