#!/usr/bin/env bash
# Ranks beyond one per core (docs/performance.md): heat SIZE³ strong on one GPU
# with MPS at 1, 16, 32 and 48 ranks (compare with the node's cores: nproc),
# medians of REPEATS, efficiency against 1 rank in the same run.
#   bench/crowded_node.sh BUILD_DIR OUT_DIR [SIZE=256] [RANKS="1 16 32 48"]
# Environment: REPEATS (3), STEPS (1000), BINDS (mpirun --bind-to values, one
# table column each; "default" is mpirun's own choice: default "default none").
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
size=${3:-256}
ranks=${4:-1 16 32 48}
binds=${BINDS:-default none}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "cores: $(nproc); heat ${size}³, ${STEPS:-1000} steps, MPS on, medians of ${REPEATS:-3}"
for bind in $binds; do
  flags=()
  [ "$bind" != default ] && flags=(--bind-to "$bind")
  for np in $ranks; do
    for r in $(seq "${REPEATS:-3}"); do
      name=$bind-np$np-r$r
      timeout 180 mpirun -np "$np" "${flags[@]}" "$build/apps/solver" "$root/inputs/heat_default.h5" \
        --backend cuda --mps on --set heat.nx="$size" --set heat.ny="$size" --set heat.nz="$size" \
        --set run.steps="${STEPS:-1000}" --set run.diag_every=0 \
        --report "$out/$name.json" > "$out/$name.log" 2>&1 || echo "$name: exit $? (see $name.log)"
    done
  done
done
python3 - "$out" "$binds" "$ranks" "${REPEATS:-3}" <<'PY'
import json, os, statistics, sys
out, binds, ranks, reps = sys.argv[1], sys.argv[2].split(), [int(v) for v in sys.argv[3].split()], int(sys.argv[4])
def rate(b, n):
    v = [json.load(open(p))["updates_per_second"] for p in
         (os.path.join(out, "%s-np%d-r%d.json" % (b, n, r)) for r in range(1, reps + 1)) if os.path.exists(p)]
    return (statistics.median(v) if v else float("nan")), v
print("| ranks | " + " | ".join("--bind-to %s | / 1 rank" % b for b in binds) + " |")
print("|---" * (2 * len(binds) + 1) + "|")
for n in ranks:
    cells = []
    for b in binds:
        cells += ["%.3e" % rate(b, n)[0], "%.2f" % (rate(b, n)[0] / rate(b, ranks[0])[0])]
    print("| %d | %s |" % (n, " | ".join(cells)))
for b in binds:
    for n in ranks:
        print("  %s np%d repeats: %s" % (b, n, ["%.3e" % x for x in rate(b, n)[1]]))
PY
