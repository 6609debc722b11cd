#!/usr/bin/env bash
# Configures (preset "default" unless MPSFW_PRESET says otherwise) and builds,
# quietly: the output goes to build/<preset>.log, one line says where; on a
# failure its last 40 lines are shown. MPSFW_VERBOSE=1 shows all of it.
set -euo pipefail
source "$(dirname "$0")/env.sh"
preset="${MPSFW_PRESET:-default}"
MPSFW_BUILD="$MPSFW_ROOT/build/$preset"
log="$MPSFW_ROOT/build/$preset.log"
mkdir -p "$MPSFW_ROOT/build"
build() {
  # shellcheck disable=SC2086  # extra arguments, word by word
  cmake --preset "$preset" -S "$MPSFW_ROOT" ${MPSFW_CMAKE_ARGS:-} &&
    cmake --build "$MPSFW_BUILD" -j "$MPSFW_JOBS"
}
if [ "${MPSFW_VERBOSE:-0}" = 1 ]; then
  build
elif build > "$log" 2>&1; then
  echo "build: $MPSFW_BUILD built (log: build/$preset.log)"
else
  tail -40 "$log"
  echo "build: FAILED (the whole log: build/$preset.log; MPSFW_VERBOSE=1 shows it as it goes)" >&2
  exit 1
fi
