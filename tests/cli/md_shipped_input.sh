#!/usr/bin/env bash
# The shipped MD example as a user runs it: mpirun -np NP solver
# inputs/md_lj.h5 (LAMMPS's in.lj, 32 000 atoms) for STEPS steps with a
# checkpoint. Passes when the run exits 0, the total energy per atom of every
# thermo line stays within 1e-4 (relative) of the first (the drift bound of
# docs/md.md), and the checkpoint holds every atom id 0 .. N-1 exactly once
# (read with h5dump; where there is none, the solver's own atom count at every
# thermo line is the check, and the script says so).
#
#   tests/cli/md_shipped_input.sh --solver PATH --input md_lj.h5 --workdir DIR
#        --np N [--steps 200] [--backend host] [--h5dump PATH] [launcher options]
# Launcher options: --mpiexec PATH, --np-flag FLAG, --preflags "...", --timeout SECONDS
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

INPUT=""
WORKDIR=""
NP=""
STEPS=200
BACKEND=host
H5DUMP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --solver) SOLVER=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --workdir) WORKDIR=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --backend) BACKEND=$2; shift 2 ;;
    --h5dump) H5DUMP=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --np-flag) NP_FLAG=$2; shift 2 ;;
    --preflags) PREFLAGS=$2; shift 2 ;;
    --timeout) CASE_TIMEOUT=$2; shift 2 ;;
    -h | --help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) cli_die "unknown argument '$1' (see --help)" ;;
  esac
done
cli_require_tools
[ -r "$INPUT" ] || cli_die "--input '$INPUT' is not a readable file"
[ -n "$WORKDIR" ] || cli_die "--workdir DIR is required"
[ -n "$NP" ] || cli_die "--np N is required"
[ -z "$H5DUMP" ] || command -v "$H5DUMP" >/dev/null 2>&1 || cli_die "h5dump '$H5DUMP' not found"
INPUT=$(cd "$(dirname "$INPUT")" && pwd)/$(basename "$INPUT")
rm -rf "$WORKDIR" && mkdir -p "$WORKDIR" || cli_die "cannot make $WORKDIR"
out=$WORKDIR/stdout
err=$WORKDIR/stderr

problems=()
problem() { problems+=("$*"); }

args=("$INPUT" --backend "$BACKEND" --set "run.steps=$STEPS" --set run.diag_every=50
      --set "run.checkpoint_file=$WORKDIR/ck.h5")
cli_run "$NP" "$out" "$err" "${args[@]}"
rc=$CLI_RC
if [ "$rc" -ne 0 ]; then
  problem "exit code $rc, expected 0"
else
  # Thermo lines: step time temperature potential kinetic total pressure.
  drift=$(awk '$1 ~ /^[0-9]+$/ && NF == 7 { if (n++ == 0) e0 = $6; d = ($6 - e0) / e0;
               if (d < 0) d = -d; if (d > worst) worst = d; last = $1 }
               END { if (n < 2) print "none"; else printf "%.3g %d %d\n", worst, n, last }' "$out")
  read -r worst lines last <<<"$drift"
  if [ "$worst" = "none" ]; then
    problem "fewer than two thermo lines in the output"
  else
    [ "$last" -eq "$STEPS" ] || problem "the last thermo line is step $last, expected $STEPS"
    awk -v w="$worst" 'BEGIN { exit !(w < 1e-4) }' ||
      problem "total energy drifted by $worst (relative) over $STEPS steps, bound 1e-4"
    echo "total energy: largest relative change $worst over $lines thermo lines"
  fi
  atoms=$(sed -n 's/^mpsfw: md \([0-9]*\) atoms.*/\1/p' "$out")
  [ -n "$atoms" ] || problem "no 'mpsfw: md N atoms' line in the output"
  if [ -z "$H5DUMP" ]; then
    echo "note: no --h5dump: the checkpoint's ids were not listed (the solver counted the atoms)"
  elif [ -s "$WORKDIR/ck.h5" ] && [ -n "$atoms" ]; then
    # Every id once: sorted, the ids are exactly 0 .. N-1.
    "$H5DUMP" -d /md/ids -y -w 1 "$WORKDIR/ck.h5" | sed -n '/DATA {/,/}/p' |
      tr -d ' ,' | grep -E '^[0-9]+$' | sort -n >"$WORKDIR/ids"
    count=$(wc -l <"$WORKDIR/ids")
    [ "$count" -eq "$atoms" ] || problem "the checkpoint holds $count atoms, expected $atoms"
    awk '$1 != NR - 1 { bad = 1; exit } END { exit bad }' "$WORKDIR/ids" ||
      problem "the checkpoint's ids are not 0 .. $((atoms - 1)), each once"
  else
    problem "no checkpoint written to $WORKDIR/ck.h5"
  fi
fi

if [ ${#problems[@]} -eq 0 ]; then
  echo "PASS  md_lj.h5 on $NP ranks, $STEPS steps, backend $BACKEND"
  exit 0
fi
echo "FAIL  md_lj.h5 on $NP ranks"
echo "    command: $(cli_command_text "$NP" "${args[@]}")"
for p in "${problems[@]}"; do echo "    - $p"; done
cli_show stdout "$out"
cli_show stderr "$err"
exit 1
