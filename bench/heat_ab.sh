#!/usr/bin/env bash
# An A/B of the heat solver under MPS in one call on the GPU machine: builds
# the solver of each base tree (tarballs made here with `git archive REV >
# name.tar`, untracked files the device tool carries) and of this tree, then
# runs heat SIZE³ strong, MPS on, at each rank count, the trees taking turns
# within each repeat so that drift hits them alike. Prints cell-updates/s
# (median of REPEATS) and the fraction of one rank of the same tree.
#   bench/heat_ab.sh OUT "BASE.tar [OTHER.tar ...]" [SIZE=256] [RANKS="1 16 32"]
# Environment: STEPS (20000: long enough that a run's fixed costs, the middle
# step's guard and the last diagnostics, hardly weigh at 32 ranks on one GPU;
# docs/performance.md),
# REPEATS (3), BUILD_ROOT (where the builds go: a
# temporary folder), SET (extra "--set key=value" arguments for every run,
# e.g. "--set run.halo=mpi" for the MPI halo path), BACKENDS ("cuda"; with
# KOKKOS_PREFIX, bench_lib.sh, e.g. "cuda kokkos": every tree runs each, a
# column per tree and backend).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?output folder}
tars=${2:?base tarballs}
size=${3:-256}
ranks=${4:-1 16 32}
backends=${BACKENDS:-cuda}
# A run's column in the table: the tree, and the backend unless only cuda runs.
column_of() { if [ "$backends" = cuda ]; then echo "$1"; else echo "$1-$2"; fi; }
steps=${STEPS:-20000}
repeats=${REPEATS:-3}
read -r -a extra <<<"${SET:-}"
source "$root/bench/bench_lib.sh"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${BUILD_ROOT:-$(mktemp -d)}
mkdir -p "$out"
build_trees "$tars" "$work" "$out"
bench_setup "$work/build-new" "$out" "$size" "$steps"  # $input: every tree reads the same file
echo "cores: $(nproc); heat ${size}³ strong, $steps steps, MPS on, backends: $backends, medians of $repeats"
for r in $(seq "$repeats"); do
  for np in $ranks; do
    for side in "${sides[@]}"; do
      for backend in $backends; do
        name=$(column_of "$side" "$backend")-np$np-r$r
        timeout 180 "$mpirun" -np "$np" --bind-to none "$work/build-$side/apps/solver" "$input" \
          --backend "$backend" --mps on "${extra[@]}" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
          echo "$name: exit $? (see $name.log)"
      done
    done
  done
done
columns=()
for side in "${sides[@]}"; do
  for backend in $backends; do
    columns+=("$(column_of "$side" "$backend")")
  done
done
python3 - "$out" "${columns[*]}" "$ranks" "$repeats" <<'PY'
import json, os, statistics, sys
out, sides, ranks, reps = sys.argv[1], sys.argv[2].split(), [int(v) for v in sys.argv[3].split()], int(sys.argv[4])
def rates(side, n):
    paths = (os.path.join(out, "%s-np%d-r%d.json" % (side, n, r)) for r in range(1, reps + 1))
    return [json.load(open(p))["updates_per_second"] for p in paths if os.path.exists(p)]
def median(v):
    return statistics.median(v) if v else float("nan")
print("| ranks | " + " | ".join("%s | / 1 rank" % s for s in sides) + " |")
print("|---" * (2 * len(sides) + 1) + "|")
for n in ranks:
    cells = []
    for s in sides:
        cells += ["%.3e" % median(rates(s, n)), "%.3f" % (median(rates(s, n)) / median(rates(s, ranks[0])))]
    print("| %d | %s |" % (n, " | ".join(cells)))
for s in sides:
    for n in ranks:
        print("  %s np%d: %s" % (s, n, ["%.3e" % x for x in rates(s, n)]))
PY
