#!/usr/bin/env bash
# (Re)writes every example input listed in examples.txt with mkinput.
#   inputs/regenerate.sh MKINPUT [OUTDIR]
# MKINPUT: the built mkinput executable (e.g. build/default/apps/mkinput).
# OUTDIR:  where the files go; default: this folder (the committed examples).
# Each line of examples.txt is "<file name> <mkinput arguments...>"; blank
# lines and lines starting with '#' are skipped. Stops at the first failure.
set -euo pipefail

usage() {
  echo "usage: $0 MKINPUT [OUTDIR]" >&2
  echo "  writes every example of examples.txt into OUTDIR (default: $(dirname "$0"))" >&2
  exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
here=$(cd "$(dirname "$0")" && pwd)
mkinput=$1
outdir=${2:-$here}
manifest=$here/examples.txt

if [ ! -x "$mkinput" ] || [ -d "$mkinput" ]; then
  echo "regenerate.sh: error: '$mkinput' is not an executable (build it: make -C build mkinput)" >&2
  exit 2
fi
if [ ! -r "$manifest" ]; then
  echo "regenerate.sh: error: cannot read the manifest '$manifest'" >&2
  exit 2
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
# The manifest names decks relative to this folder.
cd "$here"

count=0
line_no=0
while IFS= read -r line || [ -n "$line" ]; do
  line_no=$((line_no + 1))
  # Skip blank lines and comments.
  trimmed=${line#"${line%%[![:space:]]*}"}
  case "$trimmed" in '' | '#'*) continue ;; esac
  read -r -a words <<<"$trimmed"
  name=${words[0]}
  args=("${words[@]:1}")
  case "$name" in
    */* | -*) echo "regenerate.sh: error: $manifest:$line_no: '$name' is not a plain file name" >&2
              exit 1 ;;
  esac
  echo "regenerate.sh: $name <- mkinput ${args[*]}"
  if ! "$mkinput" "$outdir/$name" --force "${args[@]}" >/dev/null; then
    echo "regenerate.sh: error: $manifest:$line_no: mkinput failed for $name" >&2
    exit 1
  fi
  count=$((count + 1))
done <"$manifest"

if [ "$count" -eq 0 ]; then
  echo "regenerate.sh: error: $manifest lists no example" >&2
  exit 1
fi
echo "regenerate.sh: wrote $count example(s) into $outdir"
