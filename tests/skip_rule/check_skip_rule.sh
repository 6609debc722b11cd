#!/usr/bin/env bash
# The rule ctest's "Skipped" follows (tests/CMakeLists.txt, MPSFW_GPU_SKIP_REGEX,
# printed by support/mpi_test_main.cpp): only a run whose every test skipped
# on every rank and none failed prints the marker; a failure beside a skip
# exits non-zero without it, a pass beside a skip prints no marker.
#   check_skip_rule.sh PROBE MPIEXEC MARKER
set -uo pipefail
probe=$1 mpiexec=$2 marker=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { out=$("$mpiexec" -n 2 "$probe" --gtest_filter="$1" 2>&1); rc=$?; }

run 'SkipRule.Skips'
[ "$rc" -eq 0 ] && grep -q "$marker" <<<"$out" || { echo "$out"; fail "all skipped: want rc 0 and the marker"; }
run 'SkipRule.Skips:SkipRule.Fails'
[ "$rc" -ne 0 ] && ! grep -q "$marker" <<<"$out" || { echo "$out"; fail "skip + failure: want a failure, no marker"; }
run 'SkipRule.Skips:SkipRule.Passes'
[ "$rc" -eq 0 ] && ! grep -q "$marker" <<<"$out" || { echo "$out"; fail "skip + pass: want a pass, no marker"; }
echo "skip rule: ok"
