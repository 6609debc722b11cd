#!/usr/bin/env bash
# Whole runs of the solver and the files they leave behind.
#
#   tests/cli/run_checks.sh --solver PATH --input FILE.h5 --workdir DIR [options] CHECK...
# Options: --mpiexec PATH, --np-flag FLAG, --preflags "...", --timeout SECONDS,
#          --python PATH (a python3 for parsing the report; empty: parse skipped)
# CHECKs:
#   smoke             mpirun -np 4 solver FILE --report R.json --output O.h5 --timeline
#                     T.json: exit 0, R.json (valid JSON with the run's facts, its
#                     steady half), O.h5 and O.xmf exist, T.json a trace with every
#                     rank's steps of the second half
#   error_before_run  an input error (--set heat.dt=1) with --output/--report: exit
#                     non-zero and no O.h5, O.h5.partial, O.xmf or R.json behind
#   bad_output_dir    --output in a folder that does not exist: a clear error naming
#                     the file, non-zero exit, no hang, nothing written
#   bad_report_dir    --report in a folder that does not exist: the same
#   kokkos            --backend kokkos (a build with Kokkos): exit 0, the backend line
#                     names Kokkos and its execution space, the snapshots equal the
#                     host backend's; md on 3 ranks: its trajectory equals the host
#                     backend's, ghosts through MPI; run.halo = ipc on a host space: a
#                     clear error
#   crowded_node      3 ranks held to one core (taskset, mpirun --bind-to none): the
#                     report warns that the node's ranks outnumber its cores and says
#                     what the ranks do about it; 1 rank on that core: no warning
#                     (skipped without taskset or a core it may pin to)
#   two_nodes         4 ranks on two nodes simulated here (tests/support/fake-ssh: a
#                     UTS namespace per node) == 1 rank bit for bit (h5diff); the report
#                     lists both hosts and each rank's node (skipped without unshare
#                     --uts or h5diff)
#   dry_run           --dry-run on 8 ranks with --report and --output: exit 0, the plan
#                     printed (steps, memory against what is free), nothing written; the
#                     rank grid it prints is the one the run then takes (heat weighs x
#                     faces more: 1x2x4, not 2x2x2); a grid too large for the node: exit 1
#   killed_run        a long run with --output, SIGTERM to mpirun's process group: the
#                     job exits 1 (mpirun) or 143 within 20 s, no rank left running; the
#                     ranks stop at a step boundary and commit O.h5 and O.xmf (both whole,
#                     no .partial, the stop line's step their last frame), or (when mpirun
#                     kills them first) leave neither and print no stop line (cli.signals.*
#                     test the clean stop itself)
# The last line is "N passed, M failed" (", K skipped" where checks were skipped).
# Exit 0: all passed; 1: one failed; 77 (ctest's skip code): all were skipped.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

INPUT=""
WORKDIR=""
PYTHON=""
checks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --solver) SOLVER=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --workdir) WORKDIR=$2; shift 2 ;;
    --python) PYTHON=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --np-flag) NP_FLAG=$2; shift 2 ;;
    --preflags) PREFLAGS=$2; shift 2 ;;
    --timeout) CASE_TIMEOUT=$2; shift 2 ;;
    -h | --help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) cli_die "unknown option '$1' (see --help)" ;;
    *) checks+=("$1"); shift ;;
  esac
