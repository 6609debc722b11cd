#!/usr/bin/env bash
# The job scripts and the MPS session on a two-node Slurm simulated on this
# machine (tests/slurm/cluster.sh up DIR 2: node1 and node2, a UTS namespace
# each):
# 1. slurm/run.sbatch with --nodes=2 --ntasks-per-node=2 --gpus-per-node=1 (the
#    README's multi-node example): it completes, its report lists both nodes,
#    and its field equals a 1-rank run's bit for bit;
# 2. the MPS session per node under srun (the two_nodes cases of
#    tests/mps/run_mps_tests.sh with --slurm-nodes): a leader, folder and daemon
#    per node, local ranks numbered per node, every daemon quit at the end, and
#    one node's rank SIGKILLed: the step ends, both nodes' sessions torn down;
# 3. halos: test_halo_exchange's RealNodes case on 2 x 2 ranks: faces within a
#    node through the node's shared memory (standing in for CUDA IPC), faces
#    across nodes through MPI, every halo right.
#   tests/slurm/test_slurm_two_nodes.sh REPO BUILD_DIR WORKDIR PYTHON
# shellcheck source=slurm_test_lib.sh
source "$(dirname "$0")/slurm_test_lib.sh" "$@"

if ! unshare --uts true 2>/dev/null; then
  echo "SKIP: no UTS namespaces here (unshare --uts needs root): nodes cannot be simulated"
  exit 77
fi
cluster_up 2
export SLURM_CONF=$cluster/slurm.conf MPSFW_ROOT=$repo MPSFW_BUILD=$build
cd "$work" || exit 1

# Open MPI 4.1.4 (Debian 12's) started by srun on two nodes over TCP: now and
# then a rank dies of SIGSEGV inside MPI_Init, its TCP BTL calling a null
# handler; a plain MPI program does too (tests/slurm/README.md). Not mpsfw's:
# a part whose failure shows that crash in LOG runs once more, and says so.
openmpi_start_crash() {
  grep -qE 'srun: error: node[0-9]+: tasks? [0-9-]+: Segmentation fault' "$@" 2>/dev/null &&
    grep -qE 'Failing at address: \(nil\)|mca_btl_tcp' "$@" 2>/dev/null
}
# part NAME LOG FUNCTION: FUNCTION's checks (pass/fail), a second try as above.
part() {
  local name=$1 log=$2 fn=$3 first=$work/$3.try1 p=$passes f=$failures
  "$fn" 1 >"$first"
  if [ "$failures" -gt "$f" ] && openmpi_start_crash "$log"; then
    echo "RETRY: $name: a rank died of SIGSEGV as in Open MPI's TCP start-up crash; the first try said:"
    sed 's/^/    /' "$first"
    passes=$p failures=$f
    "$fn" 2
  else
    cat "$first"
  fi
}

# 1. run.sbatch on two nodes, two ranks each, against one rank.
heat=("$repo/inputs/heat_default.h5" --backend host --set run.steps=30)
timeout 120 srun --mpi=pmix -n 1 "$build/apps/solver" "${heat[@]}" --output one.h5 \
  > one.out 2>&1 || fail "the 1-rank run failed: $(tail -3 one.out)"
run_sbatch_two_nodes() {
  rm -f two.h5 run.out
  if MPSFW_OUTPUT=two.h5 timeout 180 sbatch --wait --chdir="$work" --nodes=2 --ntasks-per-node=2 \
      --gpus-per-node=1 --output="$work/run.out" "$repo/slurm/run.sbatch" "${heat[@]}" >/dev/null; then
    job=$(sed -n 's/^report: run-\([0-9]*\)\.json$/\1/p' run.out)
    if "$python" -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["ranks"] == 4 and sorted(r["hosts"]) == ["node1", "node2"], (r["ranks"], r["hosts"])' \
        "run-$job.json"; then
      pass "run.sbatch --nodes=2: 4 ranks on node1 and node2 (run-$job.json)"
    else
      fail "run.sbatch --nodes=2: the report does not list 4 ranks on node1 and node2"
    fi
    if h5diff one.h5 two.h5 /u/00000030 /u/00000030 >/dev/null 2>&1; then
      pass "run.sbatch --nodes=2: the step-30 field equals the 1-rank run's bit for bit"
    else
      fail "run.sbatch --nodes=2: the step-30 field differs from the 1-rank run's"
    fi
  else
    fail "run.sbatch --nodes=2: job failed: $(tail -5 run.out 2>/dev/null)"
  fi
}
part "run.sbatch --nodes=2" run.out run_sbatch_two_nodes

# 2. One MPS session per node (the MPS test double; no GPU here).
probe=$build/tests/mps/mps_session_probe
mps_two_nodes() {
  "$python" "$repo/tests/mps/subreaper.py" bash "$repo/tests/mps/run_mps_tests.sh" \
    --probe "$probe" --python "$python" --mpiexec srun --np-flag -n --preflags --mpi=pmix \
    --slurm-nodes --workdir "$work/mps$1" two_nodes two_nodes_killed > mps.out 2>&1
  for c in two_nodes two_nodes_killed; do
    if grep -q "^PASS  $c " mps.out; then
      pass "MPS under srun on two nodes: $c"
    else
      # The whole report of the case: its problems, the last run's output and
      # stderr (a crashed rank's signal and backtrace are there).
      fail "MPS under srun on two nodes: $c: $(sed -n "/^FAIL  $c /,/files kept in/p" mps.out | head -200)"
    fi
  done
}
if [ -x "$probe" ]; then
  part "MPS under srun on two nodes" mps.out mps_two_nodes
else
  fail "$probe not built: the MPS check needs it"
fi

# 3. Halos within and across nodes.
halos_two_nodes() {
  if timeout 120 srun --mpi=pmix --nodes=2 --ntasks-per-node=2 "$build/tests/test_halo_exchange" \
      --gtest_filter='*RealNodes*' > halo.out 2>&1 &&
     grep -q 'ranks on 2 node(s)' halo.out && grep -q '\[  PASSED  \] 1 test' halo.out; then
    pass "halos on two nodes: direct within a node, MPI across, every halo right"
  else
    fail "halos on two nodes: $(grep -E 'Failure|FAILED|error' halo.out | head -5)"
  fi
}
part "halos on two nodes" halo.out halos_two_nodes

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
