#!/usr/bin/env bash
# How long a stop takes once the cores get crowded, a base tree against this
# one in one call on the GPU machine: heat SIZE³ on RANKS ranks under MPS; 5 s
# into the loop LOAD busy processes start on the node's cores (another job
# arriving); 1 s later one rank gets SIGUSR1; the seconds until the job has
# ended (every rank stopped at one step, wrote its checkpoint and the report)
# are printed per repeat, the trees taking turns.
#   bench/stop_delay.sh OUT "BASE.tar [OTHER.tar ...]" [SIZE=64] [RANKS=8]
# Environment: REPEATS (3), LOAD (3 x the cores), BUILD_ROOT (a temporary folder).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?output folder}
tars=${2:?base tarballs}
size=${3:-64}
ranks=${4:-8}
repeats=${REPEATS:-3}
load=${LOAD:-$((3 * $(nproc)))}
source "$root/bench/bench_lib.sh"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
mpirun=${MPIRUN:-mpirun}
work=${BUILD_ROOT:-$(mktemp -d)}
mkdir -p "$out"
build_trees "$tars" "$work" "$out"
input=$root/inputs/heat_default.h5
busy=()
stop_load() {
  [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null
  wait "${busy[@]}" 2>/dev/null
  busy=()
}
trap stop_load EXIT
echo "cores: $(nproc); heat ${size}³ on $ranks ranks, MPS on; $load busy processes from 5 s; SIGUSR1 to one rank 1 s later"
for r in $(seq "$repeats"); do
  for side in "${sides[@]}"; do
    name=$side-r$r
    solver=$work/build-$side/apps/solver
    "$mpirun" -np "$ranks" --bind-to none "$solver" "$input" --backend cuda --mps on \
      --set heat.nx="$size" --set heat.ny="$size" --set heat.nz="$size" --set run.steps=1000000000 \
      --set run.diag_every=0 --set run.checkpoint_file="$out/$name.h5" > "$out/$name.log" 2>&1 &
    job=$!
    for _ in $(seq 1 300); do grep -q '^mpsfw: heat ' "$out/$name.log" && break; sleep 0.1; done
    sleep 5
    for _ in $(seq "$load"); do
      (while :; do :; done) &
      busy+=($!)
    done
    sleep 1
    start=$(date +%s.%N)
    kill -USR1 "$(pgrep -P "$job" -f "$solver" | tail -1)"
    rc=0
    timeout 120 tail --pid="$job" -f /dev/null
    wait "$job" || rc=$?
    end=$(date +%s.%N)
    stop_load
    printf '%s: exit %s, ended %.2f s after the signal; %s\n' "$name" "$rc" \
      "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$(grep -m1 '^mpsfw: stopped by' "$out/$name.log")"
  done
done
