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
