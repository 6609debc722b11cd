#!/bin/bash
# Optional node-level MPS for sites that prefer it: a Slurm Prolog (or the
# top of a job script) starts one daemon per GPU with mpsctl; solvers of the
# job reuse it (MPSFW_MPS_SESSION) and never stop it; mps_epilog.sh does.
#   Prolog=/path/to/mpsfw/slurm/mps_prolog.sh   (slurm.conf; runs as root on each node)
# In a job script instead:  eval "$(slurm/mps_prolog.sh)"
set -euo pipefail
MPSCTL=${MPSCTL:-$(dirname "$0")/../build/default/apps/mpsctl}
RANKS_PER_GPU=${MPSFW_RANKS_PER_GPU:-4}   # sets the daemon's default cap
"$MPSCTL" start --job "${SLURM_JOB_ID:-mpsctl}" --ranks-per-gpu "$RANKS_PER_GPU" \
  --dir "${MPSFW_MPS_ROOT:-/tmp}"
