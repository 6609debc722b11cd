#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=PREFIX/share/mpsfw/slurm/mps_prolog.sh; runs
# as root on each node of a job, before it starts): one MPS daemon per GPU of
# the job, for jobs that ask (mps_site_lib.sh: gres/mps or the feature
# mpsfw_mps), in a session folder the job's user owns. The job's tasks get it
# from mps_task_prolog.sh (TaskProlog); mpsfw's solvers and mpsfw-run reuse it
# and never stop it; mps_epilog.sh (Epilog) does.
# It never fails the node: a prolog's non-zero exit drains it, so whatever
# goes wrong (no GPU on the node, no mpsctl) is logged and the job runs
# without node-level MPS (mpsfw's programs then bring their own up).
# In a job script instead (no root, no prolog): eval "$(mpsctl start)".
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mps_site_lib.sh"
mps_site_job_asks || exit 0
mpsctl=$(mps_site_mpsctl) || { mps_site_log "no mpsctl found: no node-level MPS"; exit 0; }
# The daemon's default cap: 100 / ranks per GPU (MPSFW_RANKS_PER_GPU, 4).
if ! out=$("$mpsctl" start --job "${SLURM_JOB_ID:?}" --dir "$MPS_SITE_ROOT" \
             --ranks-per-gpu "${MPSFW_RANKS_PER_GPU:-4}" \
             --owner "${SLURM_JOB_UID:-${SLURM_JOB_USER:?}}" 2>&1); then
  mps_site_log "no node-level MPS: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
  exit 0
fi
mps_site_log "started: $(echo "$out" | grep -v '^export' | tr '\n' ' ')"
exit 0
