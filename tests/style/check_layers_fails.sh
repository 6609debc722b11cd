#!/usr/bin/env bash
# scripts/check_layers.py can fail: a copy of a few headers with one include
# that runs up a layer (core/base including core/comm), one from solvers/
# into runtime/, one written "core/..." instead of <mpsfw/core/...>, and an
# example including a header that is not the API's must each be named, and
# the same tree without them passes.
set -euo pipefail
script="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/core/base" "$work/core/comm" "$work/solvers/toy" "$work/runtime" "$work/cmake" \
  "$work/examples/toy"
printf 'set(MPSFW_PUBLIC_HEADERS # the API\n    runtime/solver_main.hpp)\n' > "$work/cmake/MpsfwPublicHeaders.cmake"
printf '#include <mpsfw/runtime/solver_main.hpp>\n' > "$work/examples/toy/main.cpp"
printf '#pragma once\n' > "$work/core/comm/halo.hpp"
printf '#pragma once\n' > "$work/runtime/solver_main.hpp"
printf '#pragma once\n#include <mpsfw/core/base/error.hpp>\n' > "$work/core/comm/uses_base.hpp"
printf '#pragma once\n' > "$work/core/base/error.hpp"
printf '#include <mpsfw/core/comm/halo.hpp>\n' > "$work/solvers/toy/toy.cpp"
python3 "$script" "$work" > "$work/clean.txt" || { cat "$work/clean.txt"; echo "FAIL: a clean tree was refused"; exit 1; }
printf '#pragma once\n#include <mpsfw/core/comm/halo.hpp>\n' > "$work/core/base/error.hpp"
printf '#include <mpsfw/runtime/solver_main.hpp>\n' >> "$work/solvers/toy/toy.cpp"
printf '#pragma once\n#include "core/base/error.hpp"\n' > "$work/core/comm/uses_base.hpp"
printf '#include <mpsfw/core/comm/halo.hpp>\n' >> "$work/examples/toy/main.cpp"
if python3 "$script" "$work" > "$work/bad.txt"; then
  cat "$work/bad.txt"; echo "FAIL: upward includes passed"; exit 1
fi
cat "$work/bad.txt"
grep -q 'core/base/error.hpp:2: includes core/comm/halo.hpp: core/comm is above core/base' "$work/bad.txt"
grep -q 'solvers/toy/toy.cpp:2: includes runtime/solver_main.hpp: solvers/ may not include from runtime/' "$work/bad.txt"
grep -q 'core/comm/uses_base.hpp:2: includes "core/base/error.hpp": write <mpsfw/core/base/error.hpp>' "$work/bad.txt"
grep -q 'examples/toy/main.cpp:2: includes core/comm/halo.hpp: not an API header' "$work/bad.txt"
echo "check_layers names both upward includes, the quoted one and the example's private header"
