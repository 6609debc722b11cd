#!/usr/bin/env bash
# The node-local MPS session (mps/) against a test double of
# nvidia-cuda-mps-control, on a fake GPU inventory, on a machine without a GPU.
# Every case gets its own folder with a fake /proc/driver/nvidia/gpus tree (1 or
# 2 GPUs, MPSFW_NVIDIA_PROC_ROOT), the double first on PATH, a record file the
# double appends to (FAKE_MPS_RECORD) and a private session root (--dir), runs
# mps_session_probe and compares what each rank exported with what the double
# saw. See README.md.
#
#   tests/mps/run_mps_tests.sh --probe PATH [options] [CASE...]
#   tests/mps/run_mps_tests.sh --list
# Options:
#   --probe PATH       the mps_session_probe executable (required to run cases)
#   --mpsctl PATH      the mpsctl executable (the mpsctl_* cases; without it they fail)
#   --solver PATH      the solver executable (the dry_run* cases; without it they fail)
#   --runner PATH      mpsfw-run (the mpsfw_run* cases; without it they fail)
#   --python PATH      python3 for the double (default: /usr/bin/python3, else python3)
#   --double PATH      the double (default: fake-nvidia-cuda-mps-control beside this script)
#   --mpiexec PATH     MPI launcher (default: mpiexec); --np-flag FLAG (default: -n)
#   --preflags "..."   extra launcher flags before the program
#   --timeout SECONDS  one probe run still going after this long is a hang (default: 30)
#   --workdir DIR      parent of the case folders (default: a new temporary folder)
#   --keep             keep the folders of passing cases too
#   --all              with no CASE: run the disabled cases (known bugs) as well
#   --slurm-nodes      the two_nodes* cases take their nodes from the Slurm that
#                      SLURM_CONF names (tests/slurm/cluster.sh up DIR 2; --mpiexec
#                      srun --np-flag -n --preflags --mpi=pmix) instead of fake-ssh
# With no CASE every enabled case runs; the last line is "N passed, M failed,
# K skipped". A case that needs what this machine lacks (UTS namespaces, a
# second CPU) says SKIP; when every case run was skipped the exit code is 77.
# ctest runs one case per test (mps.<case>) under subreaper.py.
# shellcheck disable=SC2015,SC2016  # "A && B || problem" and bash -c '...' are meant
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PROBE=""
MPSCTL=""
SOLVER=""
RUNNER=""
PYTHON=""
DOUBLE=$here/fake-nvidia-cuda-mps-control
MPIEXEC=mpiexec
NP_FLAG=-n
PREFLAGS=""
RUN_TIMEOUT=30
WORKDIR=""
KEEP=0
LIST=0
ALL=0
SLURM_NODES=0
selected=()
while [ $# -gt 0 ]; do
  case "$1" in
    --probe) PROBE=$2; shift 2 ;;
    --mpsctl) MPSCTL=$2; shift 2 ;;
    --solver) SOLVER=$2; shift 2 ;;
    --runner) RUNNER=$2; shift 2 ;;
    --python) PYTHON=$2; shift 2 ;;
    --double) DOUBLE=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --np-flag) NP_FLAG=$2; shift 2 ;;
    --preflags) PREFLAGS=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --workdir) WORKDIR=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --list) LIST=1; shift ;;
    --all) ALL=1; shift ;;
    --slurm-nodes) SLURM_NODES=1; shift ;;
    -h | --help) sed -n '2,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "$(basename "$0"): unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) selected+=("$1"); shift ;;
  esac
done

# ---------------------------------------------------------------------------
# The cases: add_case NAME PROCESSES [disabled]. PROCESSES is the most MPI
# processes the case runs at once (ctest PROCESSORS). "disabled": the case shows
# a known bug and is left out of a plain run (use --all); ctest still runs it,
# so a known bug stays visible as a failure.
# ---------------------------------------------------------------------------
declare -a CASES=()
declare -A C_NP C_OFF
add_case() {
  CASES+=("$1")
  C_NP[$1]=$2
  C_OFF[$1]=${3:-}
}
add_case double 1
add_case start_np1_gpu2_on 1
add_case start_np2_gpu1 2
add_case start_np4_gpu1 4
add_case start_np3_gpu2_even 3
add_case start_np4_gpu2_even 4
add_case start_np6_gpu1 6
add_case start_np8_gpu2 8
add_case start_np8_gpu1_even 8
add_case start_np4_gpu2_atp_pinned 4
add_case start_np4_gpu1_balanced 4
add_case start_np6_gpu2_even_balanced 6
add_case start_np2_gpu1_balanced_no_work 2
add_case not_needed 2
add_case dry_run 4
add_case dry_run_balanced 4
add_case dry_run_not_needed 2
add_case off 2
add_case visible_devices 4
add_case mig_instances 4
add_case slurm_gpu_bind 4
add_case per_rank_wrapper 4
add_case mixed_views 4
add_case near_gpu_cpus 4
add_case two_nodes 4
add_case two_nodes_killed 4
add_case control_program 2
add_case reuse 4
add_case reuse_mpsctl_session 4
add_case reuse_a_busy_daemon 4
add_case timeout_on 2
add_case timeout_auto 2
add_case fail_start 2
add_case stale 1
add_case teardown_normal 4
add_case teardown_throw 4
add_case teardown_throw_leader 4
add_case teardown_collective 4
add_case teardown_abort 4
add_case teardown_sigterm_leader 4
add_case teardown_sigkill_leader 4
add_case teardown_stuck_daemon 2
add_case teardown_exit_wait 4
add_case preflight_open_files 4
add_case preflight_clients 1
add_case after_mpi_singleton 1
add_case after_mpi_np3 3
add_case zombie_daemon_not_running 2
add_case stale_failed_file_race 2
add_case follower_outwaited_by_leader 4
add_case stale_pid_file_names_other_process 1
add_case mpsctl_timeout 1
add_case mpsctl_concurrent_start 1
add_case mpsctl_gpus 1
add_case mpsctl_gpus_list 1
add_case mpsctl_stop_foreign_folder 1
add_case mpsctl_stop_session 1
add_case mpsctl_cleanup_other_host 1
add_case mpsctl_stop_live_clients 1
add_case mpsctl_cleanup_older_session 1
add_case mpsctl_pinned_limit 2
add_case mpsctl_lock_symlink 1
add_case site_prolog_epilog 1
add_case mpsfw_run_clients 2
add_case mpsfw_run_not_clients 2
add_case mpsfw_run_killed 2
add_case mpsfw_run_leader_killed 2
add_case mpsfw_run_leader_killed_first 2
add_case mpsfw_run_leader_program_killed 2
add_case mpsfw_run_two_jobs 4

if [ "$LIST" = 1 ]; then
  for c in "${CASES[@]}"; do echo "$c ${C_NP[$c]}${C_OFF[$c]:+ ${C_OFF[$c]}}"; done
  exit 0
fi

[ -n "$PROBE" ] || { echo "$(basename "$0"): --probe PATH is required" >&2; exit 2; }
[ -x "$PROBE" ] || { echo "$(basename "$0"): probe '$PROBE' is not an executable" >&2; exit 2; }
if [ -z "$PYTHON" ]; then
  PYTHON=/usr/bin/python3
  [ -x "$PYTHON" ] || PYTHON=$(command -v python3 || true)
fi
[ -x "$PYTHON" ] || { echo "$(basename "$0"): no python3 for the double" >&2; exit 2; }
[ -r "$DOUBLE" ] || { echo "$(basename "$0"): double '$DOUBLE' not found" >&2; exit 2; }
command -v timeout >/dev/null 2>&1 || { echo "$(basename "$0"): 'timeout' (coreutils) needed" >&2; exit 2; }
command -v "$MPIEXEC" >/dev/null 2>&1 || { echo "$(basename "$0"): '$MPIEXEC' not found" >&2; exit 2; }
PROBE=$(cd "$(dirname "$PROBE")" && pwd)/$(basename "$PROBE")
[ -z "$MPSCTL" ] || MPSCTL=$(cd "$(dirname "$MPSCTL")" && pwd)/$(basename "$MPSCTL")
if [ -z "$WORKDIR" ]; then
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/mpsfw-mps-tests.XXXXXX")
fi
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd)

# Open MPI as root, more ranks than cores, no UCX probing (ctest sets these too).
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# Nothing of the machine's (or CI job's) GPUs, MPS or launcher may leak in.
unset CUDA_VISIBLE_DEVICES CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY \
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE CUDA_MPS_PINNED_DEVICE_MEM_LIMIT MPSFW_MPS_CONTROL \
  MPSFW_MPS_SESSION MPSFW_NVIDIA_PROC_ROOT MPI_LOCALRANKID MPI_LOCALNRANKS
slurm_conf=${SLURM_CONF:-}
for v in $(compgen -e); do
  case "$v" in
    SLURM_* | PMI_* | FAKE_MPS_* | OMPI_COMM_WORLD_*) unset "$v" ;;
  esac
done
if [ "$SLURM_NODES" = 1 ]; then
  [ -n "$slurm_conf" ] || { echo "$(basename "$0"): --slurm-nodes needs SLURM_CONF" >&2; exit 2; }
  export SLURM_CONF=$slurm_conf
fi
BASE_PATH=$PATH

# The fake GPUs and the double on PATH (fake_mps_env, fake_gpus).
# shellcheck source=fake_gpu_lib.sh
source "$here/fake_gpu_lib.sh"

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------
problems=()
problem() { problems+=("$*"); }
# skip REASON: the case cannot run here (reported as SKIP, exit 77 if all were).
SKIPPED=""
skip() { SKIPPED=$*; }

# setup_case NAME: a fresh folder, the double on PATH, an empty record.
setup_case() {
  W=$WORKDIR/$1
  # A kept folder of an earlier run goes; anything else of that name (--workdir
  # is the caller's) is never removed.
  if [ -e "$W" ] && [ ! -f "$W/.mps-test-case" ]; then
    echo "$(basename "$0"): $W exists and is not a case folder of this script (no .mps-test-case):" \
      "not removing it; remove it yourself if an older version of this script kept it" >&2
    exit 2
  fi
  rm -rf "$W"
  mkdir -p "$W/root"
  : >"$W/.mps-test-case"
  # PATH: the double first, then the PATH this script began with, not the last case's.
  PATH=$BASE_PATH fake_mps_env "$W" "$PYTHON" "$DOUBLE" || exit 2
  export "${FAKE_MPS_ENV[@]}"
  export FAKE_MPS_MAX_LIFETIME=$((RUN_TIMEOUT * 4))
  export MPSFW_NVIDIA_CAPABILITIES_ROOT=$W/capabilities  # no MIG unless a case makes some
  unset MPSFW_NVIDIA_SMI
  ROOT=$W/root
  REC=$W/record  # made empty by fake_mps_env
  problems=()
  # Open MPI's session folders in one of the case's own (short: they hold
  # sockets): cases run side by side (ctest -j) raced to create the shared
  # /tmp/ompi.HOST.UID, and the loser's orte_init failed (open-mpi/ompi#8510).
  OMPI_SESSIONS=$(mktemp -d /tmp/mpsfw-ompi.XXXXXX)
  export OMPI_MCA_orte_tmpdir_base=$OMPI_SESSIONS
  SKIPPED=""
  runs=0
  RC=0
  ELAPSED=0
  OUT=/dev/null
  ERR=/dev/null
  LAST_CMD=""
  KEEP_ALIVE=()
  WRAP=()
  NODES=()
  PREFIX=()
  ULIMIT_N=""
  USED_UUIDS=()
}

# make_gpus N: N fake GPUs in the /proc tree; sets UUIDS to them in CUDA order.
make_gpus() {
  fake_gpus "$W" "$1" || exit 2
  UUIDS=("${FAKE_GPU_UUIDS[@]}")
}

# make_mig N: the first fake GPU split into N MIG instances (capabilities
# folders, and an nvidia-smi double that lists them); sets MIGS to their UUIDs.
make_mig() {
  local i
  MIGS=()
  printf 'Device Minor: \t 0\n' >>"$W/proc/${FAKE_GPU_ALL_PCI[0]}/information"
  {
    printf '#!/bin/sh\ncat <<EOF\n'
    printf 'GPU 0: Fake GPU 0 (UUID: %s)\n' "${UUIDS[0]}"
    for ((i = 0; i < $1; i++)); do
      mkdir -p "$W/capabilities/gpu0/mig/gi$((i + 1))/ci0"
      MIGS+=("MIG-f$i$i$i$i$i$i$i-0000-4000-8000-00000000000$i")
      printf '  MIG 3g.40gb     Device  %d: (UUID: %s)\n' "$i" "${MIGS[$i]}"
    done
    printf 'EOF\n'
  } >"$W/bin/nvidia-smi"
  chmod +x "$W/bin/nvidia-smi"
  export MPSFW_NVIDIA_SMI=$W/bin/nvidia-smi
}

# session_dir_of JOB: the session folder of JOB on this host under ROOT.
session_dir_of() { "$PROBE" --dir "$ROOT" --session-dir-of "$1"; }
# this_host: this host's name as session folders carry it.
this_host() { local d; d=$(session_dir_of h) && echo "${d#"$ROOT"/mpsfw-mps-h-}"; }
# record_head [HOST]: the first line mpsfw writes in a session's ready, failed
# and starting files (this host's unless HOST is given).
record_head() { echo "mpsfw-session 1 ${1:-$(this_host)}"; }

