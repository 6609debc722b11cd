#!/bin/bash
# Stops what mps_prolog.sh started (Slurm Epilog, or the end of a job script).
set -euo pipefail
MPSCTL=${MPSCTL:-$(dirname "$0")/../build/default/apps/mpsctl}
"$MPSCTL" stop --job "${SLURM_JOB_ID:-mpsctl}" --dir "${MPSFW_MPS_ROOT:-/tmp}"
