# shellcheck shell=bash
# Shared helpers of the process-level tests in tests/cli (sourced, not run).
# Bash 4 or newer. The sourcing script sets these (or takes the defaults):
#   SOLVER        the solver executable
#   MPIEXEC       mpirun/mpiexec (default: mpiexec on PATH)
#   NP_FLAG       its process-count flag (default: -n)
#   PREFLAGS      extra mpiexec flags before the program, one string, split on spaces
#   CASE_TIMEOUT  seconds before one run counts as hung (default: 60)

MPIEXEC=${MPIEXEC:-mpiexec}
NP_FLAG=${NP_FLAG:-"-n"}
PREFLAGS=${PREFLAGS:-}
CASE_TIMEOUT=${CASE_TIMEOUT:-60}

# Open MPI refuses root and more ranks than cores unless told; ctest sets these
# too, this makes the scripts work when run by hand.
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

cli_die() {
  echo "$(basename "$0"): error: $*" >&2
  exit 2
}

# Checks the tools every script needs.
cli_require_tools() {
  [ -n "${SOLVER:-}" ] || cli_die "--solver PATH is required"
  [ -x "$SOLVER" ] || cli_die "solver '$SOLVER' is not an executable"
  command -v timeout >/dev/null 2>&1 || cli_die "the 'timeout' command (coreutils) is needed"
  command -v "$MPIEXEC" >/dev/null 2>&1 || cli_die "MPI launcher '$MPIEXEC' not found"
}

# cli_case_args HELP_LINES "$@": the options of a script of cases (--solver,
# --input-dir, --workdir, --mpiexec, --np-flag, --preflags, --timeout, --list,
# --help: lines 2..HELP_LINES of its header) and the CASE; with a CASES array,
# CASE must be one of them and --list prints "CASE RANKS" (cli_case_ranks,
# 2 unless the script redefines it). Sets INPUTS, WORKDIR and case_name and
# enters WORKDIR, made afresh: an existing one is only replaced when a case
# made it (its .mpsfw-cli-case mark), never a folder of someone else's.
cli_case_ranks() { echo 2; }
cli_case_args() {
  local help_lines=$1 c
  shift
  INPUTS="" WORKDIR="" case_name=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --solver) SOLVER=$2; shift 2 ;;
      --input-dir) INPUTS=$2; shift 2 ;;
      --workdir) WORKDIR=$2; shift 2 ;;
      --mpiexec) MPIEXEC=$2; shift 2 ;;
      --np-flag) NP_FLAG=$2; shift 2 ;;
      --preflags) PREFLAGS=$2; shift 2 ;;
      --timeout) CASE_TIMEOUT=$2; shift 2 ;;
      --list)
        for c in "${CASES[@]}"; do echo "$c $(cli_case_ranks "$c")"; done
        exit 0
        ;;
      -h | --help) sed -n "2,${help_lines}s/^# \{0,1\}//p" "$0"; exit 0 ;;
      -*) cli_die "unknown option '$1' (see --help)" ;;
      *) case_name=$1; shift ;;
    esac
  done
  cli_require_tools
  [ -d "$INPUTS" ] || cli_die "--input-dir '$INPUTS' is not a folder"
  # The case runs in WORKDIR: paths given relative to here must still hold.
  SOLVER="$(cd "$(dirname "$SOLVER")" && pwd)/$(basename "$SOLVER")"
  INPUTS="$(cd "$INPUTS" && pwd)"
  [ -n "$WORKDIR" ] && [ -n "$case_name" ] || cli_die "--workdir DIR and a CASE are required"
  if [ ${#CASES[@]} -gt 0 ]; then
    case " ${CASES[*]} " in *" $case_name "*) ;; *) cli_die "no case named '$case_name'" ;; esac
  fi
  if [ -e "$WORKDIR" ] && [ ! -e "$WORKDIR/.mpsfw-cli-case" ] &&
    [ -n "$(ls -A "$WORKDIR" 2>/dev/null)" ]; then
    cli_die "--workdir '$WORKDIR' holds files no case made (no .mpsfw-cli-case mark): not replacing it; remove it by hand or pick another folder"
  fi
  rm -rf "$WORKDIR" && mkdir -p "$WORKDIR" && cd "$WORKDIR" && : >.mpsfw-cli-case ||
    cli_die "cannot make $WORKDIR"
}

