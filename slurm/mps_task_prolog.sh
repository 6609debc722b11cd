#!/bin/bash
# Slurm TaskProlog (slurm.conf: TaskProlog=PREFIX/share/mpsfw/slurm/mps_task_prolog.sh;
# runs as the job's user before each task): the export lines that put the
# task on the job's node-level MPS (mps_prolog.sh), which Slurm adds to the
# task's environment. Prints nothing for a job without a session here.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/mps_site_lib.sh"
mpsctl=$(mps_site_mpsctl) || exit 0
"$mpsctl" env --job "${SLURM_JOB_ID:?}" --dir "$MPS_SITE_ROOT" 2> /dev/null
exit 0