done
cli_require_tools
[ -r "$INPUT" ] || cli_die "--input '$INPUT' is not a readable file"
[ -n "$WORKDIR" ] || cli_die "--workdir DIR is required"
[ ${#checks[@]} -gt 0 ] || cli_die "name at least one check (see --help)"
case "$PYTHON" in *NOTFOUND) PYTHON="" ;; esac
INPUT=$(cd "$(dirname "$INPUT")" && pwd)/$(basename "$INPUT")

problems=()
problem() { problems+=("$*"); }
# A check that cannot run here says why and returns: SKIP, not PASS.
skip_reason=""
skip() { skip_reason="$*"; }

# Runs the solver in $dir; sets rc, out, err.
run_in() {
  local np=$1
  shift
  out=$dir/stdout
  err=$dir/stderr
  (
    cd "$dir" || exit 2
    cli_run "$np" "$out" "$err" "$@"
    exit "$CLI_RC"
  )
  rc=$?
  last_command=$(cli_command_text "$np" "$@")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    problem "still running after ${CASE_TIMEOUT} s and killed (exit $rc): a rank hangs?"
  fi
}

expect_absent() {
  local f
  for f in "$@"; do
    [ ! -e "$f" ] || problem "$(basename "$f") exists but should not: $f"
  done
}

expect_text() {
  local file=$1
  shift
  local p
  for p in "$@"; do
    grep -qF -- "$p" "$file" || problem "missing text in $(basename "$file"): $p"
  done
}

check_smoke() {
  run_in 4 "$INPUT" --report R.json --output O.h5 --timeline T.json
  [ "$rc" -eq 0 ] || problem "exit code $rc, expected 0"
  local f
  for f in R.json O.h5 O.xmf T.json; do
    [ -s "$dir/$f" ] || problem "$f was not written (or is empty)"
  done
  expect_absent "$dir/O.h5.partial" "$dir/R.json.partial" "$dir/T.json.partial"
  expect_text "$out" "heat run summary" "on 4 ranks" "run report written to R.json" \
    "output written to O.h5 (and O.xmf)"
  [ -s "$dir/O.xmf" ] && expect_text "$dir/O.xmf" "O.h5:/u/00000000" "O.h5:/u/00000200"
  if [ -z "$PYTHON" ]; then
    echo "note: no python3 found: R.json was not parsed"
  elif [ -s "$dir/R.json" ]; then
    local msg
    if ! msg=$("$PYTHON" - "$dir/R.json" 2>&1 <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    r = json.load(f)
problems = []
def want(key, value):
    if r.get(key) != value:
        problems.append("%s is %r, expected %r" % (key, r.get(key), value))
want("solver", "heat")
want("ranks", 4)
want("steps", 200)
want("global_cells", [64, 64, 64])
steps = [row.get("step") for row in r.get("diagnostics", [])]
if steps != [0, 50, 100, 150, 200]:
    problems.append("diagnostics at steps %r, expected [0, 50, 100, 150, 200]" % steps)
if len(r.get("devices", [])) != 4:
    problems.append("devices lists %d ranks, expected 4" % len(r.get("devices", [])))
# The layout of docs/run-report.md: version, job facts, numbers as numbers.
import re
want("schema_version", 2)
# Every value a script reads is a number or an object; the prose stands beside it.
devices = r.get("devices", [])
if [d.get("rank") for d in devices] != [0, 1, 2, 3] or not all(
        isinstance(d.get("host"), str) and isinstance(d.get("gpu"), int) and
        isinstance(d.get("multiprocessors"), int) for d in devices):
    problems.append("devices %r: expected objects with rank, host, gpu, multiprocessors" % devices[:1])
if len(r.get("devices_text", [])) != 4:
    problems.append("devices_text lists %d ranks, expected 4" % len(r.get("devices_text", [])))
for key, p in r.get("phases", {}).items():
    if " " in key or not isinstance(p.get("name"), str) or len(p.get("per_rank", [])) != 4 or \
            abs(max(p["per_rank"]) - p.get("max", -1)) > 1e-12:
        problems.append("phases[%r] %r: expected a key without spaces, its name, 4 per_rank "
                        "seconds whose largest is max" % (key, p))
if "halo_wait" not in r.get("phases", {}):
    problems.append("no phases['halo_wait'] (keys: %r)" % list(r.get("phases", {})))
if not isinstance(r.get("mps_details", {}).get("seconds"), dict) or not all(
        isinstance(v, float) for v in r["mps_details"]["seconds"].values()):
    problems.append("mps_details.seconds %r: expected an object of numbers"
                    % r.get("mps_details", {}).get("seconds"))
types = {"timestamp": str, "job_id": str, "command_line": str, "hosts": list, "git_revision": str,
         "loop_seconds": float, "updates_per_second": float, "parameters": dict, "mps_details": dict}
for key, kind in types.items():
    if not isinstance(r.get(key), kind):
        problems.append("%s is %r, expected a %s" % (key, r.get(key), kind.__name__))
if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", str(r.get("timestamp"))):
    problems.append("timestamp %r is not UTC ISO 8601" % r.get("timestamp"))
if "--report" not in str(r.get("command_line")):
    problems.append("command_line %r lacks the options" % r.get("command_line"))
par = r.get("parameters", {})
for key, kind in {"heat.nx": int, "heat.dt": float, "run.steps": int, "heat.boundary": str}.items():
    if not isinstance(par.get(key), kind) or isinstance(par.get(key), bool):
        problems.append("parameters[%s] is %r, expected a %s" % (key, par.get(key), kind.__name__))
m = r.get("mps_details", {})
for key in ("verified_clients", "expected_clients"):
    if not isinstance(m.get(key), int):
        problems.append("mps_details[%s] is %r, expected an integer" % (key, m.get(key)))
for key in ("daemon_pids", "server_pids"):
    if not isinstance(m.get(key), list) or not all(isinstance(p, int) for p in m.get(key, [])):
        problems.append("mps_details[%s] is %r, expected a list of integers" % (key, m.get(key)))
steady = r.get("steady", {})
if steady.get("steps") != 100 or not 0 < steady.get("seconds", 0) <= r.get("loop_seconds", 0):
    problems.append("steady is %r, expected 100 steps within the loop's time" % steady)
# The timeline: a track a rank, each rank's 100 updates of the second half.
with open(sys.argv[1][:-len("R.json")] + "T.json") as f:
    events = json.load(f)["traceEvents"]
tracks = sorted(e["tid"] for e in events if e["name"] == "thread_name")
# (the update is "inner update" where halos go through MPI, "update" where not)
updates = [e["tid"] for e in events if e["ph"] == "X" and e["name"] in ("update", "inner update")]
if tracks != [0, 1, 2, 3] or sorted(set(updates)) != tracks or len(updates) != 400:
    problems.append("T.json: tracks %r and %d updates (of ranks %r), expected 4 tracks of 100"
                    % (tracks, len(updates), sorted(set(updates))))
if problems:
    print("; ".join(problems))
    sys.exit(1)
EOF
    ); then
      problem "R.json: ${msg:-is not valid JSON}"
    fi
  fi
}

check_error_before_run() {
  run_in 2 "$INPUT" --report R.json --output O.h5 --set heat.dt=1
  [ "$rc" -ne 0 ] || problem "exit code 0, expected a failure"
  expect_text "$err" "--set heat.dt=1: dt = 1 is unstable"
  expect_absent "$dir/O.h5" "$dir/O.h5.partial" "$dir/O.xmf" "$dir/R.json" "$dir/R.json.partial"
}

check_bad_output_dir() {
  run_in 2 "$INPUT" --output "$dir/no_such_dir/O.h5" --set run.steps=5
  [ "$rc" -ne 0 ] || problem "exit code 0, expected a failure"
  expect_text "$err" "--output $dir/no_such_dir/O.h5: folder '$dir/no_such_dir' does not exist"
  expect_absent "$dir/no_such_dir" "$dir/O.h5" "$dir/O.xmf"
}

check_kokkos() {
  local b
  for b in host kokkos; do
    run_in 2 "$INPUT" --backend "$b" --set run.steps=20 --output "$dir/$b.h5"
    [ "$rc" -eq 0 ] || problem "--backend $b: exit code $rc: $(tail -2 "$err")"
  done
  grep -qE "^  backend +kokkos \(Kokkos [0-9]+\.[0-9]+\.[0-9]+, execution space [A-Za-z]+\)" "$out" ||
    problem "the summary's backend line does not name Kokkos: $(grep '^  backend' "$out")"
  for b in host kokkos; do
    h5dump -d /u/00000020 "$dir/$b.h5" >/dev/null 2>&1 || problem "$b.h5 has no snapshot of step 20"
  done
  cmp -s <(h5dump -d /u/00000020 "$dir/host.h5" 2>&1 | tail -n +3) \
    <(h5dump -d /u/00000020 "$dir/kokkos.h5" 2>&1 | tail -n +3) ||
    problem "the last snapshot differs between --backend host and kokkos"
  # md: 3 ranks (3 along one axis: migration across the periodic edge), the
  # trajectory equal to the host backend's bit for bit (test_md_kokkos says why).
  local md
  md="$(dirname "$INPUT")/md_lj.h5"
  for b in host kokkos; do
    run_in 3 "$md" --backend "$b" --set run.steps=20 --output "$dir/md_$b.h5"
    [ "$rc" -eq 0 ] || problem "md --backend $b: exit code $rc: $(tail -2 "$err")"
  done
  expect_text "$out" "ghosts through MPI"
  h5diff -q "$dir/md_host.h5" "$dir/md_kokkos.h5" ||
    problem "md: the trajectories of --backend host and kokkos differ"
  run_in 2 "$md" --backend kokkos --set run.steps=2 --set run.halo=ipc
  [ "$rc" -ne 0 ] || problem "md on kokkos with run.halo = ipc: exit 0, expected a clear error"
  expect_text "$err" "run.halo = ipc needs the CUDA backend"
}

check_crowded_node() {
  command -v taskset >/dev/null || { skip "no taskset (util-linux)"; return; }
  # The first core this process may run on (core 0 may be outside a cpuset).
  local cpu
  cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
  if [ -z "$cpu" ] || ! taskset -c "$cpu" true 2>/dev/null; then
    skip "no core to pin to (Cpus_allowed_list '${cpu}', or taskset -c refused)"
    return
  fi
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  local np
  for np in 3 1; do
    out=$dir/stdout$np
    err=$dir/stderr$np
    last_command="taskset -c $cpu $MPIEXEC $NP_FLAG $np --bind-to none $SOLVER $INPUT --backend host"
    (cd "$dir" && timeout -k 10 "$CASE_TIMEOUT" taskset -c "$cpu" "$MPIEXEC" "$NP_FLAG" "$np" \
      "${pre[@]}" --bind-to none "$SOLVER" "$INPUT" --backend host --set run.steps=5 \
      --report "R$np.json" >"$out" 2>"$err" </dev/null)
    rc=$?
    [ "$rc" -eq 0 ] || problem "$np rank(s) on one core: exit code $rc"
  done
  expect_text "$dir/stdout3" "warning: this node's 3 ranks outnumber the 1 cores they may run on"
  expect_text "$dir/R3.json" "ranks outnumber the 1 cores"
  ! grep -q "outnumber" "$dir/stdout1" "$dir/stderr1" "$dir/R1.json" ||
    problem "1 rank on 1 core was warned about crowding"
}

check_two_nodes() {
  unshare --uts true 2>/dev/null || { skip "no UTS namespaces here (unshare --uts)"; return; }
  command -v h5diff >/dev/null || { skip "no h5diff (hdf5-tools) to compare the fields"; return; }
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  printf 'node1 slots=2\nnode2 slots=2\n' >"$dir/hosts"
  run_in 1 "$INPUT" --backend host --set run.steps=30 --output "$dir/one.h5"
  [ "$rc" -eq 0 ] || problem "1 rank: exit code $rc"
  out=$dir/stdout4
  err=$dir/stderr4
  last_command="$MPIEXEC $NP_FLAG 4 --hostfile hosts --mca plm_rsh_agent fake-ssh $SOLVER ..."
  (cd "$dir" && timeout -k 10 "$CASE_TIMEOUT" "$MPIEXEC" "$NP_FLAG" 4 "${pre[@]}" \
    --hostfile "$dir/hosts" --mca plm_rsh_agent "$here/../support/fake-ssh" \
    "$SOLVER" "$INPUT" --backend host --set run.steps=30 --output "$dir/four.h5" \
    --report "$dir/R.json" >"$out" 2>"$err" </dev/null)
  rc=$?
  [ "$rc" -eq 0 ] || problem "4 ranks on 2 nodes: exit code $rc"
  expect_text "$out" "rank 0 on node1" "rank 3 on node2"
  expect_text "$dir/R.json" '"node1"' '"node2"'
  # h5diff compares exactly (no tolerance given): 0 equal, 1 differ, 2 error
  # (a file or the dataset missing), which must not pass as "equal".
  local diff_rc=0
  h5diff -q "$dir/one.h5" "$dir/four.h5" /u/00000030 /u/00000030 >"$dir/h5diff.out" 2>&1 ||
    diff_rc=$?
  case "$diff_rc" in
    0) ;;
    1) problem "the step-30 field on 4 ranks over 2 nodes differs from 1 rank" ;;
    *) problem "h5diff could not compare /u/00000030 (exit $diff_rc): $(tail -1 "$dir/h5diff.out")" ;;
  esac
}

