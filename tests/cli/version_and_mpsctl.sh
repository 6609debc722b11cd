#!/usr/bin/env bash
# --version of the three programs names the build (version, revision taken at
# build time, CUDA, Kokkos, HDF5, MPI), and mpsctl checks its options like
# input keys: a bad value exits 1 with a message naming the option and what
# was expected, before anything is started. The solver's --help names the
# options for Kokkos, and --kokkos-help prints Kokkos's own (or, without
# Kokkos, says it was not built in).
#   tests/cli/version_and_mpsctl.sh SOLVER MKINPUT MPSCTL [KOKKOS]
set -uo pipefail
solver=$1 mkinput=$2 mpsctl=$3 kokkos=${4:-0}  # kokkos: 1 when the build has the Kokkos backend
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for program in "$solver" "$mkinput" "$mpsctl"; do
  out=$("$program" --version 2>&1) || fail "$(basename "$program") --version exited $?"
  for part in "mpsfw " "revision " "CUDA " "Kokkos " "HDF5 " "MPI "; do
    grep -q "$part" <<<"$out" || fail "$(basename "$program") --version lacks '$part': $out"
  done
  # What is built, not a fixed line: the Kokkos backend where it is.
  if [ "$kokkos" = 1 ]; then
    grep -q "Kokkos    on, Kokkos [0-9]" <<<"$out" || fail "$(basename "$program") --version does not say Kokkos is built: $out"
  else
    grep -q "Kokkos    not built in" <<<"$out" || fail "$(basename "$program") --version: $out"
  fi
  grep -q "revision unknown" <<<"$out" && git -C "$(dirname "$0")" rev-parse >/dev/null 2>&1 &&
    fail "$(basename "$program") --version has no revision inside a checkout"
done

# Options for Kokkos (tests/cli/bad_inputs.sh runs them: cli.bad.kokkos_*).
out=$("$solver" --help 2>&1) || fail "solver --help exited $?"
grep -qF -- "--kokkos-NAME[=VALUE]" <<<"$out" || fail "solver --help does not name --kokkos-NAME[=VALUE]"
out=$("$solver" --kokkos-help 2>&1)
rc=$?
if [ "$kokkos" = 1 ]; then
  [ "$rc" -eq 0 ] || fail "solver --kokkos-help exited $rc: $out"
  grep -q "Kokkos command line arguments" <<<"$out" || fail "solver --kokkos-help is not Kokkos's help: $out"
else
  [ "$rc" -eq 1 ] || fail "solver --kokkos-help in a build without Kokkos exited $rc, expected 1"
  grep -qF -- "--kokkos-help given, but mpsfw was built without Kokkos" <<<"$out" ||
    fail "solver --kokkos-help without Kokkos: '$out'"
fi

# option, value, what the message must say
while IFS='|' read -r option value expect; do
  out=$(MPSFW_MPS_CONTROL=/nonexistent "$mpsctl" start "$option" "$value" 2>&1)
  rc=$?
  [ "$rc" -eq 1 ] || fail "mpsctl start $option $value exited $rc, expected 1"
  grep -qF -- "$option $value: $expect" <<<"$out" || fail "mpsctl start $option $value: '$out' lacks '$option $value: $expect'"
done <<'CASES'
--policy|odd|expected one of double|even
--timeout|abc|expected a number
--timeout|0|expected a number in (0, 3600]
--atp|0|expected auto, balanced or an integer in [1, 100]
--ranks-per-gpu|0|expected an integer in [1, 1024]
--pinned-mem|lots|
CASES
out=$("$mpsctl" start --bogus 1 2>&1) && fail "mpsctl accepted --bogus"
grep -q "unknown option '--bogus'" <<<"$out" || fail "mpsctl --bogus: '$out'"

# mkinput checks a new input before it replaces anything: a refused one
# leaves the file that was there as it was.
work=$(mktemp -d)
"$mkinput" "$work/in.h5" --set heat.nx=16 >/dev/null || fail "mkinput of a valid input failed"
cp "$work/in.h5" "$work/before.h5"
# Doubles as the shortest exact text (0.1, not 0.10000000000000001).
# (Outputs are read whole before grep -q: pipefail would count a writer it cut short.)
described=$("$mkinput" --describe "$work/in.h5")
grep -qx 'attribute /heat/dt (64-bit float) = 0.1' <<<"$described" ||
  fail "mkinput --describe does not print heat.dt as 0.1: $("$mkinput" --describe "$work/in.h5" | grep /heat/dt)"
