#!/usr/bin/env bash
# A text deck as the input itself (`solver run.deck`), process level, host
# backend.
#   committed_decks   every deck of inputs/ runs as the input (no steps) with
#                     the same parameters in its report as the .h5 made from
#                     it, and the report names the deck as the input
#   same_run          heat_default.deck and heat_default.h5 (20 steps), and
#                     md_lj.deck and md_lj.h5 (4³ cells, 10 steps), on 2 ranks:
#                     the same diagnostics, digit for digit
#   command_line_wins --set-file and --set over a deck input: the later wins
#                     (deck < --set-file < --set), the summary says so
#   errors            each a clean failure naming the deck and the line: required
#                     keys missing (all listed at once), no solver line, an
#                     unknown key (with "did you mean"), heat.initial = dataset
#                     (a deck has no datasets), --output onto the deck; a text
#                     file that is no deck names what an input may be;
#                     --describe of a deck lists its settings
#   deck_input.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#                 --input-dir DIR --workdir DIR CASE
#   deck_input.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(committed_decks same_run command_line_wins errors)
cli_case_ranks() { case "$1" in same_run) echo 2 ;; *) echo 1 ;; esac; }
cli_case_args 21 "$@"

rc=0
last_command=""
# solve NP ARGS...: the solver on NP ranks, host backend; sets rc, output in out and err.
solve() {
  local np=$1
  shift
  last_command=$(cli_command_text "$np" --backend host "$@")
  cli_run "$np" out err --backend host "$@"
  rc=$CLI_RC
}
# ok NP ARGS...: a run that must succeed.
ok() {
  solve "$@"
  [ "$rc" -eq 0 ] || problem "exit code $rc of: $last_command: $(grep -m1 'error' err)"
}
# The diagnostics rows of ./out: the lines that are numbers only.
rows() { grep -E '^ +[0-9][0-9 .e+-]*$' out; }