check_dry_run() {
  run_in 8 "$INPUT" --dry-run --report R.json --output O.h5
  [ "$rc" -eq 0 ] || problem "exit code $rc, expected 0"
  expect_absent "$dir/R.json" "$dir/O.h5" "$dir/O.xmf"
  expect_text "$out" "mpsfw: dry run of $INPUT (solver heat" "nothing was started"
  [ "$(grep -c "^  rank [0-9]*: host " "$out")" -eq 8 ] || problem "not one line for each of 8 ranks"
  expect_text "$out" "  steps      " "  wall limit none" \
    "  memory     heat's fields and halo buffers need " " of host memory per rank, "
  local planned ran
  planned=$(sed -n 's/^  rank grid  \([0-9]*\) x \([0-9]*\) x \([0-9]*\) .*/\1x\2x\3/p' "$out")
  run_in 8 "$INPUT" --set run.steps=2 --set run.diag_every=0
  [ "$rc" -eq 0 ] || problem "the run after the dry run: exit code $rc"
  ran=$(grep -o "on 8 ranks ([0-9x]*)" "$out" | grep -o "[0-9]*x[0-9]*x[0-9]*")
  [ -n "$planned" ] && [ "$planned" = "$ran" ] ||
    problem "the dry run's rank grid is '$planned', the run's '$ran'"
  # The job's end as the run would take it.
  SLURM_JOB_END_TIME=$(($(date +%s) + 3600)) run_in 2 "$INPUT" --dry-run
  grep -Eq "^  wall limit (59|60) min [0-9]+ s left \(SLURM_JOB_END_TIME = [0-9]+\)$" "$out" ||
    problem "the dry run does not show the job's end as its wall limit: $(grep 'wall limit' "$out")"
  # A grid the node cannot hold: refused as the run's preflight would, exit 1.
  run_in 2 "$INPUT" --dry-run --set heat.nx=100000 --set heat.ny=100000
  [ "$rc" -eq 1 ] || problem "a grid too large for the node: exit code $rc, expected 1"
  expect_text "$out" "but only " "the run would be refused" "the run would stop at its memory preflight"
}

