#!/usr/bin/env bash
# examples/brownian, a particle method of one's own, built by CI against the
# *installed* mpsfw: `cmake --install` of this build into a fresh prefix, the
# example configured with find_package(mpsfw) only, built; its physics check
# (brownian_check), then an input written by --write-input run at 1 and at 4
# ranks for 40 steps with a trajectory and a final checkpoint. The noise is a
# hash of (seed, id, step, component), so the ranks draw the same numbers;
# only the order of a particle's force sum may differ between rank counts, so
# the final positions must agree by id within 1e-9 of the box.
#
#   tests/install/test_brownian_example.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/install_lib.sh" "$@"

install_into "$WORK/prefix"
cmake -S "$repo/examples/brownian" -B "$WORK/brownian" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
      > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure examples/brownian with find_package(mpsfw)"; }
cmake --build "$WORK/brownian" -j 2 > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "build examples/brownian"; }
bin="$WORK/brownian"
tolerance=1e-9  # box lengths

"$MPIEXEC" -n 1 "$bin/brownian_check" > "$WORK/check.log" 2>&1 || { cat "$WORK/check.log"; fail "brownian_check"; }
echo "brownian_check: $(grep -c '^ok' "$WORK/check.log") physics checks ok"

# 512 particles at density 1.5 (about 6 overlapping neighbours each).
"$bin/brownian_solver" --write-input "$WORK/in.h5" --set brownian.n=8 --set brownian.density=1.5 \
  --set run.steps=40 --set run.output_every=10 > /dev/null || fail "--write-input"
for np in 1 4; do
  "$MPIEXEC" -n "$np" "$bin/brownian_solver" "$WORK/in.h5" --backend host --output "$WORK/out$np.h5" \
    --set run.checkpoint_file="$WORK/end$np.h5" > "$WORK/run$np.log" 2>&1 || { cat "$WORK/run$np.log"; fail "brownian_solver at $np ranks"; }
  grep -q "^mpsfw: brownian 512 particles, 40 steps on $np ranks" "$WORK/run$np.log" || { cat "$WORK/run$np.log"; fail "no banner at $np ranks"; }
done
# The store is one source compiled per backend: where mpsfw has Kokkos, the
# Kokkos store at 2 ranks agrees with the host at 1 rank; where it has not,
# --backend kokkos is refused before the run, naming the backends it has.
if grep -q "brownian_model: built for --backend kokkos" "$WORK/configure.log"; then
  "$MPIEXEC" -n 2 "$bin/brownian_solver" "$WORK/in.h5" --backend kokkos \
    --set run.checkpoint_file="$WORK/kokkos2.h5" > "$WORK/kokkos2.log" 2>&1 || { cat "$WORK/kokkos2.log"; fail "brownian_solver --backend kokkos at 2 ranks"; }
  "$bin/brownian_check" compare "$WORK/end1.h5" "$WORK/kokkos2.h5" "$tolerance" > "$WORK/compare-kokkos.log" 2>&1 || {
    cat "$WORK/compare-kokkos.log"; fail "Kokkos at 2 ranks differs from the host at 1 rank by more than $tolerance of the box"; }
  echo "brownian example: Kokkos at 2 ranks vs host at 1 rank: $(cat "$WORK/compare-kokkos.log")"
else
  if out=$("$bin/brownian_solver" "$WORK/in.h5" --backend kokkos 2>&1); then
    fail "--backend kokkos was accepted by a brownian built without Kokkos"
  fi
  grep -q "the brownian workload has no kokkos backend (it has host" <<<"$out" || { echo "$out"; fail "the kokkos refusal does not name the brownian's backends"; }
  echo "brownian example: SKIPPED the Kokkos store (this mpsfw has no Kokkos backend)"
fi
"$bin/brownian_check" compare "$WORK/end1.h5" "$WORK/end4.h5" "$tolerance" > "$WORK/compare.log" 2>&1 || {
  cat "$WORK/compare.log"; fail "4 ranks differ from 1 rank by more than $tolerance of the box"; }