out=$("$mkinput" "$work/in.h5" --force --set heat.dt=10 2>&1) && fail "mkinput accepted an unstable heat.dt"
grep -qF "$work/in.h5: attribute /heat/dt" <<<"$out" || fail "mkinput heat.dt=10: '$out' does not name the file and attribute"
cmp -s "$work/in.h5" "$work/before.h5" || fail "a refused mkinput changed or removed the existing $work/in.h5"
[ -e "$work/in.h5.partial" ] && fail "a refused mkinput left $work/in.h5.partial"
# Neither mkinput nor --write-input replaces an existing file without --force.
for writer in "$mkinput $work/in.h5" "$solver --write-input $work/in.h5"; do
  # shellcheck disable=SC2086  # the program and its first arguments
  out=$($writer --set heat.nx=20 2>&1) && fail "$writer replaced an existing file without --force"
  grep -qF "'$work/in.h5' exists; it is replaced only with --force" <<<"$out" ||
    fail "$writer over an existing file: '$out' does not name it and --force"
  cmp -s "$work/in.h5" "$work/before.h5" || fail "$writer without --force changed $work/in.h5"
  # shellcheck disable=SC2086
  $writer --force --set heat.nx=20 >/dev/null 2>&1 || fail "$writer --force failed"
  cmp -s "$work/in.h5" "$work/before.h5" && fail "$writer --force left $work/in.h5 as it was"
  cp "$work/before.h5" "$work/in.h5"
done
# Decks: describe -> deck -> write round-trips (an MD input, every key), lines
# skip comments and blanks, the command line's --set wins, a bad line is named.
"$mkinput" "$work/md.h5" --set solver=md --set md.cells_x=5 --set md.dt=0.004 >/dev/null ||
  fail "mkinput md.h5"
"$mkinput" --describe "$work/md.h5" --as-set > "$work/md.deck" || fail "mkinput --describe --as-set"
"$solver" --write-input "$work/again.h5" --set-file "$work/md.deck" >/dev/null ||
  fail "--write-input --set-file of a described deck failed"
# Each describe must succeed and list the input: two failing ones print the same nothing.
"$mkinput" --describe "$work/md.h5" >"$work/md.described" 2>&1 || fail "mkinput --describe md.h5"
"$mkinput" --describe "$work/again.h5" >"$work/again.described" 2>&1 ||
  fail "mkinput --describe again.h5"
grep -q '^attribute /md/cells_x (64-bit integer) = 5$' "$work/md.described" ||
  fail "mkinput --describe md.h5 does not list md.cells_x = 5: $(head -3 "$work/md.described")"
cmp -s "$work/md.described" "$work/again.described" ||
  fail "describe -> deck -> write did not give the same input"
# /mps keys (a checkpoint holds them all) are taken back, and a deck sets no
# state key: a checkpoint's step and time come out as comments.
"$mkinput" "$work/mps.h5" --set mps.enable=off --set mps.active_thread_percentage=50 \
  --set step=0 >"$work/mps.out" 2>&1 && fail "mkinput accepted --set step=0"
grep -qF -- "--set step=0: 'step' is the step of a checkpoint's saved state, not a setting" \
  "$work/mps.out" || fail "mkinput --set step=0: $(cat "$work/mps.out")"
"$mkinput" "$work/mps.h5" --set mps.enable=off --set mps.active_thread_percentage=50 \
  >"$work/mps.out" 2>&1 || fail "mkinput --set mps.enable=off refused: $(cat "$work/mps.out")"
"$solver" --write-input "$work/mps2.h5" --set mps.enable=off >"$work/mps.out" 2>&1 ||
  fail "--write-input --set mps.enable=off refused: $(cat "$work/mps.out")"
"$mkinput" --describe "$work/mps.h5" --as-set >"$work/mps.deck" || fail "--describe --as-set mps.h5"
grep -qx 'mps.active_thread_percentage=50' "$work/mps.deck" || fail "no mps key in the deck"
grep -qx '# step=0: the saved state.s, not a setting' "$work/mps.deck" ||
  fail "the deck does not show step as a comment: $(grep step "$work/mps.deck")"
"$solver" --write-input "$work/mps3.h5" --set-file "$work/mps.deck" >"$work/mps.out" 2>&1 ||
  fail "a deck of /mps keys was refused: $(cat "$work/mps.out")"
"$mkinput" --describe "$work/mps.h5" >"$work/mps.described" &&
  "$mkinput" --describe "$work/mps3.h5" >"$work/mps3.described" &&
  cmp -s "$work/mps.described" "$work/mps3.described" ||
  fail "describe -> deck -> write of an input with /mps keys did not give the same input"