# run_probe NP [VAR=value...] [--] [PROBE ARGS...]: NP ranks under mpiexec (0:
# the probe alone, an MPI singleton), with --dir ROOT. Sets RC, OUT, ERR.
# WRAP (array) goes between mpiexec and the probe, PREFIX (array) before the
# time limit; ULIMIT_N sets `ulimit -n` (mpiexec included).
run_probe() {
  local np=$1
  shift
  local -a envs=()
  while [ $# -gt 0 ] && [[ $1 == [A-Za-z_]*=* ]]; do
    envs+=("$1")
    shift
  done
  [ "${1:-}" = "--" ] && shift
  runs=$((runs + 1))
  OUT=$W/run$runs.out
  ERR=$W/run$runs.err
  local -a cmd=(env "${envs[@]}")
  [ -n "$ULIMIT_N" ] && cmd+=(bash -c 'ulimit -n "$0" && exec "$@"' "$ULIMIT_N")
  cmd+=("${PREFIX[@]}")
  cmd+=(timeout -k 5 "$RUN_TIMEOUT")
  if [ "$np" -gt 0 ]; then
    local -a pre=()
    [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
    cmd+=("$MPIEXEC" "$NP_FLAG" "$np" "${pre[@]}" "${NODES[@]}")
  fi
  cmd+=("${WRAP[@]}" "$PROBE" --dir "$ROOT" "$@")
  LAST_CMD="${cmd[*]}"
  echo "$LAST_CMD" >"$W/run$runs.cmd"
  RC=0
  local t0=$SECONDS
  "${cmd[@]}" >"$OUT" 2>"$ERR" </dev/null || RC=$?
  ELAPSED=$((SECONDS - t0))
  # 137 is also what mpiexec returns for a rank killed by SIGKILL: time tells.
  if [ "$RC" -eq 124 ] || { [ "$RC" -eq 137 ] && [ $((SECONDS - t0)) -ge "$RUN_TIMEOUT" ]; }; then
    problem "run $runs still going after $RUN_TIMEOUT s and killed (exit $RC): a hang? ($LAST_CMD)"
  fi
}

# run_mpsctl [VAR=value...] [--] ARGS...: mpsctl with --dir ROOT after ARGS
# (its command first), time-limited. Sets RC, OUT, ERR like run_probe.
run_mpsctl() {
  local -a envs=()
  while [ $# -gt 0 ] && [[ $1 == [A-Za-z_]*=* ]]; do
    envs+=("$1")
    shift
  done
  [ "${1:-}" = "--" ] && shift
  [ -x "$MPSCTL" ] || { problem "no mpsctl to run (--mpsctl PATH)"; RC=2; return; }
  run_logged mpsctl env "${envs[@]}" timeout -k 5 "$RUN_TIMEOUT" "$MPSCTL" "$@" --dir "$ROOT"
}

# run_logged WHAT COMMAND...: the command's output into the next run's OUT
# and ERR, the command line into its .cmd; sets RC, and a problem when the
# time limit in COMMAND killed it.
run_logged() {
  local what=$1
  shift
  runs=$((runs + 1))
  OUT=$W/run$runs.out
  ERR=$W/run$runs.err
  LAST_CMD="$*"
  echo "$LAST_CMD" >"$W/run$runs.cmd"
  RC=0
  "$@" >"$OUT" 2>"$ERR" </dev/null || RC=$?
  [ "$RC" -ne 124 ] || problem "$what still going after $RUN_TIMEOUT s ($LAST_CMD)"
}

# field LINE KEY: the value of " KEY=value" in a PROBE/record line.
field() {
  local re=" $2=([^ ]*)"
  [[ " $1" =~ $re ]] && echo "${BASH_REMATCH[1]}"
}
# probe_line RANK: that rank's PROBE line of the last run.
probe_line() { grep -E "^PROBE rank=$1 " "$OUT" | head -n 1; }
final_line() { grep -E "^FINAL rank=$1 " "$OUT" | head -n 1; }
# rec_lines EVENT [PIPE]: the record's lines of one event (on one pipe folder).
rec_lines() {
  if [ $# -gt 1 ]; then
    grep -F " $1 " "$REC" | grep -F " pipe=$2 " || true
  else
    grep -F " $1 " "$REC" || true
  fi
}
rec_count() { rec_lines "$@" | grep -c . || true; }
# commands CMD_PREFIX PIPE: the commands starting with CMD_PREFIX sent to PIPE's daemon.
commands() { rec_lines command "$2" | sed -n 's/.* cmd=//p' | grep -E "^$1" || true; }

alive() {
  local pid=$1
  [ -n "$pid" ] && [ "$pid" -gt 0 ] 2>/dev/null || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # A zombie is not running, and neither is a process reaped since kill -0
  # (its stat gone: an empty read must not count as running).
  local state
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "${state:0:1}" != Z ]
}
# session_of PID: the session id (field 6 of /proc/PID/stat).
session_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f4; }
in_list() {
  local x=$1
  shift
  local y
  for y in "$@"; do [ "$x" = "$y" ] && return 0; done
  return 1
}
# new_record: later checks see only what comes next (the old lines stay in record.N).
new_record() {
  mv "$REC" "$REC.$runs"
  : >"$REC"
}
# Daemons the double started in this case (all records), by PID.
spawned_pids() { cat "$REC"* 2>/dev/null | grep -F " daemon-spawn " | sed -n 's/.* pid=\([0-9]*\) .*/\1/p'; }
up_pids() { rec_lines daemon-up | sed -n 's/.* pid=\([0-9]*\) .*/\1/p'; }
# Processes of this case's probe still running (ranks, or a leader's watchdog).
probe_pids() {
  local p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$PROBE" ] || continue
    tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "FAKE_MPS_RECORD=$REC" && echo "${p#/proc/}"
  done
}
session_folders() { find "$ROOT" -mindepth 1 -maxdepth 1 -name 'mpsfw-mps-*' 2>/dev/null; }
# mpsfw-run's roll-call folders (node_roll_call.hpp).
roll_call_folders() { find "$ROOT" -mindepth 1 -maxdepth 1 -name 'mpsfw-run-*' 2>/dev/null; }
# nothing_left: no session or roll-call folder, no daemon of the case (but
# KEEP_ALIVE), no probe.
nothing_left() {
  [ -z "$(session_folders)" ] && [ -z "$(roll_call_folders)" ] || return 1
  local p
  for p in $(spawned_pids); do
    in_list "$p" "${KEEP_ALIVE[@]}" && continue
    alive "$p" && return 1
  done
  [ -z "$(probe_pids)" ]
}
# expect_clean_after SECONDS: within SECONDS the run left nothing behind.
expect_clean_after() {
  local deadline=$((SECONDS + $1))
  while ! nothing_left && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
  nothing_left && return 0
  [ -z "$(session_folders)" ] || problem "session folder(s) left after $1 s: $(session_folders | tr '\n' ' ')"
  [ -z "$(roll_call_folders)" ] ||
    problem "mpsfw-run roll-call folder(s) left after $1 s: $(roll_call_folders | tr '\n' ' ')"
  local p
  for p in $(spawned_pids); do
    in_list "$p" "${KEEP_ALIVE[@]}" && continue
    alive "$p" && problem "daemon $p still running $1 s after the run ($(rec_lines daemon-spawn | grep -F " pid=$p " | sed 's/.* pipe=\([^ ]*\).*/\1/'))"
  done
  [ -z "$(probe_pids)" ] || problem "probe process(es) $(probe_pids | tr '\n' ' ') still running $1 s after the run (a watchdog?)"
}
# expect_quit_by_session: every daemon that came up (but KEEP_ALIVE) ended by `quit`,
# not abandoned (its folder removed under it) or killed.
expect_quit_by_session() {
  local p reason
  for p in $(up_pids); do
    in_list "$p" "${KEEP_ALIVE[@]}" && continue
    reason=$(rec_lines daemon-exit | grep -F " pid=$p " | sed -n 's/.* reason=\([^ ]*\).*/\1/p')
    [ "$reason" = quit ] || problem "daemon $p did not end by 'quit' (exit reason: ${reason:-none recorded})"
  done
}
# Every daemon the session spawned (with or without a pid file) was stopped
# by SIGTERM: what a session does to a daemon whose bring-up it gave up on.
expect_spawned_stopped_by_sigterm() {
  local p reason
  for p in $(spawned_pids); do
    reason=$(rec_lines daemon-exit | grep -F " pid=$p " | sed -n 's/.* reason=\([^ ]*\).*/\1/p')
    [ "$reason" = sigterm ] || problem "daemon $p was not stopped (exit reason: ${reason:-none})"
  done
}
expect_eq() {
  [ "$2" = "$3" ] || problem "$1: got '$2', expected '$3'"
}
expect_rc_zero() {
  [ "$RC" -eq 0 ] || problem "exit code $RC, expected 0"
}
expect_rc_nonzero() {
  [ "$RC" -ne 0 ] || problem "exit code 0, expected a failure"
}
# expect_text FILE TEXT...: fixed strings that must all be in FILE.
expect_text() {
  local file=$1 t
  shift
  for t in "$@"; do
    grep -qF -- "$t" "$file" || problem "$(basename "$file") lacks: $t"
  done
}
expect_no_text() {
  local file=$1 t
  shift
  for t in "$@"; do
    grep -qF -- "$t" "$file" && problem "$(basename "$file") should not contain: $t"
  done
  return 0
}
# expect_one_error TEXT...: stderr has exactly one "mpsfw: error:" line, with each TEXT.
expect_one_error() {
  local n
  n=$(grep -c '^mpsfw: error:' "$ERR")
  [ "$n" -eq 1 ] || problem "expected one 'mpsfw: error:' line on stderr, found $n"
  local t line
  line=$(grep '^mpsfw: error:' "$ERR" | head -n 1)
  for t in "$@"; do
    [[ $line == *"$t"* ]] || problem "error line lacks '$t': $line"
  done
}

# Independent of core/device/device.cpp: local rank R of NP on N GPUs, in blocks (the
# first NP % N GPUs take one rank more).
gpu_of() {
  local r=$1 np=$2 n=$3 q=$(($2 / $3)) m=$(($2 % $3))
  if [ "$r" -lt $((m * (q + 1))) ]; then echo $((r / (q + 1))); else echo $((m + (r - m * (q + 1)) / q)); fi
}
# Count the ranks on GPU G, apply the formula.
ranks_on() {
  local g=$1 np=$2 n=$3 r c=0
  for ((r = 0; r < np; r++)); do [ "$(gpu_of "$r" "$np" "$n")" -eq "$g" ] && c=$((c + 1)); done
  echo "$c"
}
cap_for() {
  local k=$1 policy=$2 atp=$3 c
  # Balanced: the daemons' default, and a rank's cap until its work is known.
  if [ "$atp" = balanced ]; then echo 100; return; fi
  if [ "$atp" != auto ]; then echo "$atp"; return; fi
  if [ "$k" -le 1 ]; then echo 100; return; fi
  if [ "$policy" = even ]; then
    c=$((100 / k))
  else
    c=$(((200 + k - 1) / k))
    [ "$c" -gt 100 ] && c=100
  fi
  [ "$c" -lt 1 ] && c=1
  echo "$c"
}

# balanced_cap R NP NGPU POLICY WORKS: rank R's cap under balanced caps, its
# share of the work (WORKS: comma list by rank, integers) of the ranks on its
# GPU, in integer arithmetic: double ceil(200 w / total), even floor(100 w /
# total), within [1, 100].
balanced_cap() {
  local r=$1 np=$2 n=$3 policy=$4 q total=0 c
  local -a w
  IFS=, read -r -a w <<<"$5"
  local g
  g=$(gpu_of "$r" "$np" "$n")
  for ((q = 0; q < np; q++)); do
    [ "$(gpu_of "$q" "$np" "$n")" -eq "$g" ] && total=$((total + w[q]))
  done
  if [ "$policy" = even ]; then
    c=$((100 * w[r] / total))
  else
    c=$(((200 * w[r] + total - 1) / total))
  fi
  [ "$c" -gt 100 ] && c=100
  [ "$c" -lt 1 ] && c=1
  echo "$c"
}

# start_daemon_by_hand PIPE LOG [VAR=value...]: the double as a site (or a
# previous run) would have it; prints its PID.
start_daemon_by_hand() {
  local pipe=$1 log=$2
  shift 2
  mkdir -p "$pipe" "$log"
  env "$@" CUDA_MPS_PIPE_DIRECTORY="$pipe" CUDA_MPS_LOG_DIRECTORY="$log" \
    nvidia-cuda-mps-control -d >/dev/null 2>&1 </dev/null || return 1
  local i
  for ((i = 0; i < 100; i++)); do
    if [ -s "$pipe/nvidia-cuda-mps-control.pid" ]; then
      cat "$pipe/nvidia-cuda-mps-control.pid"
      return 0
    fi
    sleep 0.05
  done
  return 1
}
quit_by_hand() {
  echo "quit" | CUDA_MPS_PIPE_DIRECTORY="$1" CUDA_MPS_LOG_DIRECTORY="${2:-$1}" \
    nvidia-cuda-mps-control >/dev/null 2>&1
}

# check_started NP NGPU POLICY ATP [PINNED]: the last run brought up one daemon
# per used GPU with the right caps, each rank exported its GPU's folders, UUID
# and cap, and the normal teardown quit the daemons and removed the folder.
# EXP_LAUNCHER / EXP_BRING_UP: what the status should say about the launcher.
EXP_LAUNCHER=-
EXP_BRING_UP=-
EXP_WORKS=  # balanced caps: each rank's work (--work), comma list by rank
check_started() {
  local np=$1 ngpu=$2 policy=$3 atp=$4 pinned=${5:-}
  local used=$((ngpu < np ? ngpu : np))
  expect_rc_zero
  local n
  n=$(grep -c '^PROBE ' "$OUT")
  expect_eq "PROBE lines" "$n" "$np"
  local session="" r
  for ((r = 0; r < np; r++)); do
    local line g k cap pipe
    line=$(probe_line "$r")
    if [ -z "$line" ]; then
      problem "rank $r printed no PROBE line"
      continue
    fi
    g=$(gpu_of "$r" "$np" "$ngpu")
    k=$(ranks_on "$g" "$np" "$ngpu")
    cap=$(cap_for "$k" "$policy" "$atp")
    [ -n "$EXP_WORKS" ] && cap=$(balanced_cap "$r" "$np" "$ngpu" "$policy" "$EXP_WORKS")
    pipe=$(field "$line" pipe)
    if [ -z "$session" ]; then session=${pipe%/gpu*/pipe}; fi
    [[ $session == "$ROOT"/mpsfw-mps-* ]] || problem "rank $r: pipe folder '$pipe' is not in a session folder under $ROOT"
    expect_eq "rank $r state" "$(field "$line" state)" started
    expect_eq "rank $r CUDA_MPS_PIPE_DIRECTORY" "$pipe" "$session/gpu$g/pipe"
    expect_eq "rank $r CUDA_MPS_LOG_DIRECTORY" "$(field "$line" log)" "$session/gpu$g/log"
    expect_eq "rank $r CUDA_VISIBLE_DEVICES" "$(field "$line" cvd)" "${USED_UUIDS[$g]}"
    expect_eq "rank $r CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ($k ranks on GPU $g, $policy, atp $atp)" \
      "$(field "$line" atp)" "$cap"
    expect_eq "rank $r status cap" "$(field "$line" cap)" "$cap"
    expect_eq "rank $r CUDA_MPS_PINNED_DEVICE_MEM_LIMIT" "$(field "$line" pinned)" "${pinned:+0=$pinned}$([ -z "$pinned" ] && echo -)"
    expect_eq "rank $r pinned limit read back from its daemon" "$(field "$line" pinned_read)" "${pinned:--}"
    expect_eq "rank $r: its daemon answers" "$(field "$line" answers)" 1
    local up
    up=$(rec_lines daemon-up "$pipe" | head -n 1 | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
    expect_eq "rank $r: daemon PID in its pipe folder" "$(field "$line" daemon)" "${up:-none came up}"
    expect_eq "rank $r owner" "$(field "$line" owner)" "$([ "$r" -eq 0 ] && echo 1 || echo 0)"
    expect_eq "rank $r node rank" "$(field "$line" node_rank)" "$r"
    expect_eq "rank $r launcher" "$(field "$line" launcher)" "$EXP_LAUNCHER"
    [ "$EXP_LAUNCHER" != - ] && expect_eq "rank $r launcher local rank" "$(field "$line" local)" "$r/$np"
    [[ $line == *"bring_up=$EXP_BRING_UP" ]] || problem "rank $r bring_up: ${line#*bring_up=} (expected $EXP_BRING_UP)"
  done
  # What the daemons saw: one start per used GPU, with its UUID, and its cap.
  expect_eq "daemon launches" "$(rec_count launch)" "$used"
  expect_eq "daemons up" "$(rec_count daemon-up)" "$used"
  local g
  for ((g = 0; g < used; g++)); do
    local pipe="$session/gpu$g/pipe" k cap
    k=$(ranks_on "$g" "$np" "$ngpu")
    cap=$(cap_for "$k" "$policy" "$atp")
    expect_eq "launches for GPU $g" "$(rec_count launch "$pipe")" 1
    expect_eq "CUDA_VISIBLE_DEVICES of GPU $g's daemon" \
      "$(rec_lines daemon-up "$pipe" | head -n 1 | sed -n 's/.* cvd=\([^ ]*\).*/\1/p')" "${USED_UUIDS[$g]}"
    expect_eq "set_default_active_thread_percentage sent to GPU $g's daemon" \
      "$(commands set_default_active_thread_percentage "$pipe" | tr '\n' ';')" \
      "set_default_active_thread_percentage $cap;"
    expect_eq "set_default_device_pinned_mem_limit sent to GPU $g's daemon" \
      "$(commands set_default_device_pinned_mem_limit "$pipe" | tr '\n' ';')" \
      "${pinned:+set_default_device_pinned_mem_limit 0 $pinned;}"
    expect_eq "pinned limit read back from GPU $g's daemon" \
      "$(commands get_default_device_pinned_mem_limit "$pipe" | tr '\n' ';')" \
      "${pinned:+get_default_device_pinned_mem_limit 0;}"
    expect_eq "quit sent to GPU $g's daemon" "$(commands quit "$pipe" | grep -c .)" 1
    # The server starts with the defaults set, and at the normal end (every
    # rank released its GPU) it is shut down at once, then the daemon quits.
    expect_eq "start_server sent to GPU $g's daemon" "$(commands start_server "$pipe" | tr '\n' ';')" \
      "start_server -uid $(id -u);"
    expect_eq "server shut down at once on GPU $g" "$(commands shutdown_server "$pipe" | tr '\n' ';')" \
      "shutdown_server $(rec_lines daemon-up "$pipe" | head -n 1 | sed -n 's/.* pid=\([0-9]*\) .*/\1/p') -f;"
    expect_eq "order of the commands to GPU $g's daemon" \
      "$(rec_lines command "$pipe" | sed -n 's/.* cmd=//p' |
        grep -oE '^(set_default_active_thread_percentage|start_server|shutdown_server|quit)' | tr '\n' ' ')" \
      "set_default_active_thread_percentage start_server shutdown_server quit "
  done
  # Normal teardown is synchronous: nothing may be left when mpiexec returns.
  expect_eq "FINAL lines" "$(grep -c '^FINAL ' "$OUT")" "$np"
  [[ $(final_line 0) == *"daemons stopped, folders removed"* ]] ||
    problem "rank 0 FINAL does not say the daemons were stopped: $(final_line 0)"
  [ -z "$(session_folders)" ] || problem "session folder left after a normal end: $(session_folders)"
  local p
  for p in $(up_pids); do
    alive "$p" && problem "daemon $p still running after a normal end"
  done
  expect_quit_by_session
}

# start_case NP NGPU POLICY ATP [PINNED] [ENABLE]: the usual bring-up at NP ranks.
start_case() {
  local np=$1 ngpu=$2 policy=$3 atp=$4 pinned=${5:-} enable=${6:-auto}
  make_gpus "$ngpu"
  USED_UUIDS=("${UUIDS[@]}")
  local -a args=(--enable "$enable" --policy "$policy")
  [ "$atp" != auto ] && args+=(--atp "$atp")
  [ -n "$EXP_WORKS" ] && args+=(--work "$EXP_WORKS")
  [ -n "$pinned" ] && args+=(--pinned "$pinned")
  run_probe "$np" -- "${args[@]}"
  check_started "$np" "$ngpu" "$policy" "$atp" "$pinned"
}

# Everything exported by a rank that runs without MPS (state ST).
check_without_mps() {
  local np=$1 state=$2 r line
  expect_eq "PROBE lines" "$(grep -c '^PROBE ' "$OUT")" "$np"
  for ((r = 0; r < np; r++)); do
    line=$(probe_line "$r")
    expect_eq "rank $r state" "$(field "$line" state)" "$state"
    expect_eq "rank $r CUDA_MPS_PIPE_DIRECTORY" "$(field "$line" pipe)" -
    expect_eq "rank $r CUDA_MPS_LOG_DIRECTORY" "$(field "$line" log)" -
    expect_eq "rank $r CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" "$(field "$line" atp)" -
    expect_eq "rank $r owner" "$(field "$line" owner)" 0
  done
}

# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------

# The double itself: what the other cases rely on.
case_double() {
  local pipe=$W/site/pipe log=$W/site/log out t0 pid i
  mkdir -p "$pipe" "$log"
  export CUDA_MPS_PIPE_DIRECTORY=$pipe CUDA_MPS_LOG_DIRECTORY=$log
  out=$(echo get_server_list | nvidia-cuda-mps-control 2>&1) &&
    problem "a client without a daemon exited 0"
  [[ $out == *"Cannot find MPS control daemon"* ]] || problem "client without daemon said: $out"
  FAKE_MPS_FAIL_START=1 nvidia-cuda-mps-control -d >/dev/null 2>&1 &&
    problem "-d with FAKE_MPS_FAIL_START=1 exited 0"
  [ -e "$pipe/nvidia-cuda-mps-control.pid" ] && problem "FAKE_MPS_FAIL_START=1 wrote a pid file"
  # -d returns at once and does not hold the caller's output open (else $(...) would wait).
  t0=$(date +%s%N)
  # A -d that waited for the daemon would take the 3 s start delay: far from
  # the moment it takes.
  out=$(CUDA_VISIBLE_DEVICES=GPU-test FAKE_MPS_START_DELAY=3 timeout 10 nvidia-cuda-mps-control -d 2>&1) ||
    problem "-d failed or held its output open: $out"
  [ $(($(date +%s%N) - t0)) -lt 2000000000 ] || problem "-d took more than 2 s (FAKE_MPS_START_DELAY must not delay it)"
  [ -e "$pipe/nvidia-cuda-mps-control.pid" ] && problem "pid file written before FAKE_MPS_START_DELAY"
  echo get_server_list | nvidia-cuda-mps-control >/dev/null 2>&1 && problem "answered before FAKE_MPS_START_DELAY"
  for ((i = 0; i < 100; i++)); do [ -e "$pipe/nvidia-cuda-mps-control.pid" ] && break; sleep 0.1; done
  sleep 0.2
  pid=$(cat "$pipe/nvidia-cuda-mps-control.pid" 2>/dev/null)
  alive "$pid" || problem "no live daemon after -d (pid file: '$pid')"
  local sid
  sid=$(session_of "$pid")
  [ -n "$sid" ] && [ "$sid" != "$(session_of $$)" ] ||
    problem "daemon $pid is in the caller's session (no setsid)"
  # The caller's pipes (its stdout here) must not be held open by the daemon.
  find "/proc/$pid/fd" -mindepth 1 -printf '%l\n' 2>/dev/null | grep -q '^pipe:' &&
    problem "daemon $pid holds a pipe open: $(find "/proc/$pid/fd" -mindepth 1 -printf '%f->%l ' 2>/dev/null)"
  nvidia-cuda-mps-control -d >/dev/null 2>&1 && problem "a second -d in the same pipe folder exited 0"
  expect_eq "get_server_list without server" "$(echo get_server_list | nvidia-cuda-mps-control)" ""
  echo 4242 >"$pipe/fake_server"
  printf '111\n222\n' >"$pipe/fake_clients"
  expect_eq "get_server_list" "$(echo get_server_list | nvidia-cuda-mps-control)" 4242
  expect_eq "get_client_list" "$(echo 'get_client_list 4242' | nvidia-cuda-mps-control | tr '\n' ' ')" "111 222 "
  expect_eq "get_client_list of another server" "$(echo 'get_client_list 7' | nvidia-cuda-mps-control)" ""
  printf 'set_default_active_thread_percentage 37\nset_default_device_pinned_mem_limit 0 8G\n' |
    nvidia-cuda-mps-control >/dev/null || problem "set commands failed"
  expect_eq "get_default_active_thread_percentage" \
    "$(echo get_default_active_thread_percentage | nvidia-cuda-mps-control)" 37
  expect_eq "get_default_device_pinned_mem_limit" \
    "$(echo 'get_default_device_pinned_mem_limit 0' | nvidia-cuda-mps-control)" 8G
  echo "quit -t 5" | nvidia-cuda-mps-control || problem "quit failed"
  local i
  for ((i = 0; i < 40; i++)); do alive "$pid" || break; sleep 0.05; done
  alive "$pid" && problem "daemon $pid still running 2 s after quit"
  [ -e "$pipe/nvidia-cuda-mps-control.pid" ] && problem "quit left the pid file"
  [ -S "$pipe/control" ] || problem "quit removed the control socket (the real daemon leaves it)"
  echo get_server_list | nvidia-cuda-mps-control >/dev/null 2>&1 && problem "a client after quit exited 0"
  expect_eq "recorded launches" "$(rec_count launch "$pipe")" 3
  expect_eq "recorded refused launches" "$(rec_count launch-failed "$pipe")" 2
  expect_eq "recorded daemon cvd" "$(rec_lines daemon-up | sed -n 's/.* cvd=\([^ ]*\).*/\1/p')" GPU-test
  expect_eq "recorded atp command" "$(commands set_default_active_thread_percentage "$pipe")" \
    "set_default_active_thread_percentage 37"
  expect_eq "recorded exit" "$(rec_lines daemon-exit | sed -n 's/.* reason=\([^ ]*\).*/\1/p')" quit
  expect_text "$log/control.log" "set_default_active_thread_percentage 37"
  # A daemon whose folder disappears gives up (and says so) instead of leaking.
  pid=$(start_daemon_by_hand "$W/gone/pipe" "$W/gone/log") || problem "could not start a daemon in $W/gone"
  rm -rf "$W/gone"
  for ((i = 0; i < 40; i++)); do alive "$pid" || break; sleep 0.05; done
  alive "$pid" && problem "daemon $pid still running after its folder was removed"
  expect_eq "exit reason without folder" \
    "$(rec_lines daemon-exit | grep -F " pid=$pid " | sed -n 's/.* reason=\([^ ]*\).*/\1/p')" dir-gone
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

# on with one rank and two GPUs: a daemon for the GPU in use only.
case_start_np1_gpu2_on() { start_case 1 2 double auto "" on; }
case_start_np2_gpu1() { start_case 2 1 double auto; }
case_start_np4_gpu1() { start_case 4 1 double auto; }
case_start_np3_gpu2_even() { start_case 3 2 even auto; }
case_start_np4_gpu2_even() { start_case 4 2 even auto; }
case_start_np6_gpu1() { start_case 6 1 double auto; }
case_start_np8_gpu2() { start_case 8 2 double auto; }
case_start_np8_gpu1_even() { start_case 8 1 even auto; }
case_start_np4_gpu2_atp_pinned() { start_case 4 2 double 30 8G; }
# Balanced caps: the daemons' default 100, each rank its share of its GPU's
# work (--work, as the solver hands its workload's) after the policy's rule.
case_start_np4_gpu1_balanced() { EXP_WORKS=3,1,2,2 start_case 4 1 double balanced; }
case_start_np6_gpu2_even_balanced() { EXP_WORKS=1,2,3,4,5,6 start_case 6 2 even balanced; }
# Balanced without a rank's work (a program that never hands it): 100.
case_start_np2_gpu1_balanced_no_work() { start_case 2 1 double balanced; }

# auto with at most one rank per GPU: nothing started, nothing exported.
case_not_needed() {
  make_gpus 2
  run_probe 2 -- --enable auto
  expect_rc_zero
  check_without_mps 2 not_needed
  expect_text "$OUT" "REASON rank=0 one rank per GPU"
  expect_eq "rank 0 CUDA_VISIBLE_DEVICES" "$(field "$(probe_line 0)" cvd)" -
  run_probe 1 -- --enable auto
  expect_rc_zero
  check_without_mps 1 not_needed
  expect_eq "daemon launches" "$(rec_count launch)" 0
  expect_eq "session folders" "$(session_folders)" ""
}

# run_solver NP ARGS...: the solver on a small heat input under mpiexec, with
# the session root ROOT. Sets RC, OUT, ERR like run_probe.
run_solver() {
  local np=$1
  shift
  [ -x "$SOLVER" ] || { problem "no solver to run (--solver PATH)"; RC=2; return; }
  "$SOLVER" --write-input "$W/in.h5" --force --set heat.nx=16 --set heat.ny=16 --set heat.nz=16 \
    >/dev/null || { problem "--write-input failed"; RC=2; return; }
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  run_logged "the solver" timeout -k 5 "$RUN_TIMEOUT" "$MPIEXEC" "$NP_FLAG" "$np" "${pre[@]}" \
    "$SOLVER" "$W/in.h5" --set mps.directory="$ROOT" "$@"
}

# --dry-run, 4 ranks on one GPU: the plan (MPS would start, each rank's cap
# and GPU) printed, exit 0, and nothing started: no daemon launched, no
# session folder, no report.
case_dry_run() {
  make_gpus 1
  run_solver 4 --dry-run --mps auto --report "$W/run.json"
  expect_rc_zero
  expect_text "$OUT" "rank grid"
  expect_text "$OUT" "MPS        would be started (dry run) (one daemon per GPU in $ROOT/"
  local r cap
  cap=$(cap_for 4 double auto)
  for r in 0 1 2 3; do
    grep -qE "^  rank $r: host .*, GPU ${UUIDS[0]}, MPS cap $cap%" "$OUT" ||
      problem "$(basename "$OUT") lacks rank $r's line with GPU ${UUIDS[0]} and cap $cap%"
  done
  expect_text "$OUT" "nothing was started"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  expect_eq "session folders" "$(session_folders)" ""
  [ ! -e "$W/run.json" ] || problem "--dry-run wrote the report $W/run.json"
  # A bad input is refused as a run would refuse it.
  run_solver 2 --dry-run --set heat.nx=0
  expect_rc_nonzero
  expect_text "$ERR" "heat.nx"
}

# --dry-run with balanced caps on a grid that does not divide evenly: heat
# 16 x 9 x 9 on 4 ranks (1 x 1 x 4: blocks of 3, 2, 2 and 2 planes of 16 x 9
# cells), each rank's cap its share of the cells after the double rule (67,
# 45, 45, 45), where an even split (16^3) gives every rank the uniform cap.
case_dry_run_balanced() {
  make_gpus 1
  run_solver 4 --dry-run --mps auto --mps-atp balanced --set heat.ny=9 --set heat.nz=9
  expect_rc_zero
  expect_text "$OUT" "rank grid  1 x 1 x 4"
  local caps want w total=$((16 * 9 * 9))
  caps=$(sed -n 's/^  rank [0-9]*: .*, MPS cap \([0-9]*\)%.*/\1/p' "$OUT" | sort -n | tr '\n' ' ')
  want=$(for w in $((16 * 9 * 3)) $((16 * 9 * 2)) $((16 * 9 * 2)) $((16 * 9 * 2)); do
    echo $(((200 * w + total - 1) / total))
  done | sort -n | tr '\n' ' ')
  expect_eq "the ranks' balanced caps" "$caps" "$want"
  run_solver 4 --dry-run --mps auto --mps-atp balanced
  expect_rc_zero
  caps=$(sed -n 's/^  rank [0-9]*: .*, MPS cap \([0-9]*\)%.*/\1/p' "$OUT" | sort -n | tr '\n' ' ')
  want="$(cap_for 4 double auto) $(cap_for 4 double auto) $(cap_for 4 double auto) $(cap_for 4 double auto) "
  expect_eq "balanced caps of an even split" "$caps" "$want"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  run_solver 2 --dry-run --mps-atp balance
  expect_rc_nonzero
  expect_text "$ERR" "expected auto, balanced or an integer in [1, 100]"
}

# --dry-run with one rank per GPU: MPS not needed, each rank its own GPU.
case_dry_run_not_needed() {
  make_gpus 2
  run_solver 2 --dry-run --mps auto
  expect_rc_zero
  expect_text "$OUT" "MPS        not needed (one rank per GPU)"
  local r
  for r in 0 1; do
    grep -E "^  rank $r: host " "$OUT" | grep -v "MPS cap" | grep -qE ", GPU ${UUIDS[$r]}(, |$)" ||
      problem "$(basename "$OUT") lacks rank $r's line with GPU ${UUIDS[$r]} and no cap"
  done
  expect_eq "daemon launches" "$(rec_count launch)" 0
}

case_off() {
  make_gpus 1
  run_probe 2 -- --enable off
  expect_rc_zero
  check_without_mps 2 off
  expect_text "$OUT" "REASON rank=0 mps.enable = off"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  expect_eq "session folders" "$(session_folders)" ""
}

# CUDA_VISIBLE_DEVICES=1 of two GPUs: one daemon, for the second GPU's UUID
# (a part of the node's GPUs: bring-up gathers every rank's after MPI_Init).
case_visible_devices() {
  make_gpus 2
  USED_UUIDS=("${UUIDS[1]}")
  local before=$EXP_BRING_UP
  EXP_BRING_UP="after MPI_Init (CUDA_VISIBLE_DEVICES holds a part of the GPUs, so ranks may see different ones: every rank's are gathered first)"
  run_probe 2 CUDA_VISIBLE_DEVICES=1 -- --enable auto
  check_started 2 1 double auto
  EXP_BRING_UP=$before
  # UUID prefixes, in the reverse of PCI order: CUDA's order is the listed one.
  new_record
  USED_UUIDS=("${UUIDS[1]}" "${UUIDS[0]}")
  run_probe 4 "CUDA_VISIBLE_DEVICES=${UUIDS[1]:0:12},${UUIDS[0]:0:12}" -- --enable auto
  check_started 4 2 double auto
  # One GPU listed twice: refused before anything starts, naming the entries.
  new_record
  run_probe 2 CUDA_VISIBLE_DEVICES=0,0 -- --enable auto
  expect_rc_nonzero
  expect_text "$ERR" "CUDA_VISIBLE_DEVICES=0,0: entries '0' and '0' both name GPU ${UUIDS[0]}"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  # Two of the node's four GPUs, the same two for every rank (sweep.py --gpus
  # 2): mpsfw's blocks over those two, not every rank on the first.
  new_record
  make_gpus 4
  USED_UUIDS=("${UUIDS[2]}" "${UUIDS[3]}")
  EXP_BRING_UP="after MPI_Init (CUDA_VISIBLE_DEVICES holds a part of the GPUs, so ranks may see different ones: every rank's are gathered first)"
  run_probe 4 CUDA_VISIBLE_DEVICES=2,3 -- --enable auto
  check_started 4 2 double auto
  EXP_BRING_UP=$before
}

# A GPU split into two MIG instances: one daemon per instance, started and
# used with the instance's UUID (CUDA_VISIBLE_DEVICES=MIG-...), caps per
# instance; with one rank per instance no daemon, but each rank still bound
# to its instance.
case_mig_instances() {
  make_gpus 1
  make_mig 2
  USED_UUIDS=("${MIGS[@]}")
  run_probe 4 -- --enable auto
  check_started 4 2 double auto
  new_record
  run_probe 2 -- --enable auto
  expect_rc_zero
  check_without_mps 2 not_needed
  expect_eq "rank 0 CUDA_VISIBLE_DEVICES (one rank per instance)" "$(field "$(probe_line 0)" cvd)" "${MIGS[0]}"
  expect_eq "rank 1 CUDA_VISIBLE_DEVICES (one rank per instance)" "$(field "$(probe_line 1)" cvd)" "${MIGS[1]}"
  expect_eq "daemon launches" "$(rec_count launch)" 0
}

# per_rank_gpu [STEP_GPUS]: a WRAP that gives local rank r GPU r % 2 alone
# (as Slurm's --gpu-bind may), and SLURM_STEP_GPUS when given.
per_rank_gpu() {
  {
    printf '#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=$((${OMPI_COMM_WORLD_LOCAL_RANK:-0} %% 2))\n'
    [ -n "${1:-}" ] && printf 'export SLURM_STEP_GPUS=%s\n' "$1"
    printf 'exec "$@"\n'
  } >"$W/bin/bind-gpu"
  chmod +x "$W/bin/bind-gpu"
  WRAP=("$W/bin/bind-gpu")
}

# Slurm bound each task to a GPU (round-robin, not mpsfw's blocks): bring-up
# waits for MPI_Init, gathers every rank's GPU and follows them.
case_slurm_gpu_bind() {
  make_gpus 2
  per_rank_gpu 0,1
  run_probe 4 -- --enable auto
  expect_rc_zero
  local r line
  for ((r = 0; r < 4; r++)); do
    line=$(probe_line "$r")
    expect_eq "rank $r state" "$(field "$line" state)" started
    expect_eq "rank $r CUDA_VISIBLE_DEVICES (Slurm's GPU)" "$(field "$line" cvd)" "${UUIDS[$((r % 2))]}"
    expect_eq "rank $r cap (2 ranks on its GPU)" "$(field "$line" atp)" 100
    [[ $line == *"bring_up=after MPI_Init (CUDA_VISIBLE_DEVICES holds a part of the GPUs"* ]] ||
      problem "rank $r bring_up: ${line#*bring_up=}"
  done
  expect_eq "daemons up" "$(rec_count daemon-up)" 2
}

# A per-rank wrapper outside Slurm gives each rank one of the two GPUs: the
# session follows it as it follows Slurm (one rank per GPU: nothing started,
# each keeps its own; two: a daemon per GPU, ranks on the wrapper's GPUs).
case_per_rank_wrapper() {
  make_gpus 2
  per_rank_gpu
  run_probe 2 -- --enable auto
  expect_rc_zero
  expect_eq "rank 1 keeps its own GPU (one rank per GPU)" "$(field "$(probe_line 1)" cvd)" 1
  new_record
  run_probe 4 -- --enable auto
  expect_rc_zero
  local r
  for ((r = 0; r < 4; r++)); do
    expect_eq "rank $r CUDA_VISIBLE_DEVICES (the wrapper's GPU)" "$(field "$(probe_line "$r")" cvd)" \
      "${UUIDS[$((r % 2))]}"
  done
  expect_eq "daemons up" "$(rec_count daemon-up)" 2
}

# Rank 0 sees both GPUs, the others only the second: the views differ after
# a bring-up from rank 0's. A clear error naming both, not a silently wrong
# binding, and nothing left.
case_mixed_views() {
  make_gpus 2
  printf '#!/bin/sh\n[ "${OMPI_COMM_WORLD_LOCAL_RANK:-0}" = 0 ] || export CUDA_VISIBLE_DEVICES=1\nexec "$@"\n' \
    >"$W/bin/mixed"
  chmod +x "$W/bin/mixed"
  WRAP=("$W/bin/mixed")
  run_probe 4 -- --enable auto
  expect_rc_nonzero
  grep -q "the ranks of this node see different GPUs" "$OUT" "$ERR" ||
    problem "no 'see different GPUs' in the output"
  expect_clean_after 15
}

# two_nodes N: the next runs start N ranks on each of two nodes simulated
# here (tests/support/fake-ssh: a UTS namespace per node name; with
# --slurm-nodes, Slurm's nodes node1 and node2, launched as slurm/run.sbatch
# does); false when this machine cannot make them (no unshare, not root).
two_nodes() {
  if [ "$SLURM_NODES" = 1 ]; then
    NODES=(--nodes 2 --ntasks-per-node "$1")
    return 0
  fi
  unshare --uts true 2>/dev/null || return 1
  printf 'node1 slots=%s\nnode2 slots=%s\n' "$1" "$1" >"$W/hosts"
  NODES=(--hostfile "$W/hosts" --mca plm_rsh_agent "$here/../support/fake-ssh")
}

# Two nodes (simulated), two ranks each: each node has its own session (its
# own leader, folder named after the node, daemon) and its own local ranks;
# the normal teardown quits both.
case_two_nodes() {
  make_gpus 1
  two_nodes 2 || { skip "no UTS namespaces here (unshare --uts)"; return; }
  run_probe 4 -- --enable on
  expect_rc_zero
  local r line node
  for ((r = 0; r < 4; r++)); do
    line=$(probe_line "$r")
    node=node$((r / 2 + 1))
    expect_eq "rank $r node rank" "$(field "$line" node_rank)" $((r % 2))
    expect_eq "rank $r node size" "$(field "$line" node_size)" 2
    expect_eq "rank $r owner (its node's leader)" "$(field "$line" owner)" $((r % 2 == 0 ? 1 : 0))
    expect_eq "rank $r state" "$(field "$line" state)" started
    [[ $(field "$line" pipe) == "$ROOT"/mpsfw-mps-*-"$node"/gpu0/pipe ]] ||
      problem "rank $r: pipe $(field "$line" pipe) is not in $node's session folder"
  done
  expect_eq "daemons up (one per node)" "$(rec_count daemon-up)" 2
  expect_clean_after 10
  expect_quit_by_session
}

# Node 2's leader killed mid-run: the job ends and neither node keeps a daemon
# or a folder (each node's watchdog cleans its own).
case_two_nodes_killed() {
  make_gpus 1
  two_nodes 2 || { skip "no UTS namespaces here (unshare --uts)"; return; }
  run_probe 4 -- --enable on --fail-rank 2 --fail-mode sigkill
  expect_rc_nonzero
  expect_eq "daemons up (one per node)" "$(rec_count daemon-up)" 2
  expect_clean_after 15
}

# Ranks mpirun leaves free are pinned to their GPU's CPUs (a fake sysfs: GPU 0
# near CPU 0, GPU 1 near CPU 1); two ranks for one CPU are left alone, and so
# is every rank under mps.cpu_placement = launcher.
case_near_gpu_cpus() {
  # The CPUs this process may use (not nproc: it follows OMP_NUM_THREADS).
  local all
  all=$("$PYTHON" -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
  [[ ,$all, == *,0,* && ,$all, == *,1,* ]] ||
    { skip "CPUs 0 and 1 are not both this process's to use (it may use: $all)"; return; }
  make_gpus 2
  local g
  for g in 0 1; do
    mkdir -p "$W/sys/bus/pci/devices/${FAKE_GPU_ALL_PCI[$g]}"
    echo "$g" >"$W/sys/bus/pci/devices/${FAKE_GPU_ALL_PCI[$g]}/local_cpulist"
  done
  run_probe 2 MPSFW_SYSFS_ROOT="$W/sys" OMPI_MCA_hwloc_base_binding_policy=none -- --enable on
  expect_rc_zero
  expect_eq "rank 0 CPUs (near GPU 0)" "$(field "$(probe_line 0)" cpus)" 0
  expect_eq "rank 1 CPUs (near GPU 1)" "$(field "$(probe_line 1)" cpus)" 1
  new_record
  run_probe 4 MPSFW_SYSFS_ROOT="$W/sys" OMPI_MCA_hwloc_base_binding_policy=none -- --enable on
  expect_rc_zero
  expect_eq "rank 0 CPUs (2 ranks, 1 CPU near GPU 0: left free)" "$(field "$(probe_line 0)" cpus)" "$all"
  new_record
  run_probe 2 MPSFW_SYSFS_ROOT="$W/sys" OMPI_MCA_hwloc_base_binding_policy=none -- --enable on \
    --placement launcher
  expect_rc_zero
  expect_eq "rank 0 CPUs (mps.cpu_placement = launcher)" "$(field "$(probe_line 0)" cpus)" "$all"
  expect_eq "rank 1 CPUs (mps.cpu_placement = launcher)" "$(field "$(probe_line 1)" cpus)" "$all"
}

# MPSFW_MPS_CONTROL names the program; a missing program with auto runs without MPS.
case_control_program() {
  make_gpus 1
  USED_UUIDS=("${UUIDS[@]}")
  export PATH=$BASE_PATH
  unset MPSFW_MPS_CONTROL
  mkdir -p "$W/elsewhere"
  cp "$W/bin/nvidia-cuda-mps-control" "$W/elsewhere/my-mps-control"
  run_probe 2 "MPSFW_MPS_CONTROL=$W/elsewhere/my-mps-control" -- --enable auto
  check_started 2 1 double auto
  new_record
  run_probe 2 "MPSFW_MPS_CONTROL=$W/missing/nvidia-cuda-mps-control" -- --enable auto
  expect_rc_zero
  check_without_mps 2 NOT_active
  expect_text "$OUT" "$W/missing/nvidia-cuda-mps-control -d' for GPU ${UUIDS[0]} failed"
  expect_clean_after 5
}

# A daemon already answering in CUDA_MPS_PIPE_DIRECTORY is used, never stopped.
case_reuse() {
  make_gpus 1
  local site=$W/site pid launches r line
  pid=$(start_daemon_by_hand "$site/pipe" "$site/log" CUDA_VISIBLE_DEVICES=GPU-site) ||
    { problem "could not start the site daemon"; return; }
  KEEP_ALIVE=("$pid")
  launches=$(rec_count launch)
  local -a site_env=(CUDA_MPS_PIPE_DIRECTORY="$site/pipe" CUDA_MPS_LOG_DIRECTORY="$site/log")
  local want
  for want in "auto:-:50" "auto:40:40" "30:40:30"; do
    local atp=${want%%:*} site_cap
    site_cap=${want#*:}
    site_cap=${site_cap%%:*}
    local -a extra=()
    [ "$site_cap" != - ] && extra=(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="$site_cap")
    run_probe 4 "${site_env[@]}" "${extra[@]}" -- --enable on --atp "$atp"
    expect_rc_zero
    for ((r = 0; r < 4; r++)); do
      line=$(probe_line "$r")
      expect_eq "rank $r state (atp $atp, site cap $site_cap)" "$(field "$line" state)" reused
      expect_eq "rank $r CUDA_MPS_PIPE_DIRECTORY" "$(field "$line" pipe)" "$site/pipe"
      expect_eq "rank $r daemon" "$(field "$line" daemon)" "$pid"
      expect_eq "rank $r CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (atp $atp, site cap $site_cap)" \
        "$(field "$line" atp)" "${want##*:}"
      expect_eq "rank $r owner" "$(field "$line" owner)" 0
      [[ $(final_line "$r") == *"state=reused"* ]] || problem "rank $r FINAL: $(final_line "$r")"
    done
  done
  # A client cannot exceed the daemon's default cap: a site daemon set to 25%
  # gives 25% to a job whose own policy wants 50%.
  echo "set_default_active_thread_percentage 25" | CUDA_MPS_PIPE_DIRECTORY="$site/pipe" \
    CUDA_MPS_LOG_DIRECTORY="$site/log" nvidia-cuda-mps-control >/dev/null 2>&1
  run_probe 4 "${site_env[@]}" -- --enable on --atp auto
  expect_rc_zero
  for ((r = 0; r < 4; r++)); do
    expect_eq "rank $r atp under a 25% site daemon" "$(field "$(probe_line "$r")" atp)" 25
  done
  expect_text "$OUT" "default cap 25% is below this job's 50%"
  expect_eq "daemon launches by the runs" "$(rec_count launch)" "$launches"
  # Questions only: never a setting changed or a quit sent to the site's
  # daemon (the one setting recorded is the test's own, sent by hand above).
  expect_eq "commands other than questions sent to the site daemon" \
    "$(rec_lines command "$site/pipe" | sed -n 's/.* cmd=//p' |
       grep -vE '^(get_server_list|get_default_active_thread_percentage)$' | tr '\n' ';')" \
    "set_default_active_thread_percentage 25;"
  alive "$pid" || problem "the site daemon $pid is gone after the runs"
  expect_eq "session folders" "$(session_folders)" ""
  # A folder whose daemon has quit (socket and old pid file left) is not reused.
  local dead=$W/dead old
  old=$(start_daemon_by_hand "$dead/pipe" "$dead/log") || problem "could not start a daemon in $dead"
  quit_by_hand "$dead/pipe" "$dead/log"
  sleep 0.3
  echo "$old" >"$dead/pipe/nvidia-cuda-mps-control.pid"
  USED_UUIDS=("${UUIDS[@]}")
  new_record
  run_probe 2 CUDA_MPS_PIPE_DIRECTORY="$dead/pipe" CUDA_MPS_LOG_DIRECTORY="$dead/log" -- --enable auto
  check_started 2 1 double auto
  quit_by_hand "$site/pipe" "$site/log"
}

# MPSFW_MPS_SESSION names a persistent session (as `mpsctl start` leaves it,
# leader 0 in its ready file): every rank uses its GPU's daemon of that session,
# which the run never stops; a session that is not there is NOT active (auto)
# or an error (on).
case_reuse_mpsctl_session() {
  make_gpus 2
  local ctl=$W/ctl g r line
  local -a pids=()
  for g in 0 1; do
    pids+=("$(start_daemon_by_hand "$ctl/gpu$g/pipe" "$ctl/gpu$g/log" CUDA_VISIBLE_DEVICES="${UUIDS[$g]}")") ||
      problem "could not start the session's daemon for GPU $g"
  done
  KEEP_ALIVE=("${pids[@]}")
  printf 'leader 0\ngpu 0 %s %s 77 0 %s %s\ngpu 1 %s %s 77 0 %s %s\n' \
    "${UUIDS[0]}" "${pids[0]}" "$ctl/gpu0/pipe" "$ctl/gpu0/log" \
    "${UUIDS[1]}" "${pids[1]}" "$ctl/gpu1/pipe" "$ctl/gpu1/log" >"$ctl/ready"
  local launches
  launches=$(rec_count launch)
  local atp
  for atp in 30 auto; do
    run_probe 4 MPSFW_MPS_SESSION="$ctl" -- --enable on --atp "$atp"
    expect_rc_zero
    for ((r = 0; r < 4; r++)); do
      g=$(gpu_of "$r" 4 2)
      line=$(probe_line "$r")
      expect_eq "rank $r state (atp $atp)" "$(field "$line" state)" reused
      expect_eq "rank $r CUDA_MPS_PIPE_DIRECTORY" "$(field "$line" pipe)" "$ctl/gpu$g/pipe"
      expect_eq "rank $r CUDA_MPS_LOG_DIRECTORY" "$(field "$line" log)" "$ctl/gpu$g/log"
      expect_eq "rank $r CUDA_VISIBLE_DEVICES" "$(field "$line" cvd)" "${UUIDS[$g]}"
      expect_eq "rank $r daemon" "$(field "$line" daemon)" "${pids[$g]}"
      expect_eq "rank $r owner" "$(field "$line" owner)" 0
      # auto wants 100% for 2 ranks a GPU; the session's daemons allow 77%.
      expect_eq "rank $r CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (atp $atp)" "$(field "$line" atp)" \
        "$([ "$atp" = auto ] && echo 77 || echo "$atp")"
    done
  done
  expect_eq "daemon launches by the runs" "$(rec_count launch)" "$launches"
  expect_eq "commands other than questions sent to the session's daemons" \
    "$(rec_lines command | sed -n 's/.* cmd=//p' |
       grep -vE '^(get_server_list|get_default_active_thread_percentage)$' | tr '\n' ';')" ""
  for g in 0 1; do alive "${pids[$g]}" || problem "the session's daemon ${pids[$g]} is gone after the runs"; done
  [ -f "$ctl/ready" ] || problem "the session's ready file is gone after the runs"
  expect_eq "session folders under the run's root" "$(session_folders)" ""
  run_probe 4 MPSFW_MPS_SESSION="$W/no-such-session" -- --enable auto
  expect_rc_zero
  check_without_mps 4 NOT_active
  expect_text "$OUT" "MPSFW_MPS_SESSION=$W/no-such-session holds no ready session"
  run_probe 2 MPSFW_MPS_SESSION="$W/no-such-session" -- --enable on
  expect_rc_nonzero
  expect_one_error "MPSFW_MPS_SESSION=$W/no-such-session holds no ready session"
  for g in 0 1; do quit_by_hand "$ctl/gpu$g/pipe" "$ctl/gpu$g/log"; done
}

# A session's daemon that turns its first askers away (as it may when many
# ranks ask at once) is still reused by every rank: questions
# are asked again within mps.timeout_seconds.
case_reuse_a_busy_daemon() {
  make_gpus 1
  local ctl=$W/ctl pid r
  pid=$(start_daemon_by_hand "$ctl/gpu0/pipe" "$ctl/gpu0/log" CUDA_VISIBLE_DEVICES="${UUIDS[0]}" \
    FAKE_MPS_TURN_AWAY=6) || problem "could not start the session's daemon"
  KEEP_ALIVE=("$pid")
  printf 'leader 0\ngpu 0 %s %s 100 0 %s %s\n' "${UUIDS[0]}" "$pid" "$ctl/gpu0/pipe" \
    "$ctl/gpu0/log" >"$ctl/ready"
  run_probe 4 MPSFW_MPS_SESSION="$ctl" -- --enable on
  expect_rc_zero
  for ((r = 0; r < 4; r++)); do
    expect_eq "rank $r state" "$(field "$(probe_line "$r")" state)" reused
  done
  expect_eq "askers turned away" "$(rec_count turned-away)" 6
  quit_by_hand "$ctl/gpu0/pipe" "$ctl/gpu0/log"
}

# A daemon that does not answer within mps.timeout_seconds: stopped although
# it has no pid file yet (not abandoned: reason=sigterm, not dir-gone), and the
# error names its control.log where it still exists after the run.
timeout_case() {
  local enable=$1
  make_gpus 1
  run_probe 2 FAKE_MPS_START_DELAY=4 -- --enable "$enable" --timeout 1
  local log_hint="/gpu0/log/control.log" kept="$ROOT/mpsfw-logs-"
  if [ "$enable" = on ]; then
    expect_rc_nonzero
    expect_one_error "did not answer within 1 s" "$kept" "$log_hint"
    expect_eq "PROBE lines" "$(grep -c '^PROBE ' "$OUT")" 0
  else
    expect_rc_zero
    check_without_mps 2 NOT_active
    expect_text "$OUT" "REASON rank=0 MPS: the control daemon for GPU ${UUIDS[0]} did not answer within 1 s; see $kept"
    # The follower may report the leader's error or its own wait running out
    # (it waits one timeout too; see follower_outwaited_by_leader).
    grep -qE "^REASON rank=1 .*(did not answer within 1 s; see $kept.*$log_hint|no ready file from the node leader)" "$OUT" ||
      problem "rank 1 gives no reason for running without MPS"
    grep -E "^FINAL rank=[01] state=NOT_active" "$OUT" | grep -c . | grep -qx 2 ||
      problem "FINAL lines do not say NOT active"
  fi
  local named
  named=$(cat "$OUT" "$ERR" | grep -o "see [^ ;]*control.log" | head -n 1 | sed 's/^see //')
  [ -n "$named" ] && grep -q "starting" "$named" 2>/dev/null ||
    problem "the log the error names ('$named') does not exist after the run"
  expect_spawned_stopped_by_sigterm  # no pid file yet: found by its pipe folder
  expect_clean_after 10
}
case_timeout_on() { timeout_case on; }
case_timeout_auto() { timeout_case auto; }

# The control program fails to start a daemon.
# The followers learn it from the leader's `failed` file, not by waiting.
case_fail_start() {
  make_gpus 1
  # A follower that waited for its timeout would take 25 s: far from the
  # second or two the run takes, however loaded the machine.
  run_probe 2 FAKE_MPS_FAIL_START=1 -- --enable auto --timeout 25
  expect_rc_zero
  check_without_mps 2 NOT_active
  # The logs it names are kept beside the (removed) session folder.
  expect_text "$OUT" "REASON rank=0 MPS: '" "-d' for GPU ${UUIDS[0]} failed (exit 1); see $ROOT/mpsfw-logs-" \
    "/gpu0/log/mpsfw-launch.log" "REASON rank=1 the node leader could not start MPS: MPS: '"
  local named
  named=$(grep -o "see [^ ;]*mpsfw-launch.log" "$OUT" | head -n 1 | sed 's/^see //')
  [ -s "$named" ] || problem "the log the reason names ('$named') is missing or empty"
  [ "$ELAPSED" -lt 15 ] || problem "the run took $ELAPSED s: the follower waited for its timeout (25 s)"
  expect_clean_after 5
  run_probe 2 FAKE_MPS_FAIL_START=1 -- --enable on --timeout 25
  expect_rc_nonzero
  expect_one_error "MPS (mps.enable = on)" "failed (exit 1)"
  [ "$ELAPSED" -lt 15 ] || problem "the run took $ELAPSED s: the follower waited for its timeout (25 s)"
  expect_clean_after 5
}

# A session folder of the same job name, left by a run that died: its daemons
# (on two GPUs, though this run uses one) are quit, the folder is replaced.
case_stale() {
  make_gpus 1
  USED_UUIDS=("${UUIDS[@]}")
  local dir old0 old1 dead
  dir=$(session_dir_of stalejob) || { problem "--session-dir-of failed"; return; }
  old0=$(start_daemon_by_hand "$dir/gpu0/pipe" "$dir/gpu0/log") || problem "could not start a stale daemon"
  old1=$(start_daemon_by_hand "$dir/gpu1/pipe" "$dir/gpu1/log") || problem "could not start a stale daemon"
  sleep 0 &
  dead=$!
  wait "$dead"
  printf '%s\nleader %s\ngpu 0 GPU-old %s 50 0 %s %s - - -\n' "$(record_head)" "$dead" "$old0" \
    "$dir/gpu0/pipe" "$dir/gpu0/log" >"$dir/ready"
  local launches_before
  launches_before=$(rec_count launch)
  run_probe 0 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2 PMI_KVSNAME=stalejob -- --enable auto
  expect_rc_zero
  local line
  line=$(probe_line 0)
  expect_eq "state" "$(field "$line" state)" started
  expect_eq "launcher" "$(field "$line" launcher)" MPICH/Hydra
  expect_eq "pipe folder" "$(field "$line" pipe)" "$dir/gpu0/pipe"
  expect_eq "cap (2 local ranks on one GPU)" "$(field "$line" atp)" 100
  expect_text "$OUT" "removed a stale session folder $dir"
  local new
  new=$(field "$line" daemon)
  [ -n "$new" ] && [ "$new" != "$old0" ] && [ "$new" != "$old1" ] ||
    problem "the run's daemon ($new) is not a new one (stale: $old0 $old1)"
  alive "$old0" && problem "stale daemon $old0 still running"
  alive "$old1" && problem "stale daemon $old1 (GPU 1, unused by this run) still running"
  local p
  for p in "$old0" "$old1"; do
    expect_eq "stale daemon $p exit reason" \
      "$(rec_lines daemon-exit | grep -F " pid=$p " | sed -n 's/.* reason=\([^ ]*\).*/\1/p')" quit
  done
  # The stale daemons were quit before the new one was launched.
  local quit_line launch_line
  quit_line=$(grep -n -F " daemon-exit pid=$old0 " "$REC" | cut -d: -f1)
  launch_line=$(grep -n -F " launch " "$REC" | tail -n 1 | cut -d: -f1)
  [ -n "$quit_line" ] && [ -n "$launch_line" ] && [ "$quit_line" -lt "$launch_line" ] ||
    problem "the new daemon was launched before the stale one was quit"
  expect_eq "launches by the run" "$(($(rec_count launch) - launches_before))" 1
  expect_clean_after 5
  expect_quit_by_session
}

# Daemons still exiting after `quit` (pid file gone, process not yet:
# FAKE_MPS_EXIT_DELAY): the teardown returns only once they are gone (a job
# script starting the next job at once must not meet them), and rank 0's
# teardown_exit says how long that took (1 s for each of the 2 daemons);
# `mpsctl stop` waits as well and says so.
case_teardown_exit_wait() {
  make_gpus 2
  USED_UUIDS=("${UUIDS[@]}")
  run_probe 4 FAKE_MPS_EXIT_DELAY=1 -- --enable auto
  check_started 4 2 double auto
  local waited p
  waited=$(field "$(final_line 0)" teardown_exit)
  awk -v w="$waited" 'BEGIN { exit !(w >= 1.5 && w < 10) }' ||
    problem "rank 0 teardown_exit '$waited', expected about 2 s (2 daemons exiting 1 s after quit)"
  expect_quit_by_session
  new_record
  run_mpsctl FAKE_MPS_EXIT_DELAY=1 -- start --job J
  expect_rc_zero
  run_mpsctl -- stop --job J
  expect_rc_zero
  for p in $(up_pids); do
    alive "$p" && problem "daemon $p still running when mpsctl stop returned"
  done
  waited=$(sed -n 's/.*its MPS processes gone \([0-9.]*\) s after quit.*/\1/p' "$OUT")
  awk -v w="$waited" 'BEGIN { exit !(w >= 1.5 && w < 10) }' ||
    problem "mpsctl stop does not say its 2 daemons took about 2 s to exit: $(cat "$OUT")"
  expect_quit_by_session
}

# Normal end at 4 ranks on 2 GPUs: both daemons quit, pid files and folder gone.
case_teardown_normal() {
  make_gpus 2
  USED_UUIDS=("${UUIDS[@]}")
  run_probe 4 -- --enable auto --hold 0.5
  check_started 4 2 double auto
  local g
  for g in 0 1; do
    local pipe
    pipe=$(field "$(probe_line "$g")" pipe)
    [ -e "$pipe/nvidia-cuda-mps-control.pid" ] && problem "pid file of GPU $g left"
  done
  expect_clean_after 0
}

# A run that ends abnormally: the leader's watchdog quits both daemons and
# removes the folder. crash_case RANK MODE EXPECTED_STDERR
crash_case() {
  local rank=$1 mode=$2 text=$3
  make_gpus 2
  run_probe 4 -- --enable auto --fail-rank "$rank" --fail-mode "$mode"
  expect_rc_nonzero
  local line
  line=$(probe_line 0)
  expect_eq "rank 0 state before the failure" "$(field "$line" state)" started
  [ "$(field "$line" daemons | tr ',' '\n' | grep -c .)" -eq 2 ] || problem "rank 0 did not list 2 daemons: $line"
  [ -n "$text" ] && expect_text "$ERR" "$text"
  expect_eq "FINAL lines (no teardown after a failure)" "$(grep -c '^FINAL ' "$OUT")" 0
  expect_eq "daemons up" "$(rec_count daemon-up)" 2
  expect_clean_after 15
  expect_quit_by_session
  # Other ranks may still be running: their servers get quit's grace period.
  expect_eq "servers shut down at once after a failure" \
    "$(rec_lines command | grep -c ' cmd=shutdown_server' || true)" 0
}
case_teardown_throw() { crash_case 1 throw "probe: exception asked on rank 1"; }
case_teardown_throw_leader() { crash_case 0 throw "probe: exception asked on rank 0"; }
case_teardown_collective() {
  crash_case 2 collective "mpsfw: error: probe: collective failure asked on rank 2"
  expect_eq "exit code (every rank leaves normally)" "$RC" 1
}
case_teardown_abort() { crash_case 1 abort ""; }
case_teardown_sigterm_leader() { crash_case 0 sigterm ""; }
case_teardown_sigkill_leader() { crash_case 0 sigkill ""; }

# A daemon that ignores quit: SIGKILL after timeout + 2 s, folder still removed.
case_teardown_stuck_daemon() {
  make_gpus 1
  run_probe 2 FAKE_MPS_IGNORE_QUIT=1 -- --enable auto --timeout 1
  expect_rc_zero
  expect_eq "quit ignored by the double" "$(rec_count quit-ignored)" 1
  local p
  for p in $(up_pids); do
    alive "$p" && problem "stuck daemon $p still running"
    # Killed, so it recorded no exit (dir-gone: it left by itself, abandoned).
    expect_eq "exit record of the stuck daemon $p" "$(rec_lines daemon-exit | grep -F " pid=$p ")" ""
  done
  expect_eq "session folders" "$(session_folders)" ""
  expect_clean_after 2
}

# The open-file limit is too low for the ranks sharing a GPU: refused up front.
case_preflight_open_files() {
  make_gpus 1
  # Lowered for the ranks only: mpiexec keeps its own limit.
  WRAP=(bash -c 'ulimit -n 100 && exec "$@"' ulimit-100)
  run_probe 4 -- --enable auto
  WRAP=()
  expect_rc_nonzero
  expect_one_error "the open-file limit (ulimit -n = 100) is below the 128 that 4 clients per GPU need" \
    "ulimit -n 128"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  expect_clean_after 2
}

# More ranks on a GPU than an MPS server takes (one process claims 61 local ranks).
case_preflight_clients() {
  make_gpus 1
  run_probe 0 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=61 PMI_KVSNAME=clients -- --enable auto
  expect_rc_nonzero
  expect_one_error "MPS: 61 ranks would share one GPU, more than the" "clients an MPS server takes"
  grep -qE "more than the (48|60) clients" "$ERR" || problem "the limit named is neither 48 nor 60"
  expect_eq "daemon launches" "$(rec_count launch)" 0
  # 40 local ranks fit: one daemon with cap ceil(200/40) = 5.
  local hard
  hard=$(ulimit -Hn)
  [ "$hard" = unlimited ] || [ "$hard" -ge 1024 ] && ULIMIT_N=1024
  run_probe 0 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=40 PMI_KVSNAME=clients -- --enable auto
  ULIMIT_N=""
  expect_rc_zero
  expect_eq "state with 40 ranks" "$(field "$(probe_line 0)" state)" started
  expect_eq "cap with 40 ranks" "$(field "$(probe_line 0)" atp)" 5
  local pipe
  pipe=$(field "$(probe_line 0)" pipe)
  expect_eq "cap sent" "$(commands set_default_active_thread_percentage "$pipe")" \
    "set_default_active_thread_percentage 5"
  expect_clean_after 2
}

# No local-rank variables: bring-up after MPI_Init, job named after the leader's PID.
case_after_mpi_singleton() {
  make_gpus 1
  USED_UUIDS=("${UUIDS[@]}")
  EXP_LAUNCHER=-
  EXP_BRING_UP="after MPI_Init (the launcher set no local-rank variables)"
  run_probe 0 -- --enable on
  check_started 1 1 double auto
  [[ $(field "$(probe_line 0)" pipe) == "$ROOT"/mpsfw-mps-pid[0-9]*-*/gpu0/pipe ]] ||
    problem "session folder not named after the leader's PID: $(field "$(probe_line 0)" pipe)"
  new_record
  run_probe 0 -- --enable auto
  expect_rc_zero
  check_without_mps 1 not_needed
  expect_eq "daemon launches" "$(rec_count launch)" 0
}

case_after_mpi_np3() {
  make_gpus 1
  USED_UUIDS=("${UUIDS[@]}")
  EXP_LAUNCHER=-
  EXP_BRING_UP="after MPI_Init (the launcher set no local-rank variables)"
  WRAP=(env -u OMPI_COMM_WORLD_LOCAL_RANK -u OMPI_COMM_WORLD_LOCAL_SIZE -u MPI_LOCALRANKID
    -u MPI_LOCALNRANKS -u PMI_LOCAL_RANK -u PMI_LOCAL_SIZE -u SLURM_LOCALID)
  run_probe 3 -- --enable auto
  check_started 3 1 double auto
}

# --- Once known bugs, now fixed: keep them fixed --------------------------------

# A stale folder holding a `failed` file: a follower that starts polling before
# the leader has removed the folder takes the old failure for the new one.
case_stale_failed_file_race() {
  make_gpus 1
  local dir old
  dir=$(session_dir_of racejob)
  old=$(start_daemon_by_hand "$dir/gpu0/pipe" "$dir/gpu0/log") || problem "could not start a stale daemon"
  printf '%s\nMPS: an old failure of a previous run\n' "$(record_head)" >"$dir/failed"
  local -a common=(MPI_LOCALNRANKS=2 PMI_KVSNAME=racejob)
  # The follower first, then the leader: both are singletons sharing the job name.
  runs=$((runs + 1))
  # The follower's Open MPI session folder apart from the leader's: two
  # singletons starting at once race to create it (see setup_case).
  mkdir -p "$OMPI_SESSIONS/follower"
  env "${common[@]}" MPI_LOCALRANKID=1 OMPI_MCA_orte_tmpdir_base="$OMPI_SESSIONS/follower" \
    timeout -k 5 "$RUN_TIMEOUT" "$PROBE" --dir "$ROOT" --enable on \
    --timeout 10 >"$W/follower.out" 2>"$W/follower.err" </dev/null &
  local follower=$!
  sleep 0.3
  run_probe 0 "${common[@]}" MPI_LOCALRANKID=0 -- --enable on --timeout 10 --hold 1
  local frc=0
  wait "$follower" || frc=$?
  expect_rc_zero
  [ "$frc" -eq 0 ] || problem "the follower failed (exit $frc): $(grep 'mpsfw: error' "$W/follower.err")"
  grep -q "^PROBE rank=0 .*state=started" "$W/follower.out" ||
    problem "the follower did not start MPS: $(grep -h '^PROBE\|^REASON' "$W/follower.out")"
  expect_clean_after 5
}

# The leader may take up to (GPUs x timeout) to start its daemons, but followers
# wait only one timeout for its ready file.
case_follower_outwaited_by_leader() {
  make_gpus 2
  USED_UUIDS=("${UUIDS[@]}")
  run_probe 4 FAKE_MPS_START_DELAY=0.9 -- --enable on --timeout 1.5
  check_started 4 2 double auto
}

# A stale pid file that names a live process that is no daemon (PID reused):
# the leader's cleanup must not SIGKILL it.
case_stale_pid_file_names_other_process() {
  make_gpus 1
  local dir victim
  dir=$(session_dir_of pidjob)
  mkdir -p "$dir/gpu0/pipe" "$dir/gpu0/log"
  sleep 60 &
  victim=$!
  # What a leader that died while starting leaves: its starting file.
  local dead
  sleep 0 &
  dead=$!
  wait "$dead"
  printf '%s\n%s\n' "$(record_head)" "$dead" >"$dir/starting"
  echo "$victim" >"$dir/gpu0/pipe/nvidia-cuda-mps-control.pid"
  run_probe 0 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2 PMI_KVSNAME=pidjob -- --enable auto --timeout 1
  expect_rc_zero
  alive "$victim" || problem "the session killed process $victim named by a stale pid file (not a daemon)"
  kill "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
  expect_clean_after 5
}

# A daemon that has quit but is not reaped yet (a container whose PID 1 reaps
# nothing) is a zombie, and kill(pid, 0) succeeds on it: teardown must not wait
# timeout + 2 s for each such daemon. The orphans go to a subreaper that does
# not reap them until the run is over.
case_zombie_daemon_not_running() {
  make_gpus 1
  PREFIX=("$PYTHON" "$here/subreaper.py" --no-reap)
  local t0=$SECONDS
  # Waiting for the zombie would take timeout + 2 = 12 s; the run takes about one.
  run_probe 2 -- --enable auto --timeout 10
  PREFIX=()
  expect_rc_zero
  [ $((SECONDS - t0)) -lt 8 ] ||
    problem "the run took $((SECONDS - t0)) s: teardown waited for a daemon that had quit (a zombie)"
  expect_clean_after 5
}

# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------
# `mpsctl start` whose daemon does not answer in time: the daemon (no pid
# file yet) is stopped, nothing of the session is left but its logs, which
# the error names.
case_mpsctl_timeout() {
  make_gpus 1
  run_mpsctl FAKE_MPS_START_DELAY=4 -- start --job J --timeout 1
  expect_rc_nonzero
  local named
  named=$(grep -o "see [^ ;]*control.log" "$ERR" | head -n 1 | sed 's/^see //')
  [[ $named == "$ROOT/mpsfw-logs-J-"*"/gpu0/log/control.log" ]] ||
    problem "the error names no kept log: $(cat "$ERR")"
  grep -q starting "$named" 2>/dev/null || problem "the log '$named' does not exist"
  expect_spawned_stopped_by_sigterm
  expect_clean_after 10
}

# Two `mpsctl start` of one job name at once: the second is refused by the
# job's lock (one daemon in all), and `cleanup` meanwhile leaves the session
# that is still starting alone; then the first finishes and `stop` quits it.
case_mpsctl_concurrent_start() {
  make_gpus 1
  [ -x "$MPSCTL" ] || { problem "no mpsctl to run (--mpsctl PATH)"; return; }
  FAKE_MPS_START_DELAY=2 timeout -k 5 "$RUN_TIMEOUT" "$MPSCTL" start --job J --timeout 10 \
    --dir "$ROOT" >"$W/first.out" 2>"$W/first.err" </dev/null &
  local first=$!
  local waited=0
  while [ -z "$(rec_lines daemon-spawn)" ] && [ "$waited" -lt 100 ]; do
    sleep 0.05
    waited=$((waited + 1))
  done
  run_mpsctl -- start --job J --timeout 10
  expect_rc_nonzero
  # $first is timeout's PID; mpsctl is its child.
  local starter
  starter=$(pgrep -P "$first" | head -n 1)
  expect_text "$ERR" "another 'mpsctl start' of job 'J' is running (pid $starter, lock $ROOT/mpsfw-lock-J-"
  run_mpsctl -- cleanup
  expect_rc_zero
  expect_text "$OUT" "still starting (pid $starter)" "0 session(s) removed"
  local rc=0
  wait "$first" || rc=$?
  [ "$rc" -eq 0 ] || problem "the first start failed (exit $rc): $(cat "$W/first.err")"
  grep -q "^export MPSFW_MPS_SESSION=$ROOT/mpsfw-mps-J-" "$W/first.out" ||
    problem "the first start printed no session"
  expect_eq "daemons spawned" "$(spawned_pids | grep -c .)" 1
  run_mpsctl -- stop --job J
  expect_rc_zero
  expect_quit_by_session
  expect_clean_after 10
}

# --gpus naming a GPU that is not there, with two GPUs and with none.
case_mpsctl_gpus() {
  make_gpus 2
  run_mpsctl -- start --job J --gpus 5
  expect_rc_nonzero
  expect_text "$ERR" "--gpus 5: no such GPU here (indices 0..1 or UUIDs)"
  run_mpsctl -- start --job J --gpus 0,0
  expect_rc_nonzero
  expect_text "$ERR" "--gpus 0,0: entries '0' and '0' both name GPU ${UUIDS[0]}"
  rm -rf "$W/proc" && mkdir -p "$W/proc"
  run_mpsctl -- start --job J --gpus 5
  expect_rc_nonzero
  expect_text "$ERR" "mpsctl start --gpus 5: no GPU is visible on this node"
  expect_eq "daemons spawned" "$(spawned_pids | grep -c .)" 0
}

# mpsctl gpus: the GPUs as bring-up finds them (what advise and sweep.py
# count): CUDA_VISIBLE_DEVICES applied, by index and by UUID; MIG instances
# as GPUs of their own; nothing started.
case_mpsctl_gpus_list() {
  make_gpus 2
  run_mpsctl -- gpus
  expect_rc_zero
  expect_eq "mpsctl gpus" "$(cut -d' ' -f1-3 "$OUT" | tr '\n' ';')" "gpu 0 ${UUIDS[0]};gpu 1 ${UUIDS[1]};"
  run_mpsctl CUDA_VISIBLE_DEVICES=1 -- gpus
  expect_eq "mpsctl gpus, CUDA_VISIBLE_DEVICES=1" "$(cut -d' ' -f1-3 "$OUT" | tr '\n' ';')" "gpu 0 ${UUIDS[1]};"
  run_mpsctl CUDA_VISIBLE_DEVICES="${UUIDS[1]}" -- gpus
  expect_eq "mpsctl gpus, CUDA_VISIBLE_DEVICES by UUID" "$(cut -d' ' -f1-3 "$OUT" | tr '\n' ';')" \
    "gpu 0 ${UUIDS[1]};"
  # One GPU listed twice: refused, naming both entries.
  run_mpsctl CUDA_VISIBLE_DEVICES=1,1,0 -- gpus
  expect_rc_nonzero
  expect_text "$ERR" "CUDA_VISIBLE_DEVICES=1,1,0: entries '1' and '1' both name GPU ${UUIDS[1]}"
  run_mpsctl CUDA_VISIBLE_DEVICES="${UUIDS[0]},0" -- gpus
  expect_rc_nonzero
  expect_text "$ERR" "entries '${UUIDS[0]}' and '0' both name GPU ${UUIDS[0]}"
  make_mig 2
  run_mpsctl -- gpus
  expect_rc_zero
  expect_eq "mpsctl gpus, GPU 0 in 2 MIG instances" "$(cut -d' ' -f1-3 "$OUT" | tr '\n' ';')" \
    "gpu 0 ${MIGS[0]};gpu 1 ${MIGS[1]};gpu 2 ${UUIDS[1]};"
  expect_text "$OUT" "MIG 3g.40gb of ${UUIDS[0]}"
  expect_eq "daemon launches" "$(rec_count launch)" 0
}

# `mpsctl stop` on a folder that is not an mpsfw session (a project folder with
# a `ready` file and data/results.csv must never be removed): refused, exit 1,
# the folder as it was; also under a session's name with a ready file mpsfw did
# not write (an older mpsfw's, or the user's), and `cleanup` leaves that too and
# says why.
case_mpsctl_stop_foreign_folder() {
  make_gpus 1
  local project=$W/project dir
  mkdir -p "$project/data"
  echo "leader 0" >"$project/ready"
  echo "1,2" >"$project/data/results.csv"
  run_mpsctl -- stop --session "$project"
  expect_rc_nonzero
  expect_text "$ERR" "not removing $project: its name is not mpsfw-mps-<job>-<host>"
  [ -f "$project/ready" ] && [ -f "$project/data/results.csv" ] ||
    problem "stop --session $project removed what it holds: $(find "$project" 2>&1 | tr '\n' ' ')"
  dir=$(session_dir_of J)
  mkdir -p "$dir/data"
  echo "leader 0" >"$dir/ready"
  echo "1,2" >"$dir/data/results.csv"
  run_mpsctl -- stop --job J
  expect_rc_nonzero
  expect_text "$ERR" "not removing $dir: its ready file does not begin with 'mpsfw-session 1 <host>'"
  run_mpsctl -- cleanup --all
  expect_rc_nonzero
  expect_text "$OUT" "left $dir: MPS: not removing $dir" "0 session(s) removed"
  [ -f "$dir/ready" ] && [ -f "$dir/data/results.csv" ] ||
    problem "stop or cleanup removed a folder mpsfw did not write: $(find "$dir" 2>&1 | tr '\n' ' ')"
}

# A session `mpsctl start` made still stops with --session (trailing slash
# too); one the user put a file in has its daemon stopped but is not removed
# (exit 1, naming the file), and stops once the file is gone.
case_mpsctl_stop_session() {
  make_gpus 1
  local dir
  run_mpsctl -- start --job J
  expect_rc_zero
  dir=$(sed -n 's/^export MPSFW_MPS_SESSION=//p' "$OUT")
  [ -d "$dir" ] || { problem "start printed no session folder: $(cat "$OUT" "$ERR")"; return; }
  run_mpsctl -- stop --session "$dir/"
  expect_rc_zero
  expect_text "$OUT" "stopped and removed $dir"
  expect_quit_by_session
  expect_clean_after 5
  new_record
  run_mpsctl -- start --job J
  expect_rc_zero
  mkdir -p "$dir/data"
  echo "1,2" >"$dir/data/results.csv"
  run_mpsctl -- stop --job J
  expect_rc_nonzero
  expect_text "$ERR" "stopped the daemons of $dir but did not remove it: it holds 'data'"
  expect_quit_by_session
  [ -f "$dir/data/results.csv" ] || problem "stop removed $dir/data/results.csv"
  rm -r "$dir/data"
  run_mpsctl -- stop --job J
  expect_rc_zero
  expect_clean_after 5
}

# `mpsctl stop` of a session whose server has two clients running: refused
# naming them, the daemon and folder left as they were (also by `cleanup
# --all`); with --force it stops, saying what that does to the clients.
case_mpsctl_stop_live_clients() {
  make_gpus 1
  local dir pipe daemon c1 c2
  run_mpsctl -- start --job J
  expect_rc_zero
  dir=$(sed -n 's/^export MPSFW_MPS_SESSION=//p' "$OUT")
  [ -d "$dir" ] || { problem "start printed no session folder: $(cat "$OUT" "$ERR")"; return; }
  pipe=$dir/gpu0/pipe
  daemon=$(cat "$pipe/nvidia-cuda-mps-control.pid")
  sleep 60 &
  c1=$!
  sleep 60 &
  c2=$!
  echo "$daemon" >"$pipe/fake_server"
  printf '%s\n%s\n' "$c1" "$c2" >"$pipe/fake_clients"
  run_mpsctl -- stop --job J
  expect_rc_nonzero
  expect_text "$ERR" "mpsctl stop: the MPS servers of $dir have clients running, PIDs $c1 (GPU 0), $c2 (GPU 0); not stopping it" \
    "with --force its daemons give them 5 s, then shut their MPS servers down: their CUDA calls fail"
  alive "$daemon" || problem "stop without --force ended the daemon of a session with clients"
  [ -f "$dir/ready" ] || problem "stop without --force removed $dir/ready"
  run_mpsctl -- cleanup --all
  expect_rc_nonzero
  expect_text "$OUT" "left $dir: mpsctl cleanup: the MPS servers of $dir have clients running, PIDs $c1 (GPU 0), $c2 (GPU 0)"
  alive "$daemon" || problem "cleanup --all ended the daemon of a session with clients"
  run_mpsctl -- stop --job J --force
  expect_rc_zero
  expect_text "$OUT" "stopped and removed $dir" \
    "--force: its clients $c1 (GPU 0), $c2 (GPU 0) lost their MPS server (its daemons give them 5 s, then shut their MPS servers down: their CUDA calls fail from then on)"
  expect_quit_by_session
  expect_clean_after 5
  kill "$c1" "$c2" 2>/dev/null
  wait "$c1" "$c2" 2>/dev/null
}

# older_session DIR LEADER: a session folder as mpsfw wrote it before its
# records began 'mpsfw-session 1 <host>' (a starting file of a bare PID, a
# ready file without the pinned field), with two daemons running in its
# gpu<N>/pipe folders; sets OLDER_DAEMONS.
older_session() {
  local dir=$1 leader=$2 d0 d1
  d0=$(start_daemon_by_hand "$dir/gpu0/pipe" "$dir/gpu0/log") || problem "could not start an old daemon"
  d1=$(start_daemon_by_hand "$dir/gpu1/pipe" "$dir/gpu1/log") || problem "could not start an old daemon"
  echo "$leader" >"$dir/starting"
  printf 'leader %s\ngpu 0 %s %s 50 0 %s %s - -\ngpu 1 %s %s 50 0 %s %s - -\n' "$leader" \
    "${UUIDS[0]}" "$d0" "$dir/gpu0/pipe" "$dir/gpu0/log" \
    "${UUIDS[1]}" "$d1" "$dir/gpu1/pipe" "$dir/gpu1/log" >"$dir/ready"
  OLDER_DAEMONS=("$d0" "$d1")
}

# An older mpsfw's session whose leader is dead, its two daemons running: ours
# by its name and the daemons' pipe folders inside it, so `cleanup` quits both
# and removes it. One holding a file mpsfw never writes has its daemons quit
# but stays, named; one whose leader runs is left, and `stop` says why.
case_mpsctl_cleanup_older_session() {
  make_gpus 2
  local dir dead p
  sleep 0 &
  dead=$!
  wait "$dead"
  dir=$(session_dir_of old) || { problem "--session-dir-of failed"; return; }
  older_session "$dir" "$dead"
  run_mpsctl -- cleanup
  expect_rc_zero
  expect_text "$OUT" "removed $dir" "1 session(s) removed"
  [ -e "$dir" ] && problem "cleanup left the older session $dir: $(find "$dir" | tr '\n' ' ')"
  for p in "${OLDER_DAEMONS[@]}"; do
    alive "$p" && problem "daemon $p of the older session still running"
  done
  expect_quit_by_session
  new_record
  older_session "$dir" "$dead"
  echo "mine" >"$dir/notes.txt"
  run_mpsctl -- cleanup
  expect_rc_nonzero
  expect_text "$OUT" "left $dir: MPS: stopped the daemons of $dir but did not remove it: it holds 'notes.txt'"
  expect_quit_by_session
  [ -f "$dir/notes.txt" ] && [ -f "$dir/ready" ] || problem "cleanup removed what the older session holds"
  rm "$dir/notes.txt"
  run_mpsctl -- cleanup
  expect_rc_zero
  expect_text "$OUT" "removed $dir"
  new_record
  older_session "$dir" "$$"
  run_mpsctl -- cleanup
  expect_rc_zero
  expect_text "$OUT" "0 session(s) removed"
  run_mpsctl -- stop --job old
  expect_rc_nonzero
  expect_text "$ERR" "nor is it an older mpsfw's session of a dead rank (its leader, PID $$, still runs)"
  for p in "${OLDER_DAEMONS[@]}"; do
    alive "$p" || problem "daemon $p of an older session whose leader runs was stopped"
  done
  sed -i "s/^leader .*/leader $dead/" "$dir/ready"  # its leader ends
  run_mpsctl -- stop --job old
  expect_rc_zero
  expect_quit_by_session
  expect_clean_after 5
}

# A shared mps.directory holds sessions of other hosts: `cleanup --all`
# removes this host's (started by mpsctl) and leaves the other host's alone,
# though no process of its recorded leader runs here, and says so; `status`
# does not judge it either.
case_mpsctl_cleanup_other_host() {
  make_gpus 1
  local mine other other_pid dead
  other=$ROOT/mpsfw-mps-J-elsewhere.$(this_host)
  other_pid=$(start_daemon_by_hand "$other/gpu0/pipe" "$other/gpu0/log") ||
    { problem "could not start the other host's daemon"; return; }
  KEEP_ALIVE=("$other_pid")
  sleep 0 &
  dead=$!
  wait "$dead"
  printf '%s\nleader %s\ngpu 0 %s %s 50 0 %s %s - - -\n' "$(record_head "elsewhere.$(this_host)")" \
    "$dead" "${UUIDS[0]}" "$other_pid" "$other/gpu0/pipe" "$other/gpu0/log" >"$other/ready"
  run_mpsctl -- start --job J
  expect_rc_zero
  mine=$(sed -n 's/^export MPSFW_MPS_SESSION=//p' "$OUT")
  run_mpsctl -- status
  expect_rc_zero
  expect_text "$OUT" "$mine" "1 session(s) of other hosts under $ROOT not shown"
  expect_no_text "$OUT" "$other"
  run_mpsctl -- cleanup --all
  expect_rc_zero
  expect_text "$OUT" "removed $mine" "1 session(s) removed" \
    "1 session(s) of other hosts under $ROOT left alone (this host: $(this_host))"
  [ -f "$other/ready" ] || problem "cleanup removed the other host's session $other"
  alive "$other_pid" || problem "cleanup stopped the other host's daemon $other_pid"
  [ -d "$mine" ] && problem "cleanup --all left this host's session $mine"
  quit_by_hand "$other/gpu0/pipe" "$other/gpu0/log"
}

# mps.pinned_device_mem_limit is checked in the form the daemon takes (it
# reads "64K" as 64M and "2T" as 2M without a word): others are refused up
# front naming the key; a limit the daemon took is read back and reported
# (mpsctl start and status, each rank); a daemon that does not hold it fails
# the bring-up.
case_mpsctl_pinned_limit() {
  make_gpus 1
  local bad pipe
  for bad in 64K 2T 1073741824 1.5G; do
    run_mpsctl -- start --job J --pinned-mem "$bad"
    expect_rc_nonzero
    expect_text "$ERR" "--pinned-mem $bad: mps.pinned_device_mem_limit takes a whole number followed by M or G"
  done
  run_probe 2 -- --enable auto --pinned 64K
  expect_rc_nonzero
  expect_one_error "mps.pinned_device_mem_limit takes a whole number followed by M or G" "got '64K'"
  expect_eq "daemons spawned for bad limits" "$(spawned_pids | grep -c .)" 0
  run_mpsctl -- start --job J --pinned-mem 1536m
  expect_rc_zero
  expect_text "$ERR" "pinned limit 1G (read back)"
  pipe=$(sed -n 's/^export MPSFW_MPS_SESSION=//p' "$OUT")/gpu0/pipe
  expect_eq "limit sent" "$(commands set_default_device_pinned_mem_limit "$pipe")" \
    "set_default_device_pinned_mem_limit 0 1536M"
  run_mpsctl -- status
  expect_text "$OUT" "pinned limit 1G, daemon"
  run_mpsctl -- stop --job J
  expect_rc_zero
  new_record
  run_mpsctl FAKE_MPS_PINNED_SHOWS=4G -- start --job J --pinned-mem 8G
  expect_rc_nonzero
  expect_text "$ERR" "does not hold mps.pinned_device_mem_limit = 8G" "it reads back '4G'" "expected 8G"
  expect_clean_after 5
  new_record
  run_probe 2 FAKE_MPS_PINNED_SHOWS=4G -- --enable on --pinned 8G
  expect_rc_nonzero
  expect_one_error "does not hold mps.pinned_device_mem_limit = 8G"
  expect_clean_after 10
}

# The lock file `mpsctl start` rewrites is a symbolic link to someone's file
# (a prolog runs as root in /tmp): refused, the file it points to intact.
case_mpsctl_lock_symlink() {
  make_gpus 1
  echo "precious" >"$W/precious"
  ln -s "$W/precious" "$ROOT/mpsfw-lock-J-$(this_host)"
  run_mpsctl -- start --job J
  expect_rc_nonzero
  expect_text "$ERR" "cannot open the lock file $ROOT/mpsfw-lock-J-$(this_host)" "symbolic link"
  expect_eq "the file the link points to" "$(cat "$W/precious")" precious
  expect_eq "daemons spawned" "$(spawned_pids | grep -c .)" 0
}

# The site scripts (slurm/mps_prolog.sh, mps_task_prolog.sh, mps_epilog.sh)
# with the environment Slurm gives them: a job that does not ask gets nothing;
# one with gres/mps gets a session its user owns (the prolog runs as root),
# its tasks the export lines, and its epilog leaves nothing; a node without a
# GPU is not drained (exit 0, the reason in the log).
case_site_prolog_epilog() {
  make_gpus 1
  [ -x "$MPSCTL" ] || { problem "no mpsctl to run (--mpsctl PATH)"; return; }
  local slurm=$here/../../slurm user=65534 session
  local -a job=(env SLURM_JOB_ID=J SLURM_JOB_UID=$user "MPSFW_MPSCTL=$MPSCTL" "MPSFW_MPS_ROOT=$ROOT")
  local -a asks=("${job[@]}" CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25)
  run_logged prolog "${job[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_prolog.sh"
  expect_rc_zero
  expect_eq "daemons for a job that did not ask" "$(spawned_pids | grep -c .)" 0
  run_logged prolog "${asks[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_prolog.sh"
  expect_rc_zero
  session=$(session_folders)
  [ -n "$session" ] || { problem "no session for a job with gres/mps: $(cat "$ERR")"; return; }
  expect_eq "the session folder's owner" "$(stat -c %u "$session")" "$user"
  expect_eq "the owner of its pipe folder" "$(stat -c %u "$session/gpu0/pipe")" "$user"
  run_logged task_prolog "${job[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_task_prolog.sh"
  expect_rc_zero
  expect_text "$OUT" "export MPSFW_MPS_SESSION=$session" \
    "export CUDA_MPS_PIPE_DIRECTORY=$session/gpu0/pipe" "export CUDA_MPS_LOG_DIRECTORY=$session/gpu0/log"
  run_logged epilog "${job[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_epilog.sh"
  expect_rc_zero
  expect_quit_by_session
  expect_clean_after 10
  run_logged task_prolog "${job[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_task_prolog.sh"
  expect_eq "a task prolog's lines without a session" "$(cat "$OUT")" ""
  rm -rf "$W/proc" && mkdir -p "$W/proc"
  run_logged prolog "${asks[@]}" timeout -k 5 "$RUN_TIMEOUT" "$slurm/mps_prolog.sh"
  expect_rc_zero
  expect_text "$ERR" "job J: no node-level MPS" "no GPU is visible on this node"
  [ -z "$(session_folders)" ] || problem "a session on a node without a GPU"
}

# mpsfw-run (apps/run.cpp) around programs that are not mpsfw's, as run_probe
# runs the probe; a case sets `local PROBE=$RUNNER`, so that nothing_left
# looks for the wrappers' processes.
run_wrapped() {
  [ -x "$RUNNER" ] || { problem "no mpsfw-run to run (--runner PATH)"; RC=2; return; }
  run_probe "$@"
}
# A program that becomes a client of its GPU's server, as a CUDA program does
# under MPS (the double lists the PIDs of <pipe>/fake_clients), from a child
# process, then ends with code $1.
make_client_program() {
  cat >"$W/client.sh" <<'SH'
#!/bin/sh
echo "start_server -uid $(id -u)" | "$MPSFW_MPS_CONTROL" > /dev/null
sh -c 'echo $$ >> "$CUDA_MPS_PIPE_DIRECTORY/fake_clients"; sleep 1.5'
exit "$1"
SH
  chmod +x "$W/client.sh"
}

# Two ranks of a program that is a client (its child is): started daemon,
# verified clients 2 of 2, the report, the program's exit code, nothing left.
case_mpsfw_run_clients() {
  make_gpus 1
  make_client_program
  local PROBE=$RUNNER
  run_wrapped 2 -- --mps on --report "$W/run.json" -- "$W/client.sh" 0
  expect_rc_zero
  expect_text "$ERR" "mpsfw-run: 2 rank(s) on this node, MPS started" "verified clients 2 of 2"
  expect_text "$W/run.json" '"verified_clients": 2' '"client": "yes"'
  expect_eq "daemons spawned" "$(spawned_pids | grep -c .)" 1
  expect_clean_after 10
}

# A program that never touches the GPU: each rank named "not a client", its
# exit code passed on, nothing left.
case_mpsfw_run_not_clients() {
  make_gpus 1
  local PROBE=$RUNNER
  run_wrapped 2 -- --mps on -- sh -c 'sleep 0.5; exit 3'
  expect_eq "the exit code" "$RC" 3
  expect_text "$ERR" "verified clients 0 of 2" "local rank 0 (pid" "local rank 1 (pid" \
    "exit 3) was not a client of its GPU's MPS server"
  expect_clean_after 10
  # Its own command line: a usage error exits 2, a bad value 1, nothing run.
  "$RUNNER" --bogus -- true 2>/dev/null
  expect_eq "mpsfw-run --bogus: the exit code" "$?" 2
  "$RUNNER" --mps-atp 300 -- true 2>/dev/null
  expect_eq "mpsfw-run --mps-atp 300: the exit code" "$?" 1
}

# A program killed by a signal: 128 + 9, and the daemons and folders go.
case_mpsfw_run_killed() {
  make_gpus 1
  local PROBE=$RUNNER
  run_wrapped 2 -- --mps on -- sh -c 'sleep 0.5; kill -9 $$'
  expect_eq "the exit code" "$RC" 137
  expect_clean_after 10
}

# The node's first rank's wrapper killed while the programs run: its watchdog
# stops the daemons, the other rank's wrapper removes the roll-call folder.
case_mpsfw_run_leader_killed() {
  make_gpus 1
  local PROBE=$RUNNER
  cat >"$W/kill_leader.sh" <<'SH'
#!/bin/sh
[ "${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-}}" = 0 ] && kill -9 "$PPID"
sleep 1
SH
  chmod +x "$W/kill_leader.sh"
  run_wrapped 2 -- --mps on -- "$W/kill_leader.sh"
  expect_rc_nonzero
  expect_clean_after 10
}

# The same while the other rank's wrapper has not even started (a loaded node
# starts it late; here it sleeps 3 s first): the launcher ends that rank
# before it arrives and then exits, and the folder goes at once instead of
# after the wait for ranks that never arrive (mps.timeout_seconds).
case_mpsfw_run_leader_killed_first() {
  cat >"$W/late.sh" <<'SH'
#!/bin/sh
[ "${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-}}" = 0 ] || sleep 3
exec "$@"
SH
  chmod +x "$W/late.sh"
  WRAP=("$W/late.sh")
  case_mpsfw_run_leader_killed
}

# The node's first rank's program SIGKILLed while the other rank's waits for
# it forever (as ranks blocked in MPI on a dead one do): the first rank's
# wrapper does not wait for that rank, it reports it still running and exits
# 137, so the launcher ends the job at once; nothing left.
case_mpsfw_run_leader_program_killed() {
  make_gpus 1
  local PROBE=$RUNNER
  cat >"$W/leader_dies.sh" <<'SH'
#!/bin/sh
[ "${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-}}" = 0 ] && { sleep 0.5; kill -9 $$; }
exec sleep 100
SH
  chmod +x "$W/leader_dies.sh"
  local started=$SECONDS
  run_wrapped 2 -- --mps on -- "$W/leader_dies.sh"
  expect_eq "the exit code" "$RC" 137
  [ $((SECONDS - started)) -lt 30 ] || problem "the job took $((SECONDS - started)) s: the first rank waited for a rank that never ends"
  expect_text "$ERR" "local rank 1 was still running when the first rank's program had failed"
  # The other rank's wrapper, ended by the launcher, finds the folder gone: no error.
  expect_no_text "$ERR" "mpsfw-run: error"
  expect_clean_after 10
}

# Two jobs of two ranks at once on one node: a session and a roll call each,
# both verified 2 of 2, nothing left.
case_mpsfw_run_two_jobs() {
  make_gpus 1
  make_client_program
  local PROBE=$RUNNER
  local -a pre=()
  [ -n "$PREFLAGS" ] && read -r -a pre <<<"$PREFLAGS"
  local j
  for j in 1 2; do
    timeout -k 5 "$RUN_TIMEOUT" "$MPIEXEC" "$NP_FLAG" 2 "${pre[@]}" "$RUNNER" --dir "$ROOT" \
      --mps on -- "$W/client.sh" 0 >"$W/job$j.out" 2>"$W/job$j.err" &
  done
  wait
  for j in 1 2; do
    expect_text "$W/job$j.err" "verified clients 2 of 2"
  done
  expect_eq "daemons spawned" "$(spawned_pids | grep -c .)" 2
  expect_clean_after 10
}

# shellcheck source=../support/show_file.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/show_file.sh"
show() { show_file "$1" "$2" 60; }

# Whatever a case left running (a leaked or kept daemon, a watchdog) goes now.
cleanup_case() {
  local p
  for p in $(spawned_pids) $(probe_pids); do
    alive "$p" && kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$OMPI_SESSIONS"  # made by setup_case
  return 0
}

if [ ${#selected[@]} -eq 0 ]; then
  for c in "${CASES[@]}"; do
    [ -z "${C_OFF[$c]}" ] || [ "$ALL" = 1 ] && selected+=("$c")
  done
fi
passed=0
failed=0
skipped=0
for c in "${selected[@]}"; do
  if ! declare -F "case_$c" >/dev/null; then
    echo "$(basename "$0"): unknown case '$c' (see --list)" >&2
    exit 2
  fi
done
# What mpiexec's ranks are told before MPI_Init (the project's CI uses Open MPI).
LAUNCHER=-
launcher_env=$(env "$MPIEXEC" "$NP_FLAG" 1 env 2>/dev/null </dev/null)
if grep -q '^OMPI_COMM_WORLD_LOCAL_RANK=' <<<"$launcher_env"; then
  LAUNCHER="Open MPI"
elif grep -q '^MPI_LOCALRANKID=' <<<"$launcher_env"; then
  LAUNCHER="MPICH/Hydra"
elif grep -q '^PMI_LOCAL_RANK=' <<<"$launcher_env"; then
  LAUNCHER="PMI"
fi
for c in "${selected[@]}"; do
  EXP_LAUNCHER=${LAUNCHER// /_}
  EXP_BRING_UP="before MPI_Init (local rank from $LAUNCHER)"
  setup_case "$c"
  start=$SECONDS
  "case_$c"
  cleanup_case
  if [ -n "$SKIPPED" ] && [ ${#problems[@]} -eq 0 ]; then
    echo "SKIP  $c: $SKIPPED"
    skipped=$((skipped + 1))
    [ "$KEEP" = 1 ] || rm -rf "$W"
  elif [ ${#problems[@]} -eq 0 ]; then
    echo "PASS  $c ($((SECONDS - start)) s)"
    passed=$((passed + 1))
    [ "$KEEP" = 1 ] || rm -rf "$W"
  else
    echo "FAIL  $c ($((SECONDS - start)) s)"
    for p in "${problems[@]}"; do echo "    - $p"; done
    echo "    last command: $LAST_CMD"
    show "stdout of the last run" "$OUT"
    show "stderr of the last run" "$ERR"
    show "record of the double ($REC)" "$REC"
    echo "    (files kept in $W)"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
[ "$passed" -gt 0 ] || [ "$skipped" -eq 0 ] || exit 77
