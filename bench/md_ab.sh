#!/usr/bin/env bash
# An A/B of the MD solver in one call on the GPU machine: builds the solver of
# a base tree (a tarball made here with `git archive BASE > ab-base.tar`, an
# untracked file the device tool carries) and of this tree, then runs
# bench/md_lj.sh (this tree's) on both: in.lj 32k, 256k and 1M atoms on one rank,
# MPS_CELLS (default 64: 1M atoms) on MPS_RANKS (default "8 16") ranks under MPS, the trees
# taking turns within each repeat.
# Both builds and all runs share one machine and one call, so the ratios hold
# even where single figures drift.
#   bench/md_ab.sh [BASE_TAR=ab-base.tar] [OUT=$OUT]
# Environment: STEPS (default 500), REPEATS (default 3), PARTS (default "one
# mps": the one-rank points, the MPS points), MPS_CELLS, MPS_RANKS, BACKEND
# (md_lj.sh's; kokkos needs KOKKOS_PREFIX, bench_lib.sh), AB_WORK (where the
# trees are unpacked and built, bench_lib.sh's build_trees, default a new
# temporary folder; an existing one is built again incrementally, so a second
# call, or heat_ab.sh's BUILD_ROOT, reuses the builds), MORE_TARS (more trees,
# each a tarball like the base's, taking turns with it and this tree: one call
# A/Bs several branches). A tree is named by its tarball's file name without
# .tar, this one "new".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base_tar=${1:-ab-base.tar}
out=${2:-${OUT:?set OUT or pass an output folder}}
source "$root/bench/bench_lib.sh"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${AB_WORK:-$(mktemp -d)}
mkdir -p "$out"
build_trees "$base_tar ${MORE_TARS:-}" "$work" "$out"
# The trees take turns within each repeat, so that drift hits them alike.
export STEPS=${STEPS:-500}
for r in $(seq "${REPEATS:-3}"); do
  for side in "${sides[@]}"; do
    mps_cells=${MPS_CELLS:-64} mps_ranks=${MPS_RANKS:-8 16}
    for part in "one 20_40_64 1" "mps ${mps_cells// /_} ${mps_ranks// /_}"; do
      read -r name cells ranks <<<"$part"
      [[ " ${PARTS:-one mps} " == *" $name "* ]] || continue
      FIRST_REPEAT=$r REPEATS=1 bash "$root/bench/md_lj.sh" "$work/build-$side" "$out/$side-$name" \
        "${cells//_/ }" "${ranks//_/ }" >> "$out/rounds.log"
    done
  done
done
grep -A5 " failed:" "$out/rounds.log"  # a failed run and its log's tail
for side in "${sides[@]}"; do
  echo "== $side"
  for name in ${PARTS:-one mps}; do
    REPEATS=0 bash "$root/bench/md_lj.sh" "$work/build-$side" "$out/$side-$name"
  done
done
