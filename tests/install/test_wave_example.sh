#!/usr/bin/env bash
# examples/wave, a solver of one's own, built by CI against the *installed*
# mpsfw: `cmake --install` of this build into a fresh prefix, the example
# configured with find_package(mpsfw) only, built; its checks (wave_check at
# 1 and 4 ranks: physics against exact solutions, the whole solver against a
# one-block reference), then an input written by --write-input run at 1 and
# at 4 ranks with snapshots of both fields, which must be equal bit for bit;
# a stop and resume; scripts/sweep.py over it (weak scaling by its keys), and
# scripts/advise.py (weak: the launch line grows wave's own keys).
#
#   tests/install/test_wave_example.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/install_lib.sh" "$@"

install_into "$WORK/prefix"
cmake -S "$repo/examples/wave" -B "$WORK/wave" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
      > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure examples/wave with find_package(mpsfw)"; }
cmake --build "$WORK/wave" -j 2 > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "build examples/wave"; }

# Its --help names the installed package's documentation, never the build
# machine's source tree (the program lives outside the prefix).
help=$("$WORK/wave/wave_solver" --help 2>&1) || true
grep -qF "described in $WORK/prefix/share/mpsfw/docs/input-format.md" <<<"$help" ||
  { echo "$help" | tail -4; fail "wave_solver --help does not name the installed documentation"; }

for np in 1 4; do
  "$MPIEXEC" -n "$np" "$WORK/wave/wave_check" > "$WORK/check$np.log" 2>&1 || { cat "$WORK/check$np.log"; fail "wave_check at $np ranks"; }
done
echo "wave_check: $(grep -iE 'ratio' "$WORK/check1.log" | head -1)"

"$WORK/wave/wave_solver" --write-input "$WORK/in.h5" --set wave.nx=24 --set wave.ny=20 --set wave.nz=16 \
  --set run.steps=30 --set run.output_every=10 > /dev/null || fail "--write-input"
for np in 1 4; do
  "$MPIEXEC" -n "$np" "$WORK/wave/wave_solver" "$WORK/in.h5" --backend host --output "$WORK/out$np.h5" \
    > "$WORK/run$np.log" 2>&1 || { cat "$WORK/run$np.log"; fail "wave_solver at $np ranks"; }
  grep -q "^mpsfw: wave 24x20x16 cells, 30 steps on $np ranks" "$WORK/run$np.log" || { cat "$WORK/run$np.log"; fail "no banner at $np ranks"; }
done
h5diff "$WORK/out1.h5" "$WORK/out4.h5" > "$WORK/h5diff.log" 2>&1 || { head -20 "$WORK/h5diff.log"; fail "4 ranks differ from 1 rank"; }
# The launchers are one source over the framework's grid loops: where mpsfw
# has Kokkos, the Kokkos ones at 2 ranks give the host's bits at 1 rank;
# where it has not, --backend kokkos is refused before the run, naming the
# backends wave has.
if grep -q "wave_model: built for --backend kokkos" "$WORK/configure.log"; then
  "$MPIEXEC" -n 2 "$WORK/wave/wave_solver" "$WORK/in.h5" --backend kokkos --output "$WORK/kokkos2.h5" \
    > "$WORK/kokkos2.log" 2>&1 || { cat "$WORK/kokkos2.log"; fail "wave_solver --backend kokkos at 2 ranks"; }
  h5diff "$WORK/out1.h5" "$WORK/kokkos2.h5" > "$WORK/h5diff-kokkos.log" 2>&1 || {
    head -20 "$WORK/h5diff-kokkos.log"; fail "Kokkos at 2 ranks differs from the host at 1 rank"; }
  echo "wave example: Kokkos at 2 ranks == host at 1 rank bit for bit"
else
  if out=$("$WORK/wave/wave_solver" "$WORK/in.h5" --backend kokkos 2>&1); then
    fail "--backend kokkos was accepted by a wave built without Kokkos"
  fi
  grep -q "the wave workload has no kokkos backend (it has host" <<<"$out" || { echo "$out"; fail "the kokkos refusal does not name the wave's backends"; }
  echo "wave example: SKIPPED the Kokkos launchers (this mpsfw has no Kokkos backend)"
