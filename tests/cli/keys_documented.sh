#!/usr/bin/env bash
# docs/input-format.md in step with the schema the solver validates with:
# every key `solver --list-keys` prints is documented in its group's section
# ("## `/group`") as `key` (root keys anywhere), and every key a section's
# tables document is one the solver knows.
#   keys_documented.sh SOLVER DOC
set -uo pipefail
solver=$1 doc=$2
keys=$("$solver" --list-keys | sed -n 's/^  \([a-z_.]*\)  .*/\1/p' | sort -u)
[ -n "$keys" ] || { echo "FAIL: $solver --list-keys printed no keys"; exit 1; }
failures=0
# The text of the section of `group` (## `/group` ... up to the next ## heading).
section() { awk -v h="## \`/$1\`" 'index($0, h) == 1 {on = 1; next} /^## / {on = 0} on' "$doc"; }
# Each section read whole first: `grep -q` ends a pipe early, which pipefail
# would count as the section's failure.
declare -A text
for group in run heat md mps; do text[$group]=$(section "$group"); done
for name in $keys; do
  if [[ $name == *.* ]]; then
    group=${name%%.*} key=${name#*.}
    grep -qF "\`$key\`" <<<"${text[$group]:-}" || { echo "FAIL: $name is not documented in $doc (section /$group)"; failures=$((failures + 1)); }
  else
    grep -qF "\`$name\`" "$doc" || { echo "FAIL: root key $name is not documented in $doc"; failures=$((failures + 1)); }
  fi
done
# The other way: a table row's key that the solver does not know.
for group in run heat md mps; do
  for key in $(sed -n 's/^| `\([a-z_0-9]*\)`.*/\1/p' <<<"${text[$group]}"); do
    grep -qx "$group.$key" <<<"$keys" || { echo "FAIL: $doc documents $group.$key, which the solver does not know"; failures=$((failures + 1)); }
  done
done
[ "$failures" -eq 0 ] && echo "input-format.md documents all $(wc -w <<<"$keys") keys, and no others"
[ "$failures" -eq 0 ]
