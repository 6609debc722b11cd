#!/usr/bin/env bash
# The wave example (examples/wave, a solver of one's own) beside heat's
# oversubscription table: strong scaling on one GPU with MPS, throughput(k
# ranks) / throughput(1 rank), median of REPEATS runs, same-GPU halos
# (run.halo=auto: pulls under GPU-side waits) and, for comparison, MPI halos.
#   bench/wave_scaling.sh WAVE_BUILD_DIR OUT_DIR [SIZES="192 256"] [RANKS="1 8 16"]
# Environment: REPEATS (3), STEPS (3000), HALO ("auto mpi"); BACKEND (cuda) and
# MPS (on) only to try the script where there is no GPU.
set -uo pipefail
wave=${1:?wave build dir (examples/wave built against an installed mpsfw)}
out=${2:?output dir}
sizes=${3:-192 256}
ranks=${4:-1 8 16}
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
for size in $sizes; do
  input=$out/wave_$size.h5
  "$wave/wave_solver" --write-input "$input" --force --set wave.nx="$size" --set wave.ny="$size" \
    --set wave.nz="$size" --set run.steps="${STEPS:-3000}" > /dev/null || exit 1
  for halo in ${HALO:-auto mpi}; do
    for np in $ranks; do
      for r in $(seq 1 "${REPEATS:-3}"); do
        timeout 300 mpirun -np "$np" "$wave/wave_solver" "$input" --backend "${BACKEND:-cuda}" --mps "${MPS:-on}" --halo "$halo" \
          --report "$out/run_${size}_${halo}_np${np}_r$r.json" > "$out/run_${size}_${halo}_np${np}_r$r.log" 2>&1 ||
          echo "FAILED: size $size halo $halo np $np repeat $r (see $out/run_${size}_${halo}_np${np}_r$r.log)"
      done
    done
  done
done
python3 - "$out" "$sizes" "$ranks" "${HALO:-auto mpi}" <<'PY'
import glob, json, statistics, sys
out, sizes, ranks, halos = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
for size in sizes:
    print("wave %s^3, MPS, median of runs: cell-updates/s and efficiency against 1 rank" % size)
    print("| ranks | " + " | ".join("halo=%s" % h for h in halos) + " |")
    print("|---|" + "---|" * len(halos))
    base = {}
    for np in ranks:
        cells = []
        for h in halos:
            runs = [json.load(open(p))["updates_per_second"]
                    for p in glob.glob("%s/run_%s_%s_np%s_r*.json" % (out, size, h, np))]
            if not runs:
                cells.append("failed")
                continue
            m = statistics.median(runs)
            base.setdefault(h, m)
            cells.append("%.3e (%.2f)" % (m, m / base[h]))
        print("| %s | %s |" % (np, " | ".join(cells)))
PY
