#!/usr/bin/env bash
# examples/wave, a solver of one's own, built by CI against the *installed*
# mpsfw: `cmake --install` of this build into a fresh prefix, the example
# configured with find_package(mpsfw) only, built; its checks (wave_check at
# 1 and 4 ranks: physics against exact solutions, the whole solver against a
# one-block reference), then an input written by --write-input run at 1 and
# at 4 ranks with snapshots of both fields, which must be equal bit for bit.
#
#   tests/install/test_wave_example.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/install_lib.sh" "$@"

install_into "$WORK/prefix"
cmake -S "$repo/examples/wave" -B "$WORK/wave" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
      > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure examples/wave with find_package(mpsfw)"; }
cmake --build "$WORK/wave" -j 2 > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "build examples/wave"; }

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
for field in u u_prev; do
  grep -q "Attribute Name=\"$field\"" "$WORK/out4.xmf" || fail "out4.xmf has no attribute $field"
done
echo "wave example: ok (1 rank == 4 ranks bit for bit, fields u and u_prev)"
