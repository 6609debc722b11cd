#!/usr/bin/env bash
# The whole test suite, from a fresh machine: install what is missing, build,
# run ctest (MPI tests at 1, 2, 4, 8 ranks; GPU tests skip visibly without a GPU).
# ctest counts a skipped test as passed in its "100% tests passed" line: the
# last line says how many passed, were skipped and failed.
set -euo pipefail
source "$(dirname "$0")/env.sh"
"$MPSFW_ROOT/scripts/setup.sh" test
"$MPSFW_ROOT/scripts/build.sh"
cd "$MPSFW_BUILD"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
ctest --output-on-failure -j "$MPSFW_JOBS" "$@" | tee "$log" || rc=$?
total=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | tail -1)
failed=$(sed -n 's/.* \([0-9]*\) tests failed out of [0-9]*$/\1/p' "$log" | tail -1)
skipped=$(grep -c '^[[:space:]]*[0-9]* - .* (Skipped)$' "$log" || true)
if [ -n "$total" ]; then
  echo "mpsfw: $((total - failed - skipped)) passed, $skipped skipped (listed above: not run here," \
    "not passed), $failed failed, of $total tests"
fi
exit "$rc"
