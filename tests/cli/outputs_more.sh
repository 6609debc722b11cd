#!/usr/bin/env bash
# More full disks (outputs.sh has the MD checkpoint and the heat
# snapshots), process level, host backend, 2 ranks, on a 256 KiB tmpfs (root
# and mount needed, else exit 77: skipped). A small run first leaves a good
# file there; the full-size run then fails with exit 1 and one error naming the
# file and the cause, leaves no .partial and the good file byte for byte.
#   disk_full_md_trajectory    --output full/T.h5 of 32 000 atoms: the earlier
#                              T.h5 and T.xmf of 256 atoms unchanged
#   disk_full_heat_checkpoint  run.checkpoint_file = full/ck.h5 of a 64^3 grid: the
#                              earlier ck.h5 of an 8^3 grid unchanged, and it resumes
#   outputs_more.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#                   --input-dir DIR --workdir DIR CASE
#   outputs_more.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(disk_full_md_trajectory disk_full_heat_checkpoint)
cli_case_args 14 "$@"

rc=0
last_command=""
# solve ARGS...: the solver on 2 ranks, host backend; sets rc.
solve() {
  last_command=$(cli_command_text 2 --backend host "$@")
  cli_run 2 out err --backend host "$@"
  rc=$CLI_RC
}
# good FILE...: the small run's files must exist; copies kept to compare.
good() {
  local f
  for f in "$@"; do
    [ -s "$f" ] || { problem "the small run wrote no $f (exit $rc): $(tail -2 err)"; return 1; }
    cp "$f" "$f.before"
  done
}
unchanged() {
  local f
  for f in "$@"; do
    cmp -s "$f" "$f.before" || problem "the earlier $f was replaced or damaged"
  done
}

cli_mount_small_disk full
case "$case_name" in
  disk_full_md_trajectory)
    MD=$INPUTS/md_lj.h5
    solve "$MD" --set md.cells_x=4 --set md.cells_y=4 --set md.cells_z=4 --set run.steps=2 \
      --output full/T.h5
    good full/T.h5 full/T.xmf || cli_case_end "$case_name"
    # 32 000 atoms: about 1.8 MB a frame.
    solve "$MD" --set run.steps=2 --output full/T.h5
    cli_expect_clean_failure "$rc" \
      "^mpsfw: error: .*'full/T\.h5'.*(No space left on device|disk full)"
    unchanged full/T.h5 full/T.xmf
    ;;
  disk_full_heat_checkpoint)
    HEAT=$INPUTS/heat_default.h5
    solve "$HEAT" --set heat.nx=8 --set heat.ny=8 --set heat.nz=8 --set run.steps=5 \
      --set run.checkpoint_file=full/ck.h5
    good full/ck.h5 || cli_case_end "$case_name"
    # 64^3 cells: two fields of 2 MiB.
    solve "$HEAT" --set run.steps=5 --set run.checkpoint_file=full/ck.h5
    cli_expect_clean_failure "$rc" \
      "^mpsfw: error: checkpoint 'full/ck\.h5': .*(No space left on device|disk full)"
    unchanged full/ck.h5
    # Still the input it was: it resumes (from step 5 of the 8^3 run).
    solve full/ck.h5 --set run.steps=7
    [ "$rc" -eq 0 ] || problem "the earlier checkpoint no longer resumes (exit $rc): $(tail -2 err)"
    ;;
esac

cli_case_end "$case_name" "command: $last_command" "exit code: $rc"
