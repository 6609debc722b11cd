# Shared by the Slurm tests (sourced with their arguments REPO BUILD_DIR
# WORKDIR PYTHON): repo, build, work (made fresh, absolute), python, cluster
# (the cluster's folder), the pass/fail counters, and cluster_up [NODES],
# which starts tests/slurm/cluster.sh and stops it when the test exits.
set -uo pipefail
repo=$1 build=$2 work=$3 python=$4
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
cluster=$work/cluster
failures=0 passes=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; passes=$((passes + 1)); }
cluster_up() {
  "$repo/tests/slurm/cluster.sh" up "$cluster" "${1:-1}" || { echo "0 passed, 1 failed"; exit 1; }
  trap '"$repo/tests/slurm/cluster.sh" down "$cluster" >/dev/null' EXIT
}
