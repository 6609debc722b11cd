#!/usr/bin/env bash
# Configures (preset "default" unless MPSFW_PRESET says otherwise) and builds.
set -euo pipefail
source "$(dirname "$0")/env.sh"
preset="${MPSFW_PRESET:-default}"
MPSFW_BUILD="$MPSFW_ROOT/build/$preset"
cmake --preset "$preset" -S "$MPSFW_ROOT" ${MPSFW_CMAKE_ARGS:-}
cmake --build "$MPSFW_BUILD" -j "$MPSFW_JOBS"
