#!/usr/bin/env bash
# Ranks beyond one per core (issue 18, part 1): heat SIZE³ strong on one GPU
# with MPS at 1, 16, 32 and 48 ranks (the node's cores: nproc), each rank's
# host thread waiting for its GPU spinning (run.cpu_wait = spin, CUDA's
# default) or asleep (sleep: blocking sync, two steps ahead at most), medians
# of REPEATS, efficiency against 1 rank in the same run.
#   bench/crowded_node.sh BUILD_DIR OUT_DIR [SIZE=256] [RANKS="1 16 32 48"]
# Environment: REPEATS (3), STEPS (1000), WAITS ("spin sleep").
set -uo pipefail
build=${1:?build dir}
out=${2:?output dir}
size=${3:-256}
ranks=${4:-1 16 32 48}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "cores: $(nproc); heat ${size}³, ${STEPS:-1000} steps, MPS on, medians of ${REPEATS:-3}"
for wait in ${WAITS:-spin sleep}; do
  for np in $ranks; do
    for r in $(seq "${REPEATS:-3}"); do
      name=$wait-np$np-r$r
      timeout 180 mpirun -np "$np" --bind-to none "$build/apps/solver" "$root/inputs/heat_default.h5" \
        --backend cuda --mps on --set heat.nx="$size" --set heat.ny="$size" --set heat.nz="$size" \
        --set run.steps="${STEPS:-1000}" --set run.diag_every=0 --set run.cpu_wait="$wait" \
        --report "$out/$name.json" > "$out/$name.log" 2>&1 || echo "$name: exit $? (see $name.log)"
    done
  done
done
python3 - "$out" "${WAITS:-spin sleep}" "$ranks" "${REPEATS:-3}" <<'PY'
import json, os, statistics, sys
out, waits, ranks, reps = sys.argv[1], sys.argv[2].split(), [int(v) for v in sys.argv[3].split()], int(sys.argv[4])
def rate(w, n):
    v = []
    for r in range(1, reps + 1):
        p = os.path.join(out, "%s-np%d-r%d.json" % (w, n, r))
        if os.path.exists(p):
            v.append(json.load(open(p))["updates_per_second"])
    return statistics.median(v) if v else float("nan"), v
print("| ranks | " + " | ".join("%s cell-updates/s | %s / 1 rank" % (w, w) for w in waits) + " |")
print("|---" * (2 * len(waits) + 1) + "|")
for n in ranks:
    cells = []
    for w in waits:
        m, _ = rate(w, n)
        one, _ = rate(w, ranks[0])
        cells += ["%.3e" % m, "%.2f" % (m / one)]
    print("| %d | %s |" % (n, " | ".join(cells)))
for w in waits:
    for n in ranks:
        print("  %s np%d repeats: %s" % (w, n, ["%.3e" % x for x in rate(w, n)[1]]))
PY
for f in "$out"/sleep-np32-r1.log "$out"/spin-np32-r1.log; do
  [ -f "$f" ] && grep -E "warning|gpu wait|halo sync|update " "$f" | head -5 | sed "s|^|  $(basename "$f"): |"
done
