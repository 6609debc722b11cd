# Sourced by the script-driven tests: show_file LABEL FILE [MAX_LINES] prints a
# captured file indented (at most MAX_LINES, default 40) for failure reports.
show_file() {
  local label=$1 file=$2 max=${3:-40}
  echo "    --- $label ---"
  if [ -s "$file" ]; then
    sed -n "1,${max}{s/^/    | /;p}" "$file"
    local n
    n=$(wc -l <"$file")
    [ "$n" -gt "$max" ] && echo "    | ... ($n lines in all)"
  else
    echo "    | (empty)"
  fi
  return 0
}
