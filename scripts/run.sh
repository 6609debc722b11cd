#!/usr/bin/env bash
# The main job, from a fresh machine: install what is missing, build, and run
# the heat solver on the default input with 4 ranks (CUDA backend where a GPU
# is visible, else host). Extra arguments go to the solver.
#   scripts/run.sh [--set key=value ...] [--report run.json]
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$MPSFW_ROOT/scripts/setup.sh" build
"$MPSFW_ROOT/scripts/build.sh"
ranks="${MPSFW_RANKS:-4}"
exec mpirun -np "$ranks" "$MPSFW_BUILD/apps/solver" "$MPSFW_ROOT/inputs/heat_default.h5" "$@"
