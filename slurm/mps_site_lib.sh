# Shared by the site scripts (mps_prolog.sh, mps_task_prolog.sh,
# mps_epilog.sh): where mpsctl is, where sessions live, and whether the job
# asked for node-level MPS. Sourced, never run.
#
# Slurm runs these scripts with no search path: mpsctl is found in the prefix
# they are installed in (PREFIX/share/mpsfw/slurm -> PREFIX/bin/mpsfw-mpsctl),
# in the source tree's build (slurm/ -> build/default/apps/mpsctl), or where
# MPSFW_MPSCTL says (set it in the script's first lines if neither holds).
mps_site_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mps_site_mpsctl() {
  local c
  for c in "${MPSFW_MPSCTL:-}" "$mps_site_here/../../../bin/mpsfw-mpsctl" \
           "$mps_site_here/../build/default/apps/mpsctl"; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  return 1
}
# Sessions go under MPSFW_MPS_ROOT (default /tmp), named by the job id.
MPS_SITE_ROOT=${MPSFW_MPS_ROOT:-/tmp}
# A job asks with gres/mps (--gres=mps:N: Slurm then sets
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE in the prolog's environment) or with the
# node feature mpsfw_mps (--constraint=mpsfw_mps). Other jobs get nothing.
mps_site_job_asks() {
  [ -n "${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" ] ||
    [[ ",${SLURM_JOB_CONSTRAINTS:-}," == *,mpsfw_mps,* ]]
}
# A line for the site's log (syslog when there is one) and stderr.
mps_site_log() {
  local line="mpsfw MPS ($(basename "$0")): job ${SLURM_JOB_ID:-?}: $*"
  command -v logger > /dev/null 2>&1 && logger -t mpsfw-mps -- "$line" 2> /dev/null
  echo "$line" >&2
}
