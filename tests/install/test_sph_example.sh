#!/usr/bin/env bash
# examples/sph, a particle method whose pair forces read the neighbours'
# velocities and densities, built by CI against the *installed* mpsfw:
# `cmake --install` of this build into a fresh prefix, the example configured
# with find_package(mpsfw) only, built; its physics check (sph_check), then an
# input written by --write-input:
#   - run at 1 and at 4 ranks: its pair sums are fixed point, so the final
#     positions and velocities are the same bits on both;
#   - the Taylor-Green vortex's kinetic energy against the exact decay;
#   - stopped by SIGUSR1 on 2 ranks, resumed from the checkpoint on 3, against
#     one run on 1 rank.
#
#   tests/install/test_sph_example.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/install_lib.sh" "$@"

install_into "$WORK/prefix"
cmake -S "$repo/examples/sph" -B "$WORK/sph" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
      > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure examples/sph with find_package(mpsfw)"; }
cmake --build "$WORK/sph" -j 2 > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "build examples/sph"; }
bin="$WORK/sph"

"$MPIEXEC" -n 1 "$bin/sph_check" > "$WORK/check.log" 2>&1 || { cat "$WORK/check.log"; fail "sph_check"; }
echo "sph_check: $(grep -c '^ok' "$WORK/check.log") physics checks ok"

# The template: 24 x 24 x 14 particles, dt = 1e-3.
"$bin/sph_solver" --write-input "$WORK/in.h5" --set run.steps=20 --set run.output_every=10 \
  > /dev/null || fail "--write-input"
for np in 1 4; do
  "$MPIEXEC" -n "$np" "$bin/sph_solver" "$WORK/in.h5" --backend host --output "$WORK/out$np.h5" \
    --set run.checkpoint_file="$WORK/end$np.h5" > "$WORK/run$np.log" 2>&1 || { cat "$WORK/run$np.log"; fail "sph_solver at $np ranks"; }
  grep -q "^mpsfw: sph 8064 particles, 20 steps on $np ranks" "$WORK/run$np.log" || { cat "$WORK/run$np.log"; fail "no banner at $np ranks"; }
done
"$bin/sph_check" compare "$WORK/end1.h5" "$WORK/end4.h5" 0 > "$WORK/compare.log" 2>&1 || {
  cat "$WORK/compare.log"; fail "4 ranks differ from 1 rank (fixed-point sums: the same bits expected)"; }
for np in 1 4; do
  [ -s "$WORK/out$np.h5" ] && [ -s "$WORK/out$np.xmf" ] || fail "no trajectory out$np.h5 with its out$np.xmf"
  for name in id velocity density; do
    grep -q "Attribute Name=\"$name\"" "$WORK/out$np.xmf" || fail "out$np.xmf has no attribute $name"
  done
done
echo "sph example: 1 rank vs 4 ranks after 20 steps:"; cat "$WORK/compare.log"
# The Kokkos store (where mpsfw has the Kokkos backend): the same bits as the host's.
if grep -q "sph_model: built for --backend kokkos" "$WORK/configure.log"; then
  "$MPIEXEC" -n 2 "$bin/sph_solver" "$WORK/in.h5" --backend kokkos \
    --set run.checkpoint_file="$WORK/kokkos2.h5" > "$WORK/kokkos2.log" 2>&1 || { cat "$WORK/kokkos2.log"; fail "sph_solver --backend kokkos at 2 ranks"; }
  "$bin/sph_check" compare "$WORK/end1.h5" "$WORK/kokkos2.h5" 0 > "$WORK/compare-kokkos.log" 2>&1 || {
    cat "$WORK/compare-kokkos.log"; fail "the Kokkos store at 2 ranks differs from the host's at 1 rank"; }
  echo "sph example: Kokkos at 2 ranks vs host at 1 rank:"; cat "$WORK/compare-kokkos.log"
else
  echo "sph example: SKIPPED the Kokkos store (this mpsfw has no Kokkos backend)"
fi

# The Taylor-Green vortex to t = 0.15 on 2 ranks: the kinetic energy within 2 %
# of exp(-4 nu k^2 t) at every diagnostics row.
"$MPIEXEC" -n 2 "$bin/sph_solver" "$WORK/in.h5" --backend host --set run.steps=150 \
  --report "$WORK/vortex.json" > "$WORK/vortex.log" 2>&1 || { cat "$WORK/vortex.log"; fail "the vortex run"; }
python3 - "$WORK/vortex.json" <<'PY' || fail "the vortex's kinetic energy departs from the exact decay by more than 2 %"
import json, sys
rows = json.load(open(sys.argv[1]))["diagnostics"]
worst = max(abs(r["kinetic_per_particle"] / r["kinetic_exact"] - 1) for r in rows)
print("sph example: Taylor-Green kinetic energy to t = %.3g: largest departure %.2f %% (%d rows; bound 2 %%)"
      % (rows[-1]["time"], 100 * worst, len(rows)))
sys.exit(0 if worst <= 0.02 and rows[-1]["time"] >= 0.15 else 1)
PY

# Stopped by SIGUSR1 on 2 ranks with a checkpoint (exit 138), resumed on 3
# ranks for 5 more steps, against one run on 1 rank: on another layout the
# resumed run rebuilds its lists at the checkpoint's step (the positions
# folded into the box), so positions agree within rounding.
stop_at_a_checkpoint "$bin/sph_solver" "$WORK/in.h5" sph
step=$STOP_STEP
last=$((step + 5))
"$MPIEXEC" -n 3 "$bin/sph_solver" "$WORK/ck.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/resumed.h5" > "$WORK/resumed.log" 2>&1 || { cat "$WORK/resumed.log"; fail "resuming ck.h5 on 3 ranks"; }
"$MPIEXEC" -n 1 "$bin/sph_solver" "$WORK/in.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/straight.h5" > "$WORK/straight.log" 2>&1 || { cat "$WORK/straight.log"; fail "the straight run to step $last"; }
"$bin/sph_check" compare "$WORK/straight.h5" "$WORK/resumed.h5" 1e-9 > "$WORK/compare-resume.log" 2>&1 || {
  cat "$WORK/compare-resume.log"; fail "step $last: resumed (2 then 3 ranks) differs from one run on 1 rank"; }
echo "sph example: stopped at step $step, resumed on 3 ranks to $last vs 1 rank:"; cat "$WORK/compare-resume.log"
# On the stopped run's own layout (2 ranks) the checkpoint resumes exactly
# (/sph/resume: the same order, ghosts and lists): the same bits as one run.
"$MPIEXEC" -n 2 "$bin/sph_solver" "$WORK/ck.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/exact.h5" > "$WORK/exact.log" 2>&1 || { cat "$WORK/exact.log"; fail "resuming ck.h5 on 2 ranks"; }
"$bin/sph_check" compare "$WORK/straight.h5" "$WORK/exact.h5" 0 > "$WORK/compare-exact.log" 2>&1 || {
  cat "$WORK/compare-exact.log"; fail "step $last: resumed on the same 2 ranks differs from one run"; }
! grep -q "is not read" "$WORK/exact.log" || { cat "$WORK/exact.log"; fail "a checkpoint's /sph/resume was warned of as unread"; }
echo "sph example: resumed on the same 2 ranks to $last vs 1 rank:"; cat "$WORK/compare-exact.log"
