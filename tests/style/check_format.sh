#!/usr/bin/env bash
# The house style is .clang-format's: every C++ and CUDA source of the
# repository (tracked files) must be formatted as clang-format formats it.
# Formatting differs between clang-format versions, so the check runs with
# the version the tree was formatted with (MAJOR) and skips (exit 77) with
# another or none.
#   tests/style/check_format.sh REPO CLANG_FORMAT MAJOR
set -uo pipefail
repo=$1 tool=$2 major=$3
if [ -z "$tool" ] || ! command -v "$tool" >/dev/null; then
  echo "SKIP: no clang-format (scripts/setup.sh test installs it)"; exit 77
fi
version=$("$tool" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$version" != "$major" ]; then
  echo "SKIP: clang-format $version here; the tree is formatted with clang-format $major"; exit 77
fi
cd "$repo" || exit 1
files=$(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' 2>/dev/null)
[ -n "$files" ] || { echo "SKIP: not a git checkout"; exit 77; }
bad=()
for f in $files; do
  "$tool" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} file(s) not formatted (run: clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "style: $(echo "$files" | wc -l) files formatted as .clang-format says"