# cli_run NP OUT ERR [ARGS...]: runs the solver on NP ranks (NP = 0: directly,
# as an MPI singleton) under `timeout`, stdout to OUT and stderr to ERR; sets
# CLI_RC to the exit code (124: still running after CASE_TIMEOUT seconds).
# shellcheck disable=SC2034  # CLI_RC is read by the sourcing scripts
cli_run() {
  local np=$1 out=$2 err=$3
  shift 3
  local -a launcher=()
  if [ "$np" -gt 0 ]; then
    local -a pre=()
    [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
    launcher=("$MPIEXEC" "$NP_FLAG" "$np" "${pre[@]}")
  fi
  CLI_RC=0
  timeout -k 10 "$CASE_TIMEOUT" "${launcher[@]}" "$SOLVER" "$@" >"$out" 2>"$err" </dev/null ||
    CLI_RC=$?
}

# The command line cli_run would use, for messages.
cli_command_text() {
  local np=$1
  shift
  if [ "$np" -gt 0 ]; then
    echo "$MPIEXEC $NP_FLAG $np${PREFLAGS:+ $PREFLAGS} $SOLVER $*"
  else
    echo "$SOLVER $*"
  fi
}

# True when an NVIDIA GPU is visible to the driver on this machine.
cli_gpu_present() {
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# Prints a captured file indented, at most 40 lines, for failure reports.
# shellcheck source=../support/show_file.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/show_file.sh"
cli_show() { show_file "$1" "$2" 40; }

# What a one-case script found: problem TEXT adds one; cli_case_end NAME
# [LINES...] prints PASS, or FAIL with LINES, the problems and the captured
# out/err of the work folder, and exits 0 or 1.
problems=()
problem() { problems+=("$*"); }
cli_case_end() {
  local name=$1 line p
  shift
  if [ ${#problems[@]} -eq 0 ]; then
    echo "PASS  $name"
    exit 0
  fi
  echo "FAIL  $name"
  for line in "$@"; do echo "    $line"; done
  for p in "${problems[@]}"; do echo "    - $p"; done
  cli_show stdout out
  cli_show stderr err
  exit 1
}

# The PIDs of every descendant of PID (children, theirs, ...), from the ppid
# field of /proc/*/stat: a job's own processes, never another job's.
cli_descendants() {
  local root=$1 f line pid rest ppid p c
  local -A kids=()
  for f in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$f" || continue
    pid=${line%% *}
    rest=${line##*) }  # after "(comm)", which may hold spaces
    read -r _ ppid _ <<<"$rest"
    kids[$ppid]+=" $pid"
  done
  local -a queue=("$root")
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    for c in ${kids[$p]:-}; do
      echo "$c"
      queue+=("$c")
    done
  done
}

# The ranks of the job whose mpirun is PID: its descendants that run $SOLVER,
# oldest first (by start time).
cli_job_ranks() {
  local exe pid
  exe=$(readlink -f "$SOLVER")
  for pid in $(cli_descendants "$1"); do
    [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] || continue
    # Field 22 of stat (the 20th after "(comm) "): the start time.
    echo "$(cut -d' ' -f20 <<<"$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null)") $pid"
  done | sort -n | cut -d' ' -f2
}

# cli_start_job NP ARGS...: the solver on NP ranks in the background (stdout
# to ./out, stderr to ./err); sets CLI_JOB to mpirun's PID and returns once
# the run printed its start line (a problem after 20 s without).
# shellcheck disable=SC2034  # CLI_JOB is read by the sourcing scripts
cli_start_job() {
  local np=$1
  shift
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  "$MPIEXEC" "$NP_FLAG" "$np" "${pre[@]}" "$SOLVER" "$@" >out 2>err </dev/null &
  CLI_JOB=$!
  for _ in $(seq 1 200); do
    grep -q '^mpsfw: \(heat\|md\) ' out 2>/dev/null && { sleep 1; return 0; }
    kill -0 "$CLI_JOB" 2>/dev/null || { problem "the run ended before it started"; return 1; }
    sleep 0.1
  done
  problem "the run did not start within 20 s"
  return 1
}

# cli_wait_job: waits for CLI_JOB, at most CASE_TIMEOUT s (then it kills the
# job's own processes: other tests' solvers may run beside it); sets CLI_RC.
cli_wait_job() {
  local waited=0
  local -a ranks=()
  while kill -0 "$CLI_JOB" 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    if [ "$waited" -gt $((CASE_TIMEOUT * 5)) ]; then
      problem "still running ${CASE_TIMEOUT} s after the signal"
      mapfile -t ranks < <(cli_job_ranks "$CLI_JOB")
      kill -CONT "${ranks[@]}" 2>/dev/null  # a rank a case held with SIGSTOP
      kill -KILL "${ranks[@]}" "$CLI_JOB" 2>/dev/null
      break
    fi
  done
  CLI_RC=0
  wait "$CLI_JOB" || CLI_RC=$?
}

# cli_signal_rank SIGNAL [PID]: SIGNAL to PID, or to the newest rank of
# CLI_JOB (never a machine-wide pkill, which could pick another job's).
cli_signal_rank() {
  local rank=${2:-}
  [ -n "$rank" ] || rank=$(cli_job_ranks "$CLI_JOB" | tail -1)
  if [ -n "$rank" ]; then
    kill "-$1" "$rank" || problem "could not send SIG$1 to rank process $rank"
  else
    problem "no rank of job $CLI_JOB to signal"
  fi
}

# The "mpsfw: stopped by SIGNAL at step N; ..." line of ./out (status 1: none).
cli_stopped_line() { grep -E "^mpsfw: stopped by $1 at step [0-9]+; " out; }

# A problem for every *.partial file under the work folder.
cli_no_partials() {
  local left
  left=$(find . -name '*.partial')
  [ -z "$left" ] || problem "files left behind: $left"
}

# cli_expect_ended REPORT HOW SIGNAL STEP CHECKPOINT: run.json's "ended"
# object ("-" for null).
cli_expect_ended() {
  local got
  got=$(python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["ended"]
print(e["how"], e["signal"] or "-", e["step"], e["checkpoint"] or "-")' "$1" 2>&1) ||
    got="unreadable: $got"
  [ "$got" = "$2 $3 $4 $5" ] || problem "$1: ended is '$got', expected '$2 $3 $4 $5'"
}

# cli_resume CHECKPOINT NP STEPS [ARGS...]: runs the checkpoint as the input
# to step STEPS (./resumed.out, .err, .json); a problem unless it exits 0.
cli_resume() {
  local input=$1 np=$2 steps=$3
  shift 3
  cli_run "$np" resumed.out resumed.err "$input" --backend host --set "run.steps=$steps" \
    --report resumed.json "$@"
  [ "$CLI_RC" -eq 0 ] ||
    problem "resuming from $input failed (exit $CLI_RC): $(tail -3 resumed.err)"
}

# cli_mount_small_disk DIR: a 256 KiB tmpfs at DIR (a full disk in a few
# writes), unmounted when the script exits; exits 77 (ctest's skip code),
# saying so, where it cannot be mounted (not root, or not allowed here).
cli_mount_small_disk() {
  mkdir -p "$1"
  if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=256k tmpfs "$1" 2>/dev/null; then
    echo "SKIP: needs root and permission to mount a tmpfs (a small full disk)"
    exit 77
  fi
  CLI_MOUNT=$(cd "$1" && pwd)
  trap 'umount "$CLI_MOUNT"' EXIT
}

# cli_expect_clean_failure RC PATTERN...: the run failed the way a user can
# act on: exit 1 (not a crash or a hang), one "mpsfw: error:" line on ./err
# matching every PATTERN (extended regex), no HDF5 error stack, no abort, no
# *.partial left.
cli_expect_clean_failure() {
  local rc=$1 p n left
  shift
  case "$rc" in
    0) problem "exit code 0, expected a failure" ;;
    1) ;;
    124 | 137) problem "still running after $CASE_TIMEOUT s (exit $rc): a rank hangs?" ;;
    *) problem "exit code $rc, expected 1 (139: a crash at exit)" ;;
  esac
  n=$(grep -c '^mpsfw: error: ' err)
  [ "$n" -eq 1 ] || problem "$n lines 'mpsfw: error: ...' on stderr, expected exactly 1"
  ! grep -q 'HDF5-DIAG' err || problem "HDF5 printed its error stack"
  ! grep -qE 'Segmentation fault|signal 11|exited on signal' err || problem "a rank crashed"
  ! grep -qE 'error on rank|MPI_ABORT' err || problem "the job was aborted, expected a clean exit"
  for p in "$@"; do
    grep -qE -- "$p" err || problem "missing text on stderr (extended regex): $p"
  done
  left=$(find . -name '*.partial')
  [ -z "$left" ] || problem "left behind: $left"
}
