#!/usr/bin/env bash
# The committed example inputs must be exactly what their manifest makes.
#   tests/cli/check_examples.sh MKINPUT INPUTS_DIR WORKDIR
# Regenerates every example of INPUTS_DIR/examples.txt into WORKDIR with
# INPUTS_DIR/regenerate.sh, then compares `mkinput --describe` of each new file
# with that of the committed one (same text = same attributes, types, values
# and dataset contents). Also checks that every committed .h5 is in the
# manifest and smaller than 200 KB, and every committed deck makes an example. The last line is "N passed, M failed".
set -uo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 MKINPUT INPUTS_DIR WORKDIR" >&2
  exit 2
fi
mkinput=$1
inputs=$2
work=$3
max_bytes=$((200 * 1024))

[ -x "$mkinput" ] || { echo "check_examples.sh: error: '$mkinput' is not an executable" >&2; exit 2; }
[ -r "$inputs/examples.txt" ] || { echo "check_examples.sh: error: no $inputs/examples.txt" >&2; exit 2; }

rm -rf "$work" && mkdir -p "$work/new" "$work/describe" || exit 2
if ! bash "$inputs/regenerate.sh" "$mkinput" "$work/new"; then
  echo "FAIL  regenerate: $inputs/regenerate.sh $mkinput $work/new failed"
  echo "0 passed, 1 failed"
  exit 1
fi

# The names listed in the manifest.
names=()
while IFS= read -r line || [ -n "$line" ]; do
  line=${line#"${line%%[![:space:]]*}"}
  case "$line" in '' | '#'*) continue ;; esac
  names+=("${line%%[[:space:]]*}")
done <"$inputs/examples.txt"

passed=0
failed=0
for name in "${names[@]}"; do
  committed=$inputs/$name
  fresh=$work/new/$name
  if [ ! -f "$committed" ]; then
    echo "FAIL  $name: listed in examples.txt but not committed in $inputs"
    echo "    make it with: $inputs/regenerate.sh $mkinput"
    failed=$((failed + 1))
    continue
  fi
  size=$(wc -c <"$committed")
  if [ "$size" -gt "$max_bytes" ]; then
    echo "FAIL  $name: $size bytes, examples must stay under $max_bytes"
    failed=$((failed + 1))
    continue
  fi
  if ! "$mkinput" --describe "$committed" >"$work/describe/$name.committed" 2>&1; then
    echo "FAIL  $name: mkinput --describe of the committed file failed:"
    sed 's/^/    | /' "$work/describe/$name.committed"
    failed=$((failed + 1))
    continue
  fi
  if ! "$mkinput" --describe "$fresh" >"$work/describe/$name.regenerated" 2>&1; then
    echo "FAIL  $name: mkinput --describe of the regenerated file failed:"
    sed 's/^/    | /' "$work/describe/$name.regenerated"
    failed=$((failed + 1))
    continue
  fi
  if diff -u --label "$name (committed)" --label "$name (regenerated from examples.txt)" \
      "$work/describe/$name.committed" "$work/describe/$name.regenerated" >"$work/describe/$name.diff"; then
    echo "PASS  $name  ($size bytes; mkinput --describe identical)"
    passed=$((passed + 1))
  else
    echo "FAIL  $name: the committed file differs from what examples.txt makes:"
    sed 's/^/    /' "$work/describe/$name.diff"
    echo "    if the manifest is right, regenerate: $inputs/regenerate.sh $mkinput"
    failed=$((failed + 1))
  fi
done

# Committed inputs nobody can regenerate.
for f in "$inputs"/*.h5; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  listed=0
  for name in "${names[@]}"; do [ "$name" = "$base" ] && listed=1; done
  if [ "$listed" = 0 ]; then
    echo "FAIL  $base: committed in $inputs but not listed in examples.txt"
    failed=$((failed + 1))
  fi
done

# Committed decks no example is made from: nothing checks them.
for f in "$inputs"/*.deck; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  if ! grep -qE -- "--set-file $base( |\$)" "$inputs/examples.txt"; then
    echo "FAIL  $base: committed in $inputs but no example of examples.txt is made from it"
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