for np in 1 4; do
  [ -s "$WORK/out$np.h5" ] && [ -s "$WORK/out$np.xmf" ] || fail "no trajectory out$np.h5 with its out$np.xmf"
  grep -q 'Attribute Name="id"' "$WORK/out$np.xmf" || fail "out$np.xmf has no attribute id"
done
echo "brownian example: 1 rank vs 4 ranks after 40 steps: $(cat "$WORK/compare.log")"

# The time loop's stops and checkpoints (install_lib.sh): 2 ranks stopped at
# a step N with a checkpoint, which resumes on 3 ranks to step N+7 (every rank reading the particles
# its subdomain owns); the result agrees with one run of N+7 steps on 1 rank
# within the same bound.
stop_at_a_checkpoint "$bin/brownian_solver" "$WORK/in.h5" brownian
step=$STOP_STEP
"$bin/brownian_solver" --describe "$WORK/ck.h5" > "$WORK/ck.describe" 2>&1 || { cat "$WORK/ck.describe"; fail "--describe ck.h5"; }
for line in "attribute /step (64-bit integer) = $step" 'attribute /solver (string) = "brownian"' \
            "dataset /brownian/positions [512][3]" "dataset /brownian/ids [512]"; do
  grep -qF "$line" "$WORK/ck.describe" || { cat "$WORK/ck.describe"; fail "--describe ck.h5 has no line '$line'"; }
done
last=$((step + 7))
"$MPIEXEC" -n 3 "$bin/brownian_solver" "$WORK/ck.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/resumed.h5" > "$WORK/resumed.log" 2>&1 || { cat "$WORK/resumed.log"; fail "resuming ck.h5 on 3 ranks"; }
grep -q "steps $step..$last on 3 ranks" "$WORK/resumed.log" || { cat "$WORK/resumed.log"; fail "the resumed banner names no steps $step..$last"; }
grep -q "completed at step $last" "$WORK/resumed.log" || { cat "$WORK/resumed.log"; fail "the resumed run did not complete step $last"; }
"$MPIEXEC" -n 1 "$bin/brownian_solver" "$WORK/in.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/straight.h5" > "$WORK/straight.log" 2>&1 || { cat "$WORK/straight.log"; fail "the straight run to step $last"; }
"$bin/brownian_check" compare "$WORK/straight.h5" "$WORK/resumed.h5" "$tolerance" > "$WORK/compare-resume.log" 2>&1 || {
  cat "$WORK/compare-resume.log"; fail "step $last: resumed (2 then 3 ranks) differs from one run on 1 rank by more than $tolerance of the box"; }
echo "brownian example: stopped by SIGUSR1 at step $step, resumed on 3 ranks to $last vs 1 rank: $(cat "$WORK/compare-resume.log")"
# On the stopped run's own layout (2 ranks) the checkpoint resumes exactly
# (/brownian/resume: the same order, ghosts and lists, so the same force
# sums): the same bits as one run of $last steps on 2 ranks.
"$MPIEXEC" -n 2 "$bin/brownian_solver" "$WORK/ck.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/exact.h5" > "$WORK/exact.log" 2>&1 || { cat "$WORK/exact.log"; fail "resuming ck.h5 on 2 ranks"; }
"$MPIEXEC" -n 2 "$bin/brownian_solver" "$WORK/in.h5" --backend host --set run.steps=$last \
  --set run.checkpoint_file="$WORK/straight2.h5" > "$WORK/straight2.log" 2>&1 || { cat "$WORK/straight2.log"; fail "the straight run to step $last on 2 ranks"; }
"$bin/brownian_check" compare "$WORK/straight2.h5" "$WORK/exact.h5" 0 > "$WORK/compare-exact.log" 2>&1 || {
  cat "$WORK/compare-exact.log"; fail "step $last: resumed on the same 2 ranks differs from one run on 2 ranks"; }
grep -q "largest position difference 0 box" "$WORK/compare-exact.log" || { cat "$WORK/compare-exact.log"; fail "resumed on the same 2 ranks: not the same bits"; }
echo "brownian example: resumed on the same 2 ranks to $last vs one run on 2 ranks: $(cat "$WORK/compare-exact.log")"
