#!/usr/bin/env bash
# A refactor's check on the GPU machine, in one command: this tree's GPU tests
# (ctest -L gpu, a missing GPU a failure), and the A/B of a base tree (a
# tarball made here: `git archive BASE > ab-base.tar`, carried untracked)
# against this tree, the trees built once (bench_lib.sh's build_trees, in
# AB_WORK) for every part:
#   tests  the GPU tests of this tree (CUDA, sm_90, no Kokkos)
#   heat   bench/heat_ab.sh: heat 256^3 strong, MPS on, at HEAT_RANKS ranks;
#          then every run's last diagnostics row (total heat, max change) must
#          be the same bits in every report of both trees (N ranks == 1 rank,
#          old == new, under MPS with same-GPU pushes)
#   heat-mpi  the same with every halo through MPI (run.halo = mpi, staged
#          through pinned host memory where MPI is not CUDA-aware), 1 and 8 ranks
#   md     bench/md_ab.sh: in.lj 32k, 256k and 1M on one rank, MPS_CELLS
#          (default 64: 1M) on MPS_RANKS under MPS
#   bandwidth  bench/heat_bandwidth --n 512 of both trees, taking turns REPEATS
#          times: the heat update and a full step against the device's copy
#   scripts/device_ab_check.sh "tests heat md" [BASE_TAR=ab-base.tar]
# Environment: HEAT_STEPS (20000: heat_ab.sh's), HEAT_RANKS ("1 8 16 32"),
# STEPS (500, MD's), REPEATS (3), MPS_CELLS, MPS_RANKS ("8 16 32"), AB_WORK
# (the builds: build/ab-work, kept, so a second call on a warm machine reuses
# them: the parts of one A/B may span two calls).
# Logs: $OUT/ab (tarred into $OUT/ab.tgz).
set -uo pipefail
source "$(dirname "$0")/env.sh"
root=$MPSFW_ROOT
source "$root/bench/bench_lib.sh"
parts=${1:-tests heat md}
base_tar=${2:-ab-base.tar}
export STEPS=${STEPS:-500} REPEATS=${REPEATS:-3} MPS_RANKS=${MPS_RANKS:-8 16 32}
heat_steps=${HEAT_STEPS:-20000}
heat_ranks=${HEAT_RANKS:-1 8 16 32}
work=${AB_WORK:-$root/build/ab-work}
device_logs ab
record_device_machine "$out/machine.txt"
rc=0
build_trees "$base_tar" "$work" "$out"  # sets sides: the base's name, then "new"

if has tests; then
  build="$work/build-new"
  # The programs the GPU tests run.
  targets=$(gpu_test_targets "$build")
  # shellcheck disable=SC2086  # one target per word
  cmake --build "$build" -j "$(nproc)" --target $targets > "$out/build-tests.log" 2>&1 ||
    { tail -40 "$out/build-tests.log"; exit 1; }
  run_gpu_tests "$build" || rc=1
fi

if has heat; then
  STEPS=$heat_steps BUILD_ROOT="$work" timeout 400 bash "$root/bench/heat_ab.sh" "$out/heat" \
    "$base_tar" 256 "$heat_ranks" | tee "$out/heat.txt"
  # The last diagnostics row of every report (JSON keeps 17 digits): at each
  # rank count the same bits in both trees; across rank counts the same
  # max_change (a maximum), while the total heat, a sum in another order,
  # may differ in its last digit.
  python3 - "$out/heat" <<'PY' | tee -a "$out/heat.txt" || rc=1
import collections, glob, json, re, sys
rows = collections.defaultdict(dict)
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    name = path.rsplit("/", 1)[1]
    ranks = re.search(r"-np(\d+)-", name).group(1)
    rows[ranks][name] = tuple(sorted(json.load(open(path))["diagnostics"][-1].items()))
ok = bool(rows)
changes = set()
for ranks, by_name in sorted(rows.items(), key=lambda kv: int(kv[0])):
    distinct = set(by_name.values())
    changes |= {dict(row)["max_change"] for row in distinct}
    print("heat diagnostics, %s ranks: %d reports, %d distinct last rows" % (ranks, len(by_name), len(distinct)))
    if len(distinct) > 1:
        ok = False
        for name, row in sorted(by_name.items()):
            print("  %s %s" % (name, row))
print("max_change across rank counts: %d distinct" % len(changes))
sys.exit(0 if ok and len(changes) == 1 else 1)
PY
fi

if has heat-mpi; then
  STEPS=$heat_steps SET="--set run.halo=mpi" BUILD_ROOT="$work" timeout 300 \
    bash "$root/bench/heat_ab.sh" "$out/heat-mpi" "$base_tar" 256 "1 8" | tee "$out/heat-mpi.txt"
fi

if has bandwidth; then
  for side in "${sides[@]}"; do
    cmake --build "$work/build-$side" -j "$(nproc)" --target heat_bandwidth \
      > "$out/bandwidth-build-$side.log" 2>&1 || { tail -30 "$out/bandwidth-build-$side.log"; rc=1; }
  done
  for r in $(seq "$REPEATS"); do
    for side in "${sides[@]}"; do
      timeout 120 "$work/build-$side/bench/heat_bandwidth" --n 512 --repeats 20 \
        > "$out/bandwidth-$side-$r.txt" 2>&1 || echo "bandwidth $side repeat $r failed: exit $?"
      echo "$side $r: $(grep -E "^(heat update|solver step)" "$out/bandwidth-$side-$r.txt" | tr "\n" " ")"
    done
  done | tee "$out/bandwidth.txt"
fi

if has md; then
  AB_WORK="$work" timeout 420 bash "$root/bench/md_ab.sh" "$base_tar" "$out/md" | tee "$out/md.txt"
fi
exit "$rc"
