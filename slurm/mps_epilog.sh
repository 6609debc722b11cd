#!/bin/bash
# Slurm Epilog (slurm.conf: Epilog=PREFIX/share/mpsfw/slurm/mps_epilog.sh; runs
# as root on each node when a job ends): stops what mps_prolog.sh started for
# the job and removes its session folder, also when the job's processes still
# hold the servers (they are gone or going). Nothing for other jobs; never
# fails the node (a problem is logged).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mps_site_lib.sh"
mpsctl=$(mps_site_mpsctl) || exit 0
[ -n "$("$mpsctl" env --job "${SLURM_JOB_ID:?}" --dir "$MPS_SITE_ROOT" 2> /dev/null)" ] || exit 0
if ! out=$("$mpsctl" stop --force --job "$SLURM_JOB_ID" --dir "$MPS_SITE_ROOT" 2>&1); then
  mps_site_log "stop failed: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi
exit 0