# A deck's errors name its line, in every command; state keys are refused there too.
printf 'heat.nx=12\nmps.enable=sometimes\n' >"$work/mpsbad.deck"
printf 'heat.nx=twelve\n' >"$work/nx.deck"
printf '# resume from\nstep=5\n' >"$work/step.deck"
for command in "$mkinput $work/x.h5" "$solver --write-input $work/x.h5" "$solver $work/in.h5"; do
  read -r -a cmd <<<"$command"
  out=$(timeout 60 "${cmd[@]}" --set-file "$work/mpsbad.deck" 2>&1) && fail "$command: mps.enable=sometimes accepted"
  grep -qF "$work/mpsbad.deck:2: expected one of auto|on|off" <<<"$out" ||
    fail "$command: a bad /mps deck line is not named: $out"
  out=$(timeout 60 "${cmd[@]}" --set-file "$work/nx.deck" 2>&1) && fail "$command: heat.nx=twelve accepted"
  grep -qF "$work/nx.deck:1: expected an integer" <<<"$out" ||
    fail "$command: a bad deck line is not named: $out"
  out=$(timeout 60 "${cmd[@]}" --set-file "$work/step.deck" 2>&1) && fail "$command: a deck's step=5 accepted"
  grep -qF "$work/step.deck:2: 'step' is the step of a checkpoint's saved state" <<<"$out" ||
    fail "$command: a deck's step=5: $out"
  out=$(timeout 60 "${cmd[@]}" --set time=1 2>&1) && fail "$command: --set time=1 accepted"
  grep -qF -- "--set time=1: 'time' is the time of a checkpoint's saved state" <<<"$out" ||
    fail "$command: --set time=1: $out"
done
# A deck that is a FIFO nobody writes is refused at once, not read forever.
mkfifo "$work/fifo.deck" || fail "mkfifo"
for command in "$mkinput $work/x.h5" "$solver --write-input $work/x.h5" "$solver $work/in.h5"; do
  read -r -a cmd <<<"$command"
  out=$(timeout 20 "${cmd[@]}" --set-file "$work/fifo.deck" 2>&1)
  rc=$?
  [ "$rc" -eq 1 ] || fail "$command --set-file FIFO: exit $rc, expected 1 (124: it hung)"
  grep -qF -- "$work/fifo.deck: is a FIFO (named pipe), not a regular file" <<<"$out" ||
    fail "$command --set-file FIFO: $out"
done
printf '# a deck\n\nrun.steps = 7\nheat.nx=12\n' > "$work/small.deck"
"$mkinput" "$work/small.h5" --set-file "$work/small.deck" --set run.steps=9 >/dev/null ||
  fail "mkinput --set-file"
described=$("$mkinput" --describe "$work/small.h5")
grep -qx 'attribute /heat/nx (64-bit integer) = 12' <<<"$described" ||
  fail "the deck's heat.nx=12 did not reach the input"
grep -qx 'attribute /run/steps (64-bit integer) = 9' <<<"$described" ||
  fail "the command line's run.steps=9 did not win over the deck's 7"
printf 'heat.nx=12\nno equals sign\n' > "$work/bad.deck"
out=$("$solver" --write-input "$work/bad.h5" --set-file "$work/bad.deck" 2>&1) &&
  fail "a deck line without '=' was accepted"
grep -qF "$work/bad.deck:2: expected group.key=value, got 'no equals sign'" <<<"$out" ||
  fail "a bad deck line: '$out' does not name the file and line"
out=$("$solver" "$work/in.h5" --force 2>&1) && fail "solver accepted --force without --write-input"
grep -q "\-\-force is for --write-input" <<<"$out" || fail "solver --force alone: '$out'"

# The programs speak of themselves by the name they were called by (an
# installed mpsfw-solver is not "solver"); a usage error exits 2, a bad input 1.
ln -sf "$solver" "$work/mpsfw-solver" && ln -sf "$mkinput" "$work/mpsfw-mkinput"
"$work/mpsfw-solver" --help | grep -q "^usage: mpirun -np N mpsfw-solver INPUT \[options\]" ||
  fail "mpsfw-solver --help does not name mpsfw-solver"
"$work/mpsfw-solver" --version | grep -q "^mpsfw-solver" || fail "mpsfw-solver --version: $("$work/mpsfw-solver" --version | head -1)"
"$work/mpsfw-mkinput" --help | grep -q "^usage: mpsfw-mkinput OUT.h5" || fail "mpsfw-mkinput --help does not name mpsfw-mkinput"
out=$("$work/mpsfw-mkinput" 2>&1)
[ $? -eq 2 ] || fail "mkinput without an output file: exit not 2"
grep -q "^mpsfw-mkinput: error: no output file given" <<<"$out" || fail "mkinput's usage error: '$out'"
out=$("$solver" --write-input "$work/x.h5" --bogus 2>&1)
[ $? -eq 2 ] || fail "solver --bogus: exit not 2 (a usage error)"
out=$("$solver" --write-input "$work/x.h5" --set heat.nx=0 2>&1)
[ $? -eq 1 ] || fail "solver --set heat.nx=0: exit not 1 (a bad input)"
# --list-keys NAME with a space lists that solver's keys only.
keys=$("$solver" --list-keys md 2>&1) || fail "--list-keys md exited $?"
grep -q "md.cutoff" <<<"$keys" && ! grep -q "heat.nx" <<<"$keys" ||
  fail "--list-keys md (a space) did not list md's keys alone"
rm -rf "$work"

if [ "$failures" -eq 0 ]; then echo "version and mpsctl options: ok"; fi
[ "$failures" -eq 0 ]
