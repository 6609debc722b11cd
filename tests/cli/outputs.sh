#!/usr/bin/env bash
# Outputs are never lost or misplaced, process level, host backend.
# Every failing run must end with exit 1 (not 139: no crash at exit), exactly
# one "mpsfw: error:" line naming the file and the cause, no HDF5 error stack,
# no abort, no .partial file left and the previous file at the path unchanged.
#   dev_null_output      --output onto a device node: refused before the run;
#                        first a node made in the work folder, then /dev/null,
#                        which must still be a character device afterwards
#   dev_null_report      the same with --report
#   fifo_checkpoint      an MD run.checkpoint_file that is a FIFO: refused, kept
#   disk_full_md         MD checkpoint on a full (256 KiB tmpfs) file system:
#                        "No space left on device" (root and mount needed, else
#                        exit 77: skipped)
#   disk_full_heat       heat snapshots on the same full file system
#   file_limit_md        MD checkpoint under `ulimit -f 64` (64 KiB): SIGXFSZ is
#                        ignored, "File too large" is reported
#   file_limit_heat      heat snapshots under the same limit
#   file_limit_report    --report under `ulimit -f 2`
#   md_atoms_too_close   an MD dataset input (a checkpoint of a 20x too dense FCC
#                        lattice) with atoms closer than 0.5 sigma: refused,
#                        naming both ids
#   deck_as_output       --report, --timeline, --output or run.checkpoint_file
#                        naming the --set-file deck (also as ./deck): refused,
#                        naming the option and the deck, which stays as it was
#   second_writer        a run while another writes the same --output (or
#                        checkpoint): refused at once, naming the other's host
#                        and PID from the lock file; the first run goes on,
#                        stops cleanly and removes its locks; a lock left by a
#                        dead run is taken over with a warning
#   outputs.sh --solver PATH --mpiexec M --np-flag F [--preflags S] [--timeout T]
#              --input-dir DIR --workdir DIR CASE
#   outputs.sh --list
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

CASES=(dev_null_output dev_null_report fifo_checkpoint disk_full_md disk_full_heat file_limit_md
  file_limit_heat file_limit_report md_atoms_too_close deck_as_output second_writer)
cli_case_args 34 "$@"
HEAT=$INPUTS/heat_default.h5
MD=$INPUTS/md_lj.h5