fi
for field in u u_prev; do
  grep -q "Attribute Name=\"$field\"" "$WORK/out4.xmf" || fail "out4.xmf has no attribute $field"
done
echo "wave example: ok (1 rank == 4 ranks bit for bit, fields u and u_prev)"

# The time loop's stops and checkpoints (install_lib.sh), then the checkpoint
# as the wave's own program lists it (--describe: every registered
# workload's program has it).
check_stop_resume "$WORK/wave/wave_solver" "$WORK/in.h5" wave u u_prev
"$WORK/wave/wave_solver" --describe "$WORK/ck.h5" > "$WORK/ck.describe" 2>&1 || { cat "$WORK/ck.describe"; fail "--describe ck.h5"; }
for line in "attribute /step (64-bit integer) = $STOP_STEP" 'attribute /solver (string) = "wave"' \
            "dataset /wave/u [16][20][24]" "dataset /wave/u_prev [16][20][24]"; do
  grep -qF "$line" "$WORK/ck.describe" || { cat "$WORK/ck.describe"; fail "--describe ck.h5 has no line '$line'"; }
done

# The ranks-per-GPU sweep drives a solver of one's own as it drives heat and
# MD: the keys weak scaling multiplies are the ones wave's report names
# (wave.nx/ny/nz), so 2 ranks weak stack two 24x20x16 blocks along z.
if ! command -v python3 > /dev/null; then
  echo "wave example: SKIPPED the sweep (no python3 here)"
  exit 0
fi
python3 "$repo/scripts/sweep.py" "$WORK/in.h5" --solver "$WORK/wave/wave_solver" --out "$WORK/sweep" \
  --gpus 0 --ranks-per-gpu 1,2 --repeats 1 --modes timeslice --set run.output_every=0 \
  > "$WORK/sweep.log" 2>&1 || { tail -20 "$WORK/sweep.log"; fail "scripts/sweep.py over wave_solver"; }
grep -q '^weak,2,2,timeslice,1,host,24x20x32,' "$WORK/sweep/sweep.csv" ||
  { cat "$WORK/sweep/sweep.csv"; fail "weak scaling of wave at 2 ranks is not 24x20x32 cells"; }
grep -q '^strong,2,2,timeslice,1,host,24x20x16,' "$WORK/sweep/sweep.csv" ||
  { cat "$WORK/sweep/sweep.csv"; fail "strong scaling of wave at 2 ranks changed the grid"; }
echo "wave example: scripts/sweep.py scales it (weak: wave.nx/ny/nz from its report)"

python3 "$repo/scripts/advise.py" "$WORK/in.h5" --solver "$WORK/wave/wave_solver" --gpus 0 --steps 3 \
  --weak --max-ranks-per-gpu 2 --json "$WORK/advise.json" > "$WORK/advise.log" 2>&1 ||
  { tail -20 "$WORK/advise.log"; fail "scripts/advise.py over wave_solver"; }
grep -q "(wave, weak scaling, run.steps 30)" "$WORK/advise.log" ||
  { cat "$WORK/advise.log"; fail "advise did not read wave's input"; }
grown="--set wave.nx=24 --set wave.ny=20 --set wave.nz=16 --set run.px=1 --set run.py=1 --set run.pz=1"
grep -q "^  2 ranks .*<- chosen" "$WORK/advise.log" &&
  grown="--set wave.nx=24 --set wave.ny=20 --set wave.nz=32 --set run.px=1 --set run.py=1 --set run.pz=2"
grep -q -- "$grown" "$WORK/advise.log" ||
  { cat "$WORK/advise.log"; fail "advise's weak launch line lacks wave's grid: $grown"; }
echo "wave example: scripts/advise.py advises on it ($(grep '^choice:' "$WORK/advise.log"))"
