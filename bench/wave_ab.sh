#!/usr/bin/env bash
# An A/B of the wave example (examples/wave, a solver of one's own) in one
# call on the GPU machine: each tree's mpsfw (libraries only, CUDA for sm_90)
# installed into a prefix of its own and its examples/wave built against it,
# then wave_solver at SIZE^3 on each of RANKS under MPS (same-GPU halos), the
# trees taking turns within each repeat; medians of REPEATS of the report's
# cell-updates/s per tree and new over base. Each tree's run at the first
# rank count writes its final u and u_prev: the trees must agree bit for bit.
#   bench/wave_ab.sh BASE_TAR OUT
# BASE_TAR: `git archive BASE > ab-wave.tar` here (an untracked file the
# device tool carries). Environment: SIZE (256), RANKS ("1 8 16 32"), STEPS
# (1000), REPEATS (3), AB_WORK (where trees are unpacked and built; an
# existing one is built again incrementally).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base_tar=${1:?usage: wave_ab.sh BASE_TAR OUT}
out=${2:?usage: wave_ab.sh BASE_TAR OUT}
work=${AB_WORK:-$(mktemp -d)}
size=${SIZE:-256}
ranks=${RANKS:-1 8 16 32}
mkdir -p "$out" "$work/src-base"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
tar xf "$base_tar" -C "$work/src-base" || exit 1
for side in base new; do
  src=$work/src-$side
  [ "$side" = new ] && src=$root
  { cmake -S "$src" -B "$work/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF \
      -DMPSFW_BUILD_TESTS=OFF -DMPSFW_BUILD_BENCH=OFF &&
    cmake --build "$work/build-$side" -j "$(nproc)" &&
    cmake --install "$work/build-$side" --prefix "$work/prefix-$side" &&
    cmake -S "$src/examples/wave" -B "$work/wave-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix-$side" &&
    cmake --build "$work/wave-$side" -j "$(nproc)" --target wave_solver; } \
    > "$out/build-$side.log" 2>&1 || { tail -30 "$out/build-$side.log"; exit 1; }
done
input=$out/wave.h5
"$work/wave-new/wave_solver" --write-input "$input" --force --set wave.nx="$size" \
  --set wave.ny="$size" --set wave.nz="$size" --set run.steps="${STEPS:-1000}" > /dev/null || exit 1
first=${ranks%% *}
for r in $(seq "${REPEATS:-3}"); do
  for np in $ranks; do
    for side in base new; do
      run=$out/$side-np$np-r$r
      extra=()
      [ "$r" = 1 ] && [ "$np" = "$first" ] && extra=(--output "$out/$side-final.h5" --set run.output_every=0)
      timeout 300 mpirun -np "$np" "$work/wave-$side/wave_solver" "$input" --backend cuda --mps on \
        --report "$run.json" "${extra[@]}" > "$run.log" 2>&1 || echo "FAILED: $side np $np repeat $r ($run.log)"
    done
  done
done
same=(h5diff)  # bench/h5_same.py (h5py) where h5diff is not installed
command -v h5diff > /dev/null || same=(python3 "$root/bench/h5_same.py")
if "${same[@]}" "$out/base-final.h5" "$out/new-final.h5" > "$out/h5diff.log" 2>&1; then
  echo "final u, u_prev at $first rank(s): base == new bit for bit"
else
  echo "final u, u_prev at $first rank(s): base and new DIFFER ($out/h5diff.log)"
fi
rm -f "$out"/*-final.h5 "$input"
python3 - "$out" "$ranks" "${REPEATS:-3}" "$size" <<'PY'
import json, statistics, sys
out, ranks, repeats, size = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
print("wave %s^3 under MPS, cell-updates/s, median of %d (min-max); new / base" % (size, repeats))
print("| ranks | base | new | new / base |")
print("|---|---|---|---|")
for np in ranks:
    med = {}
    cells = []
    for side in ("base", "new"):
        runs = []
        for r in range(1, repeats + 1):
            try:
                runs.append(json.load(open("%s/%s-np%s-r%d.json" % (out, side, np, r)))["updates_per_second"])
            except (OSError, ValueError, KeyError):
                pass
        if runs:
            med[side] = statistics.median(runs)
            cells.append("%.4e (%.4e-%.4e, %d runs)" % (med[side], min(runs), max(runs), len(runs)))
        else:
            cells.append("failed")
    ratio = "%.3f" % (med["new"] / med["base"]) if len(med) == 2 else "-"
    print("| %s | %s | %s | %s |" % (np, cells[0], cells[1], ratio))
PY