case "$case_name" in
  committed_decks)
    command -v python3 >/dev/null 2>&1 || { echo "SKIP  $case_name: no python3 to read the reports"; exit 77; }
    decks=("$INPUTS"/*.deck)
    [ -e "${decks[0]}" ] || problem "no deck in $INPUTS"
    for deck in "${decks[@]}"; do
      [ -e "$deck" ] || continue
      h5=${deck%.deck}.h5
      name=$(basename "$deck")
      [ -f "$h5" ] || { problem "$name: no $(basename "$h5") beside it"; continue; }
      ok 1 "$deck" --set run.steps=0 --report "$name.json"
      ok 1 "$h5" --set run.steps=0 --report "$name.h5.json"
      [ -s "$name.json" ] && [ -s "$name.h5.json" ] || continue
      python3 - "$name.json" "$name.h5.json" "$deck" >check.txt 2>&1 <<'EOF' ||
import json, sys
deck, h5 = (json.load(open(p)) for p in sys.argv[1:3])
if deck["input"] != sys.argv[3]:
    print("the report's input is %r, not the deck %r" % (deck["input"], sys.argv[3]))
a, b = deck["parameters"], h5["parameters"]
for key in sorted(set(a) | set(b)):
    if a.get(key) != b.get(key):
        print("%s: %r from the deck, %r from the .h5" % (key, a.get(key), b.get(key)))
EOF
        problem "$name: cannot compare the reports: $(cat check.txt)"
      [ ! -s check.txt ] || problem "$name run as the input differs from $(basename "$h5"): $(cat check.txt)"
    done
    ;;
  same_run)
    ok 2 "$INPUTS/heat_default.deck" --set run.steps=20 --set run.diag_every=5
    rows >deck.rows
    ok 2 "$INPUTS/heat_default.h5" --set run.steps=20 --set run.diag_every=5
    rows >h5.rows
    [ -s deck.rows ] || problem "no diagnostics rows from heat_default.deck"
    cmp -s deck.rows h5.rows || problem "heat: the deck's diagnostics differ from the .h5's: $(diff deck.rows h5.rows | head -4)"
    small=(--set md.cells_x=4 --set md.cells_y=4 --set md.cells_z=4 --set run.steps=10
      --set run.diag_every=5)
    ok 2 "$INPUTS/md_lj.deck" "${small[@]}"
    rows >md_deck.rows
    ok 2 "$INPUTS/md_lj.h5" "${small[@]}"
    rows >md_h5.rows
    [ -s md_deck.rows ] || problem "no thermo rows from md_lj.deck"
    cmp -s md_deck.rows md_h5.rows || problem "md: the deck's thermo differs from the .h5's: $(diff md_deck.rows md_h5.rows | head -4)"
    ;;
  command_line_wins)
    printf 'run.steps = 6\nrun.diag_every = 3\n' >later.deck
    ok 1 "$INPUTS/heat_uneven.deck" --set-file later.deck --report a.json
    grep -qE '^ +6 ' out || problem "--set-file run.steps = 6 did not win over the deck's 40: $(rows | tail -1)"
    ok 1 "$INPUTS/heat_uneven.deck" --set-file later.deck --set run.steps=4 --report b.json
    grep -qE '^ +4 ' out || problem "--set run.steps=4 did not win over --set-file: $(rows | tail -1)"
    ! grep -qE '^ +6 ' out || problem "--set run.steps=4 ran to step 6"
    ;;
  errors)
    # Required keys: every missing one at once, by name.
    printf 'solver = heat\nrun.steps = 2\nheat.nx = 8\n' >part.deck
    solve 0 part.deck
    cli_expect_clean_failure "$rc" "part\.deck: a deck needs a line for every required key"
    for key in heat.ny heat.nz heat.dx heat.dt heat.boundary heat.initial; do
      grep -q "^  $key: " err || problem "the missing key $key is not listed"
    done
    ! grep -q "^  heat.nx: " err || problem "heat.nx is listed as missing though the deck sets it"
    # No solver line.
    grep -v '^solver' "$INPUTS/heat_uneven.deck" >nosolver.deck
    solve 0 nosolver.deck
    cli_expect_clean_failure "$rc" "nosolver\.deck: a deck needs a line for every required key" \
      "solver: one of"
    # A misspelt key: the file, the line and the near name.
    sed 's/^heat.ny = /heat.nyy = /' "$INPUTS/heat_uneven.deck" >typo.deck
    line=$(grep -n '^heat.nyy' typo.deck | cut -d: -f1)
    solve 0 typo.deck
    cli_expect_clean_failure "$rc" "typo\.deck:$line: unknown key 'heat\.nyy'" "did you mean 'heat\.ny'"
    # heat.initial = dataset: a deck has no /heat/u0.
    sed 's/^heat.initial = .*/heat.initial = dataset/' "$INPUTS/heat_uneven.deck" >dataset.deck
    solve 0 dataset.deck
    cli_expect_clean_failure "$rc" "dataset\.deck:[0-9]+: heat\.initial = dataset reads /heat/u0 from an HDF5 input" \
      "the deck dataset\.deck"
    # The output onto the deck itself.
    cp "$INPUTS/heat_uneven.deck" mine.deck
    cp mine.deck mine.deck.before
    solve 0 mine.deck --output mine.deck
    cli_expect_clean_failure "$rc" "'mine\.deck' is the input file"
    cmp -s mine.deck mine.deck.before || problem "the deck was changed by a refused run"
    # A text file that is no deck.
    printf 'hello\nworld\n' >notes.txt
    solve 0 notes.txt
    cli_expect_clean_failure "$rc" "notes\.txt: cannot open: not an HDF5 file" \
      "or a text deck of key = value lines with a line solver = NAME"
    # --describe of a deck: its settings, as given.
    solve 0 --describe "$INPUTS/heat_uneven.deck"
    [ "$rc" -eq 0 ] || problem "--describe of a deck: exit $rc: $(head -2 err)"
    grep -qx 'heat.nx=31' out && grep -qx 'solver=heat' out ||
      problem "--describe of a deck does not list its settings: $(head -3 out)"
    ;;
esac

cli_case_end "$case_name" "command: $last_command" "exit code: $rc"
