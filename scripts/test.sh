#!/usr/bin/env bash
# The whole test suite, from a fresh machine: install what is missing, build,
# run ctest (MPI tests at 1, 2, 4, 8 ranks; GPU tests skip visibly without a GPU).
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$MPSFW_ROOT/scripts/setup.sh" test
"$MPSFW_ROOT/scripts/build.sh"
cd "$MPSFW_BUILD"
ctest --output-on-failure -j "$MPSFW_JOBS" "$@"