check_bad_report_dir() {
  run_in 2 "$INPUT" --report "$dir/no_such_dir/R.json" --set run.steps=5
  [ "$rc" -ne 0 ] || problem "exit code 0, expected a failure"
  expect_text "$err" "--report $dir/no_such_dir/R.json: folder '$dir/no_such_dir' does not exist"
  expect_absent "$dir/no_such_dir" "$dir/R.json"
}

check_killed_run() {
  # Far more steps than can run in the few seconds before the kill, on any device.
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  out=$dir/stdout
  err=$dir/stderr
  last_command="$MPIEXEC $NP_FLAG 2 $SOLVER $INPUT --output O.h5 --set run.steps=100000000 (SIGTERM after 4 s)"
  # --preserve-status: the job's own exit code, not timeout's 124; a job still
  # running 20 s after the SIGTERM is killed (137).
  (cd "$dir" && timeout --preserve-status -s TERM -k 20 4 "$MPIEXEC" "$NP_FLAG" 2 "${pre[@]}" \
    "$SOLVER" "$INPUT" --output O.h5 --set run.steps=100000000 --set run.progress_seconds=1 \
    >"$out" 2>"$err" </dev/null)
  rc=$?
  case "$rc" in
    1 | 143) ;; # mpirun's own code after a SIGTERM, or the ranks' 128 + SIGTERM (srun)
    0) problem "exit code 0 after a SIGTERM: a stopped run must not report success" ;;
    137) problem "still running 20 s after the SIGTERM and killed (exit 137)" ;;
    *) problem "exit code $rc, expected 1 (mpirun after a SIGTERM) or 143 (128 + SIGTERM)" ;;
  esac
  grep -q '^mpsfw: heat ' "$out" || problem "the run did not start before it was killed"
  sleep 1
  if command -v pgrep >/dev/null 2>&1 && pgrep -f -- "$SOLVER $INPUT --output O.h5 --set run.steps=100000000" >/dev/null; then
    problem "solver processes still running after the job ended"
  fi
  local stopped
  stopped=$(grep '^mpsfw: stopped by' "$out")
  if [ -e "$dir/O.h5" ] || [ -e "$dir/O.xmf" ]; then
    # Committed at the stop: both files whole, nothing partial beside them,
    # the .xmf's last frame in the .h5, and the stop line (when mpirun
    # forwarded it before it exited) naming that frame's step.
    [ -s "$dir/O.h5" ] && [ -s "$dir/O.xmf" ] || problem "only one of O.h5 and O.xmf after the stop"
    expect_absent "$dir/O.h5.partial" "$dir/O.xmf.partial"
    h5dump -H "$dir/O.h5" >/dev/null 2>&1 || problem "O.h5 is not a whole HDF5 file"
    [ "$(tail -n 1 "$dir/O.xmf")" = "</Xdmf>" ] || problem "O.xmf does not end with </Xdmf>: cut short"
    local frame
    frame=$(grep -o 'O\.h5:/u/[0-9]*' "$dir/O.xmf" | tail -n 1)
    frame=${frame#O.h5:}
    if [ -z "$frame" ]; then
      problem "O.xmf names no frame of O.h5"
    elif ! h5dump -H -d "$frame" "$dir/O.h5" >/dev/null 2>&1; then
      problem "O.xmf's last frame $frame is not in O.h5"
    fi
    if [ -z "$stopped" ]; then
      echo "note: no 'stopped by SIGTERM' line (mpirun exited before forwarding it); the files are whole"
    elif ! [[ "$stopped" =~ ^"mpsfw: stopped by SIGTERM at step "([0-9]+)"; no checkpoint (run.checkpoint_file is not set)"$ ]]; then
      problem "unexpected stop line: $stopped"
    elif [ "$((10#${frame##*/}))" -ne "${BASH_REMATCH[1]}" ]; then
      problem "stopped at step ${BASH_REMATCH[1]} but the last frame is $frame"
    fi
  else
    # Killed before their step boundary: nothing under a final name, and no
    # claim of a clean stop.
    [ -z "$stopped" ] || problem "'$stopped' printed, but neither O.h5 nor O.xmf exists"
    echo "note: mpirun killed the ranks before their step boundary (no output, as it must be)"
  fi
}

passed=0
failed=0
skipped=0
for check in "${checks[@]}"; do
  case "$check" in
    smoke | error_before_run | bad_output_dir | bad_report_dir | killed_run | kokkos | \
      crowded_node | two_nodes | dry_run) ;;
    *) cli_die "no check named '$check' (see --help)" ;;
  esac
  dir=$WORKDIR/$check
  { rm -rf "$dir" && mkdir -p "$dir"; } || cli_die "cannot make $dir"
  problems=()
  skip_reason=""
  rc=0
  out=$dir/stdout
  err=$dir/stderr
  last_command=""
  "check_$check"
  if [ -n "$skip_reason" ] && [ ${#problems[@]} -eq 0 ]; then
    echo "SKIP  $check: $skip_reason"
    skipped=$((skipped + 1))
  elif [ ${#problems[@]} -eq 0 ]; then
    echo "PASS  $check  (exit $rc)"
    passed=$((passed + 1))
  else
    echo "FAIL  $check"
    echo "    command: (in $dir) $last_command"
    echo "    exit code: $rc"
    for p in "${problems[@]}"; do echo "    - $p"; done
    cli_show stdout "$out"
    cli_show stderr "$err"
    failed=$((failed + 1))
  fi
done
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 77
exit 0
