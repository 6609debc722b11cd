#!/usr/bin/env bash
# Runs an MPI program on two nodes simulated on this machine: half of N ranks
# on "node1", half on "node2" (tests/support/fake-ssh: a UTS namespace per node).
#   on_two_nodes.sh WORKDIR MPIEXEC NP_FLAG N PROGRAM [ARGS...]
# Exits 77 (ctest's skip code) where UTS namespaces cannot be made (not root,
# no unshare), saying so.
set -euo pipefail
work=$1 mpiexec=$2 np_flag=$3 np=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
if ! unshare --uts true 2>/dev/null; then
  echo "SKIP: no UTS namespaces here (unshare --uts needs root): nodes cannot be simulated"
  exit 77
fi
mkdir -p "$work"
printf 'node1 slots=%d\nnode2 slots=%d\n' $((np / 2)) $((np - np / 2)) >"$work/hosts"
exec "$mpiexec" "$np_flag" "$np" --hostfile "$work/hosts" --mca plm_rsh_agent "$here/fake-ssh" "$@"