pre=()
[ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"

# solve LIMIT_KIB ARGS...: the solver on 2 ranks in the work folder, each rank
# under `ulimit -f LIMIT_KIB` (0: no limit; mpirun itself is never limited, so
# it can still write stdout). Sets rc; output in out and err.
solve() {
  local limit=$1
  shift
  local -a wrap=()
  # Open MPI's shared-memory segment is a file too: under a limit, use TCP.
  local btl=OMPI_MCA_btl=self,tcp
  [ "$limit" -gt 0 ] && wrap=(env "$btl" bash -c "ulimit -f $limit && exec \"\$@\"" limited)
  last_command="$MPIEXEC $NP_FLAG 2 ${wrap[*]} $SOLVER $*"
  rc=0
  timeout -k 10 "$CASE_TIMEOUT" "$MPIEXEC" "$NP_FLAG" 2 "${pre[@]}" "${wrap[@]}" "$SOLVER" "$@" \
    >out 2>err </dev/null || rc=$?
}

# expect_clean_failure PATTERN...: the run failed the way a user can act on.
expect_clean_failure() {
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    problem "still running after $CASE_TIMEOUT s (exit $rc): a rank hangs?"
  elif [ "$rc" -eq 0 ]; then
    problem "exit code 0, expected a failure"
  elif [ "$rc" -ne 1 ]; then
    problem "exit code $rc, expected 1 (139: a crash at exit; 153: killed by SIGXFSZ)"
  fi
  local n
  n=$(grep -c '^mpsfw: error: ' err)
  [ "$n" -eq 1 ] || problem "$n lines 'mpsfw: error: ...' on stderr, expected exactly 1"
  ! grep -q 'HDF5-DIAG' err || problem "HDF5 printed its error stack"
  ! grep -qE 'Segmentation fault|signal 11|exited on signal' err || problem "a rank crashed"
  ! grep -qE 'error on rank|MPI_ABORT' err || problem "the job was aborted, expected a clean exit"
  local p
  for p in "$@"; do
    grep -qE -- "$p" err || problem "missing text on stderr (extended regex): $p"
  done
  local left
  left=$(find . /dev -maxdepth 2 -name '*.partial' 2>/dev/null)
  [ -z "$left" ] || problem "left behind: $left"
}

# A previous good file at `path` that a failed write must not touch.
previous() { printf 'previous good file\n' >"$1" && cp "$1" "$1.expected"; }
expect_previous() {
  cmp -s "$1" "$1.expected" || problem "the previous $1 was replaced or damaged"
}

# A device node (or, where mknod is not allowed, a FIFO) in the work folder.
make_node() {
  mknod "$1" c 1 3 2>/dev/null || mkfifo "$1" || cli_die "cannot make a node at $1"
}
node_kind() { [ -c "$1" ] && echo char || { [ -p "$1" ] && echo fifo; } || echo other; }

# check_device_refused OPTION: OPTION onto a node here, then (only if that was
# refused: a solver that renames over it must never reach the system's
# /dev/null) onto /dev/null.
check_device_refused() {
  local option=$1
  make_node node
  local kind
  kind=$(node_kind node)
  solve 0 "$HEAT" --set run.steps=5 "$option" node
  expect_clean_failure "^mpsfw: error: $option node: 'node' exists and is a (character device|FIFO)" \
    "not a regular file"
  [ "$(node_kind node)" = "$kind" ] || problem "$option replaced the node in the work folder"
  if [ "$rc" -eq 0 ] || [ "$(node_kind node)" != "$kind" ]; then
    problem "not trying /dev/null: the node here was not refused"
    return
  fi
  [ -c /dev/null ] || cli_die "/dev/null is not a character device before the test"
  solve 0 "$HEAT" --set run.steps=5 "$option" /dev/null
  expect_clean_failure "^mpsfw: error: $option /dev/null: '/dev/null' exists and is a character device"
  [ -c /dev/null ] || problem "/dev/null is no longer a character device"
}

MOUNT=""
# A 256 KiB tmpfs at ./full, or exit 77 (skipped) where it cannot be mounted.
mount_small_disk() {
  mkdir -p full
  if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
    echo "SKIP $case_name: needs root and permission to mount a tmpfs"
    exit 77
  fi
  MOUNT=$PWD/full
  trap 'umount "$MOUNT"' EXIT
}

md_small=(--set md.cells_x=4 --set md.cells_y=4 --set md.cells_z=4)
case "$case_name" in
  dev_null_output) check_device_refused --output ;;
  dev_null_report) check_device_refused --report ;;
  fifo_checkpoint)
    mkfifo ck.h5
    solve 0 "$MD" "${md_small[@]}" --set run.steps=2 --set run.checkpoint_file=ck.h5
    expect_clean_failure "run.checkpoint_file=ck.h5: 'ck.h5' exists and is a FIFO"
    [ -p ck.h5 ] || problem "ck.h5 is no longer a FIFO"
    ;;
  disk_full_md)
    mount_small_disk
    previous full/ck.h5
    # 32 000 atoms: a checkpoint of about 2 MB.
    solve 0 "$MD" --set run.steps=1 --set run.checkpoint_file=full/ck.h5
    expect_clean_failure "^mpsfw: error: checkpoint 'full/ck.h5': .*No space left on device"
    expect_previous full/ck.h5
    ;;
  disk_full_heat)
    mount_small_disk
    previous full/o.h5
    solve 0 "$HEAT" --set run.steps=5 --output full/o.h5
    expect_clean_failure "^mpsfw: error: HDF5 output 'full/o.h5': .*(No space left on device|disk full)"
    expect_previous full/o.h5
    ;;
  file_limit_md)
    previous ck.h5
    solve 64 "$MD" --set run.steps=1 --set run.checkpoint_file=ck.h5
    expect_clean_failure "^mpsfw: error: checkpoint 'ck.h5': .*File too large"
    expect_previous ck.h5
    ;;
  file_limit_heat)
    previous o.h5
    solve 64 "$HEAT" --set run.steps=5 --output o.h5
    expect_clean_failure "^mpsfw: error: HDF5 output 'o.h5': .*(File too large|ulimit -f)"
    expect_previous o.h5
    ;;
  file_limit_report)
    previous r.json
    solve 2 "$HEAT" --set run.steps=5 --report r.json
    expect_clean_failure "^mpsfw: error: 'r.json': cannot write 'r.json.partial': File too large"
    expect_previous r.json
    ;;
  md_atoms_too_close)
    # Nearest neighbours 0.41 sigma apart; a tiny dt keeps them there.
    solve 0 "$MD" "${md_small[@]}" --set md.density=20 --set md.cutoff=1 --set md.skin=0.1 \
      --set md.dt=1e-9 --set run.steps=1 --set run.checkpoint_file=dense.h5
    if [ "$rc" -ne 0 ] || [ ! -s dense.h5 ]; then
      problem "making the dense input failed (exit $rc)"
    else
      # One more step: a checkpoint at run.steps has nothing to run and is not read.
      solve 0 dense.h5 --set md.skin=0.1 --set run.steps=2
      expect_clean_failure \
        "^mpsfw: error: dense.h5: dataset /md/positions: atoms 0 and [0-9]+ \(rows 0 and [0-9]+\) are 0\.41[0-9]* apart, closer than 0\.5 sigma"
    fi
    ;;
  deck_as_output)
    printf 'run.steps=2\n' >deck.txt
    cp deck.txt deck.txt.expected
    for option in --report --timeline --output "--set run.checkpoint_file=./deck.txt"; do
      read -r -a given <<<"$option"
      [ ${#given[@]} -eq 1 ] && given+=(deck.txt)
      solve 0 "$HEAT" --set-file deck.txt "${given[@]}"
      expect_clean_failure "^mpsfw: error: ${given[0]} .*'(\./)?deck\.txt' is the deck --set-file deck\.txt"
      expect_previous deck.txt
    done
    ;;
  second_writer)
    cli_start_job 2 "$HEAT" --backend host --set run.steps=100000000 --set run.diag_every=0 \
      --output same.h5 --set run.checkpoint_file=ck.h5
    holder=$(cat same.h5.lock 2>/dev/null)
    grep -qE "^host .+, PID [0-9]+" <<<"$holder" || problem "same.h5.lock names no host and PID: '$holder'"
    pid=$(sed -n 's/.*PID \([0-9]*\).*/\1/p' <<<"$holder")
    cli_job_ranks "$CLI_JOB" | grep -qx "$pid" || problem "PID $pid of the lock is no rank of the first run"
    for other in "--output same.h5" "--set run.checkpoint_file=ck.h5"; do
      read -r -a given <<<"$other"
      start=$SECONDS
      cli_run 2 out2 err2 "$HEAT" --backend host --set run.steps=5 "${given[@]}"
      [ "$CLI_RC" -eq 1 ] || problem "the second writer ($other): exit $CLI_RC, expected 1"
      [ $((SECONDS - start)) -lt 20 ] || problem "the second writer was refused only after $((SECONDS - start)) s"
      grep -qF "is being written by another run ($holder; lock file" err2 ||
        problem "the second writer ($other) is not refused naming the first: $(head -2 err2)"
    done
    kill -0 "$CLI_JOB" 2>/dev/null || problem "the first run ended while the second was refused"
    cli_signal_rank TERM
    cli_wait_job
    rc=$CLI_RC
    [ "$rc" -eq 143 ] || problem "the first run: exit $rc, expected 143 (stopped by SIGTERM)"
    ! grep -q 'error' err || problem "the first run reported an error: $(grep error err | head -2)"
    for f in same.h5 same.xmf ck.h5; do [ -s "$f" ] || problem "the first run's $f is missing"; done
    for f in same.h5.lock same.xmf.lock ck.h5.lock; do
      [ ! -e "$f" ] || problem "$f was left after the first run ended"
    done
    # A lock nobody holds (its run was killed) is taken over, with a warning.
    printf 'host elsewhere, PID 1\n' >o.h5.lock
    solve 0 "$HEAT" --set run.steps=2 --output o.h5
    [ "$rc" -eq 0 ] || problem "a stale lock stopped the run (exit $rc)"
    grep -qF "warning: took over the lock 'o.h5.lock' of a run that ended without removing it (host elsewhere, PID 1)" err ||
      problem "no warning naming the stale lock's run"
    [ ! -e o.h5.lock ] || problem "o.h5.lock left after the run"
    ;;
esac

cli_case_end "$case_name" "command: $last_command" "exit code: $rc"
