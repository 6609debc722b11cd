#!/usr/bin/env bash
# Ranks-per-GPU scaling on one GPU: the heat solver with the same block per
# rank (weak scaling) at 1, 2, 4, 8, 16 ranks, three ways:
#   timeslice  --mps off                  (the GPU time-slices between processes)
#   mps        --mps on --mps-atp 100     (MPS, no caps)
#   mps-caps   --mps on --mps-atp auto    (MPS, min(100, ceil(200/k)) % per rank)
# Prints aggregate cell-updates/s (median of REPEATS runs, from each run's
# report) and the ratio to time-slicing; writes a CSV.
#   bench/mps_scaling.sh BUILD_DIR OUT_DIR [BLOCKS="64 128"] [RANKS="1 2 4 8 16"]
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
blocks=${3:-64 128}
ranks_list=${4:-1 2 4 8 16}
repeats=${REPEATS:-3}
deadline=$(( $(date +%s) + ${BENCH_SECONDS:-100000} ))  # stop starting runs after this
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1

# Rank grid for k ranks, so that every block is exactly the same size.
grid() {
  case $1 in
    1) echo "1 1 1" ;; 2) echo "2 1 1" ;; 4) echo "2 2 1" ;; 8) echo "2 2 2" ;; 16) echo "4 2 2" ;;
    *) echo "unsupported rank count $1" >&2; exit 1 ;;
  esac
}

csv=$out/mps_scaling.csv
echo "block,ranks,mode,repeat,updates_per_second,loop_seconds,mps_state,verified" > "$csv"
for block in $blocks; do
  # About the same work per run whatever the block: 64^3 -> 400 steps, 128^3 -> 100.
  steps=$(( 400 * 64 * 64 * 64 / (block * block * block) ))
  for k in $ranks_list; do
    read -r px py pz <<<"$(grid "$k")"
    for mode in timeslice mps mps-caps; do
      case $mode in
        timeslice) flags=(--mps off) ;;
        mps) flags=(--mps on --mps-atp 100) ;;
        mps-caps) flags=(--mps on --mps-atp auto) ;;
      esac
      for r in $(seq 1 "$repeats"); do
        if [ "$(date +%s)" -ge "$deadline" ]; then
          echo "BENCH_SECONDS reached: skipping block $block ranks $k $mode"
          continue
        fi
        report=$out/run_b${block}_k${k}_${mode}_${r}.json
        started=$(date +%s.%N)
        timeout 120 mpirun -np "$k" "$build/apps/solver" "$root/inputs/heat_default.h5" \
          --set heat.nx=$((block * px)) --set heat.ny=$((block * py)) --set heat.nz=$((block * pz)) \
          --set run.px="$px" --set run.py="$py" --set run.pz="$pz" --set run.steps="$steps" \
          --set run.diag_every=0 --backend cuda "${flags[@]}" --report "$report" \
          > "$out/run_b${block}_k${k}_${mode}_${r}.log" 2>&1 || {
          echo "run failed: block $block ranks $k $mode (see $out/run_b${block}_k${k}_${mode}_${r}.log)"
          tail -5 "$out/run_b${block}_k${k}_${mode}_${r}.log"
          continue
        }
        python3 - "$report" "$block" "$k" "$mode" "$r" >> "$csv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r.get("mps_details", {})
print(",".join(sys.argv[2:6] + [str(r["updates_per_second"]), str(r["loop_seconds"]),
      m.get("state", ""), m.get("verified_clients", "") + "/" + m.get("expected_clients", "")]))
PY
        echo "$(tail -1 "$csv")  (whole run $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $started}") s)"
      done
    done
  done
done

python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
state = {}
for row in rows:
    key = (int(row["block"]), int(row["ranks"]), row["mode"])
    med.setdefault(key, []).append(float(row["updates_per_second"]))
    state[key] = row["mps_state"] + " " + row["verified"]
print("\nblock ranks  timeslice[cells/s]        mps   mps-caps   mps/ts  caps/ts  (MPS state)")
for block in sorted({k[0] for k in med}):
    for ranks in sorted({k[1] for k in med if k[0] == block}):
        v = {m: statistics.median(med[(block, ranks, m)]) for m in ("timeslice", "mps", "mps-caps")
             if (block, ranks, m) in med}
        ts = v.get("timeslice", float("nan"))
        print(f"{block:5d} {ranks:5d} {ts:18.4g} {v.get('mps', float('nan')):10.4g} "
              f"{v.get('mps-caps', float('nan')):10.4g} {v.get('mps', float('nan')) / ts:8.2f} "
              f"{v.get('mps-caps', float('nan')) / ts:8.2f}  ({state.get((block, ranks, 'mps-caps'), '')})")
PY
