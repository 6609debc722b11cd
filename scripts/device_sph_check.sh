#!/usr/bin/env bash
# examples/sph on the GPU, in one command: this tree's solver built (CUDA,
# sm_90, bench_lib.sh's build_gpu_solver) and installed into a prefix, the
# example built against it (CUDA store); then
#   bits   the template input (24 x 24 x 14, 20 steps) on the host (1 rank),
#          on the GPU at 1 rank and at 8 ranks under MPS (same-GPU ghost
#          positions): the final checkpoints must be the same bits
#   speed  SPH at SPH_N^3 particles (default 64: 262 144), 1 rank and 8 ranks
#          under MPS, with h of SPH_H (default "2 1.3" spacings), and MD
#          in.lj 256k on 1 rank, taking turns REPEATS times (default 3): the
#          steady half's particle-steps/s, medians
#   scripts/device_sph_check.sh "bits speed"
# Environment: AB_WORK (builds; build/ab-work, kept on a warm machine),
# SPH_STEPS (400), REPEATS (3). Logs: $OUT/sph (and $OUT/sph.tgz).
set -uo pipefail
source "$(dirname "$0")/env.sh"
root=$MPSFW_ROOT
source "$root/bench/bench_lib.sh"
parts=${1:-bits speed}
work=${AB_WORK:-$root/build/ab-work}
steps=${SPH_STEPS:-400} repeats=${REPEATS:-3} n=${SPH_N:-64}
device_logs sph
record_device_machine "$out/machine.txt"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
build=$work/build-new prefix=$work/prefix-new sph=$work/sph
rc=0

build_gpu_solver "$root" "$build" "$out/build.log"
{ cmake --build "$build" -j "$(nproc)" --target solver mkinput mpsctl &&
  cmake --install "$build" --prefix "$prefix" &&
  cmake -S "$root/examples/sph" -B "$sph" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CUDA_ARCHITECTURES=90 &&
  cmake --build "$sph" -j "$(nproc)"; } > "$out/build-sph.log" 2>&1 ||
  { tail -40 "$out/build-sph.log"; exit 1; }

if has bits; then
  "$sph/sph_solver" --write-input "$out/small.h5" --set run.steps=20 > /dev/null
  "$sph/sph_solver" "$out/small.h5" --backend host --mps off \
    --set run.checkpoint_file="$out/host1.h5" > "$out/host1.log" 2>&1 || { tail "$out/host1.log"; rc=1; }
  for np in 1 8; do
    mps=(--mps off); [ "$np" -gt 1 ] && mps=(--mps on)
    mpirun -np "$np" "$sph/sph_solver" "$out/small.h5" --backend cuda "${mps[@]}" \
      --set run.checkpoint_file="$out/cuda$np.h5" --report "$out/cuda$np.json" \
      > "$out/cuda$np.log" 2>&1 || { tail "$out/cuda$np.log"; rc=1; }
    grep -m1 "ghost" "$out/cuda$np.log"
  done
  for other in cuda1 cuda8; do
    echo "host 1 rank vs $other:"
    "$sph/sph_check" compare "$out/host1.h5" "$out/$other.h5" 0 || rc=1
  done
fi

if has speed; then
  "$sph/sph_solver" --write-input "$out/big.h5" --set sph.n="$n" --set sph.nz="$n" \
    --set sph.dt=0.0004 --set run.steps="$steps" --set run.diag_every=0 > /dev/null
  for r in $(seq "$repeats"); do
    for h in ${SPH_H:-2 1.3}; do
      for np in 1 8; do
        mps=(--mps off); [ "$np" -gt 1 ] && mps=(--mps on)
        name=sph-h$h-np$np-r$r
        timeout 120 mpirun -np "$np" "$sph/sph_solver" "$out/big.h5" --backend cuda "${mps[@]}" \
          --set sph.h="$h" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
          echo "$name failed: exit $?"
        echo "$name: $(grep -m1 'steady half' "$out/$name.log")"
      done
    done
    timeout 120 "$build/apps/solver" "$root/inputs/md_lj.h5" --set md.cells_x=40 \
      --set md.cells_y=40 --set md.cells_z=40 --set run.steps=1000 --set run.diag_every=0 \
      --backend cuda --mps off --report "$out/md-np1-r$r.json" > "$out/md-np1-r$r.log" 2>&1 ||
      echo "md repeat $r failed: exit $?"
    echo "md-np1-r$r: $(grep -m1 'steady half' "$out/md-np1-r$r.log")"
  done
  python3 - "$out" <<'PY' | tee "$out/speed.txt"
import glob, json, re, statistics, sys
rates = {}
for path in glob.glob(sys.argv[1] + "/*-r*.json"):
    name = re.sub(r"-r\d+\.json$", "", path.rsplit("/", 1)[1])
    r = json.load(open(path))
    rates.setdefault(name, []).append(r["steady"]["updates_per_second"])
md = statistics.median(rates.get("md-np1", [0]))
print("%-14s %12s %10s %s" % ("run", "median", "/ MD 1 rank", "repeats (particle-steps/s, steady half)"))
for name in sorted(rates):
    m = statistics.median(rates[name])
    print("%-14s %12.4g %10.3f %s" % (name, m, m / md if md else 0, " ".join("%.4g" % v for v in rates[name])))
for h in sorted({re.search(r"sph-h([0-9.]+)-", k).group(1) for k in rates if k.startswith("sph")}):
    one, eight = (statistics.median(rates.get("sph-h%s-np%d" % (h, k), [0])) for k in (1, 8))
    if one:
        print("sph h=%s: 8 ranks under MPS keep %.3f of 1 rank" % (h, eight / one))
PY
fi
exit "$rc"
