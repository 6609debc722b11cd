#!/usr/bin/env bash
# Several GPUs of one node, on a GPU machine with 2+ GPUs, in parts that each
# fit one device command (10 minutes); each builds what it needs (a no-op when
# the machine is still warm from the last part):
#   check   = tests ranks teardown:
#   tests   the halo tests at 2-8 ranks over the GPUs (device to device
#           between GPUs vs MPI, bit for bit)
#   ranks   heat at RANKS (16) ranks over the GPUs == 1 rank bit for bit
#           (auto, same-gpu, mpi; MPS on and off); one daemon per GPU, nothing
#           left
#   teardown  nothing left after a killed rank and after a GPU fault on one GPU
#   weak    heat SIZE³ per GPU, 8 (and 1) ranks per GPU with MPS: G GPUs
#           against G x one GPU, halos between GPUs device to device
#           (run.halo=auto) vs MPI (same-gpu: MPI between GPUs only; mpi:
#           everywhere); medians of REPEATS
#   md      MD in.lj, 8 ranks over the GPUs under MPS: ghosts device to device
#           between GPUs (auto) == same-gpu == mpi bit for bit (checkpoints
#           after 300 steps); then 1M atoms per GPU (weak), 8 ranks per GPU,
#           auto / same-gpu / mpi against G x one GPU, medians of REPEATS
#   numa    heat SIZE³ per GPU, 8 ranks per GPU, MPI halos staged through host
#           memory, ranks pinned near their GPU (mps.cpu_placement = near_gpu)
#           against left free (launcher); where each rank ran against its
#           GPU's NUMA CPUs; medians of REPEATS (docs/multi-gpu.md)
#   strong  scripts/sweep.py --gpus N for N in GPU_COUNTS (default: 1 and G;
#           MPS, RANKS_PER_GPU ranks per GPU, strong): heat 256³ and 512³, md
#           in.lj at ~1M atoms (md4M: ~4M, in WORKLOADS only)
# Logs and sweep folders go to $OUT/multi-gpu-<parts>.tgz.
#   scripts/device_multi_gpu_check.sh PART...     e.g. check weak
# Environment: SIZE (weak: 256), REPEATS (3), STEPS (weak: 2000), GPUS (default:
# all of nvidia-smi -L), WORKLOADS (strong: "heat256 heat512 md1M"), GPU_COUNTS
# (strong: "1 G"), RANKS_PER_GPU (strong: 1,8,16), RANKS (ranks: 16).
set -uo pipefail
source "$(dirname "$0")/env.sh"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || { echo "parts: check, weak, md, numa, strong" >&2; exit 64; }
size=${SIZE:-256}
final="${OUT:-$MPSFW_ROOT/device-logs}"
tag="multi-gpu-$(IFS=-; echo "${parts[*]}")"
out="$final/$tag"
mkdir -p "$out"
trap 'tar czf "$out.tgz" -C "$final" --exclude="*.h5" "$tag" && rm -rf "$out"' EXIT
build="$MPSFW_ROOT/build/device-multi"
export TMPDIR=/tmp/mpsfw-multi-gpu OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$TMPDIR"
gpus=${GPUS:-$(nvidia-smi -L | grep -c '^GPU ')}
repeats=${REPEATS:-3}
nvidia-smi -L > "$out/gpus.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
echo "GPUs: $gpus ($(head -1 "$out/gpus.txt" | cut -d'(' -f1)); links: $(sed -n 2p "$out/topo.txt" | awk '{print $3}')"

cmake -S "$MPSFW_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DMPSFW_ENABLE_CUDA=ON -DMPSFW_ENABLE_KOKKOS=OFF \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j 16 --target solver mkinput mpsctl test_halo_exchange \
  test_field_halos_cuda test_heat_transports test_md_backends mps_fault_probe > "$out/build.log" 2>&1 ||
  { tail -60 "$out/build.log"; exit 1; }
echo "build: ok"
solver="$build/apps/solver" mkinput="$build/apps/mkinput"
input="$MPSFW_ROOT/inputs/heat_default.h5"
cd "$TMPDIR" || exit 1
u0() { "$mkinput" --describe "$1" | grep '/heat/u0'; }
left() { echo "daemons $(pgrep -fc nvidia-cuda-mps-control || true), servers $(pgrep -fc nvidia-cuda-mps-server || true), session folders $(find "$TMPDIR" /tmp -maxdepth 1 -name 'mpsfw-mps-*' 2>/dev/null | wc -l)"; }
# A report's figure: json KEY of FILE.
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r$2)" "$1"; }

check() { tests; ranks; teardown; }

tests() {
  echo "== halo tests over $gpus GPUs, no MPS (GPU order by a host barrier)"
  for np in 2 4 8; do
    for t in test_halo_exchange test_field_halos_cuda test_heat_transports; do
      timeout 120 mpirun -np "$np" "$build/tests/$t" > "$out/${t}_np$np.log" 2>&1
      echo "  $t np=$np: exit $? ($(grep -c '\[       OK' "$out/${t}_np$np.log") ok," \
        "$(grep -c 'SKIPPED \]' "$out/${t}_np$np.log") skip lines)"
      grep -E "ipc vs mpi|FAILED  |Failure" "$out/${t}_np$np.log" | head -3
    done
  done
}

ranks() {
  local np=${RANKS:-16}
  echo "== heat 192³, 300 steps: 1 rank on one GPU vs $np ranks over $gpus GPUs"
  local grid=(--set heat.nx=192 --set heat.ny=192 --set heat.nz=192 --set run.steps=300 --backend cuda)
  CUDA_VISIBLE_DEVICES=0 mpirun -np 1 "$solver" "$input" "${grid[@]}" --mps off \
    --set run.checkpoint_file=one.h5 > "$out/one.log" 2>&1
  echo "  1 rank: exit $?"
  for how in "auto on" "same-gpu on" "mpi on" "auto off"; do
    set -- $how
    mpirun -np "$np" "$solver" "$input" "${grid[@]}" --halo "$1" --mps "$2" \
      --set run.checkpoint_file="n$np-$1-$2.h5" --report "n$np-$1-$2.json" > "$out/n$np-$1-$2.log" 2>&1
    echo "  $np ranks, --halo $1 --mps $2: exit $?; /heat/u0 $([ "$(u0 one.h5)" = "$(u0 "n$np-$1-$2.h5")" ] &&
      echo identical || echo DIFFERS) to 1 rank"
    echo "    halos: $(field "n$np-$1-$2.json" "['halo_path']")"
    echo "    MPS: $(field "n$np-$1-$2.json" "['mps']"); daemons $(field "n$np-$1-$2.json" "['mps_details']['daemon_pids']")"
    echo "    left after the run: $(left)"
  done
  grep -E "cuda:|GPU" "$out/n$np-auto-on.log" | head -3
}

teardown() {
  echo "== a rank on the second GPU killed (SIGKILL) under MPS, 16 ranks"
  mpirun -np 16 "$solver" "$input" --backend cuda --mps on --set heat.nx=256 --set heat.ny=256 \
    --set heat.nz=256 --set run.steps=100000000 > "$out/kill.log" 2>&1 &
  local job=$!
  sleep 10
  echo "  while running: $(left)"
  ps -eo pid,args | grep "[a]pps/solver" | awk 'NR==13 {print $1}' | xargs -r kill -9
  timeout 60 tail --pid="$job" -f /dev/null
  wait "$job"
  echo "  job exit $?"
  sleep 3
  echo "  left after the kill: $(left)"

  echo "== a GPU fault on rank 1 (GPU 0) of 4 ranks over $gpus GPUs, MPS on"
  timeout 120 mpirun -np 4 "$build/tests/mps/mps_fault_probe" --fault-rank 1 --after 2 --seconds 30 \
    --keep-log "$out/fault_server.log" > "$out/fault.log" 2>&1
  echo "  exit $?"
  grep -E "^mpsfw: error|^probe:" "$out/fault.log" | cut -c1-700
  sleep 3
  echo "  left after the fault: $(left)"
}

# One heat run's cell-updates/s: RANKS GRID(x y z) HALO [extra args]
rate() {
  local ranks=$1 nx=$2 ny=$3 nz=$4 halo=$5 name=$6
  shift 6
  mpirun -np "$ranks" "$solver" "$input" --backend cuda --mps on --halo "$halo" \
    --set heat.nx="$nx" --set heat.ny="$ny" --set heat.nz="$nz" --set run.steps="${STEPS:-2000}" \
    --set run.diag_every=0 "$@" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
    { echo "  $name FAILED: $(tail -2 "$out/$name.log")" >&2; echo nan; return; }
  field "$out/$name.json" "['updates_per_second']"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# The weak-scaling line of one case from the repeats in the arrays one,
# all_auto, all_same, all_mpi: LABEL UNIT (G GPUs against G x one GPU).
weak_summary() {
  python3 - "$1" "$2" "$gpus" "$(median "${one[@]}")" "$(median "${all_auto[@]}")" \
    "$(median "${all_same[@]}")" "$(median "${all_mpi[@]}")" "${one[*]}" "${all_auto[*]}" \
    "${all_same[*]}" "${all_mpi[*]}" <<'PY'
import sys
label, unit, g = sys.argv[1], sys.argv[2], int(sys.argv[3])
one, auto, same, mpi = (float(v) for v in sys.argv[4:8])
print("  %s: 1 GPU %.3e %s; %d GPUs: peer %.3e (%.3f of %d x 1 GPU),"
      " MPI between GPUs %.3e (%.3f), MPI everywhere %.3e (%.3f)"
      % (label, one, unit, g, auto, auto / (g * one), g, same, same / (g * one), mpi, mpi / (g * one)))
print("    repeats: 1 GPU [%s]; peer [%s]; same-gpu [%s]; mpi [%s]" % tuple(sys.argv[8:12]))
PY
}

weak() {
  echo "== weak over GPUs: heat ${size}³ per GPU, MPS, ${STEPS:-2000} steps, median of $repeats"
  local rpg one all_auto all_same all_mpi grid py
  for rpg in 1 8; do
    one=() all_auto=() all_same=() all_mpi=()
    for r in $(seq "$repeats"); do
      one+=("$(CUDA_VISIBLE_DEVICES=0 rate "$rpg" "$size" "$size" "$size" auto "g1-rpg$rpg-r$r")")
    done
    # The G-GPU run stacks G copies of the one-GPU problem along y, each rank's block as before.
    grid=$(field "$out/g1-rpg$rpg-r1.json" "['rank_grid']" | tr -d '[],')
    set -- $grid
    py=$(($2 * gpus))
    for r in $(seq "$repeats"); do
      for halo in auto same-gpu mpi; do
        v=$(rate $((rpg * gpus)) "$size" $((size * gpus)) "$size" "$halo" "g$gpus-rpg$rpg-$halo-r$r" \
          --set run.px="$1" --set run.py="$py" --set run.pz="$3")
        case $halo in auto) all_auto+=("$v") ;; same-gpu) all_same+=("$v") ;; mpi) all_mpi+=("$v") ;; esac
      done
    done
    weak_summary "$rpg rank(s) per GPU" cell-updates/s
    grep -h "halo" "$out/g$gpus-rpg$rpg-auto-r1.log" | head -2 | sed 's/^/    /'
  done
}

# One MD run's atom-steps/s: RANKS CELLS_Y HALO NAME [extra args] (64 x CELLS_Y x 64 FCC cells).
md_rate() {
  local ranks=$1 cy=$2 halo=$3 name=$4
  shift 4
  mpirun -np "$ranks" "$solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend cuda --mps on --halo "$halo" \
    --set md.cells_x=64 --set md.cells_y="$cy" --set md.cells_z=64 --set run.steps="${MD_STEPS:-500}" \
    --set run.diag_every=0 "$@" --report "$out/$name.json" > "$out/$name.log" 2>&1 ||
    { echo "  $name FAILED: $(tail -2 "$out/$name.log")" >&2; echo nan; return; }
  field "$out/$name.json" "['updates_per_second']"
}

md() {
  echo "== MD in.lj, 8 ranks over $gpus GPUs, MPS, 300 steps: ghosts by path, bit for bit"
  local halo
  for np in 2 4; do
    timeout 120 mpirun -np "$np" "$build/tests/test_md_backends" > "$out/test_md_backends_np$np.log" 2>&1
    echo "  test_md_backends np=$np: exit $? ($(grep -c '\[       OK' "$out/test_md_backends_np$np.log") ok)"
  done
  for halo in mpi same-gpu auto; do
    timeout 150 mpirun -np 8 "$solver" "$MPSFW_ROOT/inputs/md_lj.h5" --backend cuda --mps on \
      --set run.steps=300 --set run.diag_every=100 --halo "$halo" \
      --set run.checkpoint_file="md-$halo.h5" > "$out/md-$halo.log" 2>&1
    echo "  --halo $halo: exit $?; $(grep -E 'halo messages' "$out/md-$halo.log" | sed 's/^ *//')"
  done
  python3 "$MPSFW_ROOT/scripts/compare_md_checkpoints.py" md-mpi.h5 md-same-gpu.h5 md-auto.h5 |
    sed 's/^/  /'
  echo "== MD weak over GPUs: 1M atoms (64³ FCC cells) per GPU, 8 ranks per GPU, MPS, median of $repeats"
  local one=() all_auto=() all_same=() all_mpi=() r v
  for r in $(seq "$repeats"); do
    one+=("$(CUDA_VISIBLE_DEVICES=0 md_rate 8 64 auto "md-g1-r$r")")
    for halo in auto same-gpu mpi; do
      v=$(md_rate $((8 * gpus)) $((64 * gpus)) "$halo" "md-g$gpus-$halo-r$r")
      case $halo in auto) all_auto+=("$v") ;; same-gpu) all_same+=("$v") ;; mpi) all_mpi+=("$v") ;; esac
    done
  done
  weak_summary "8 ranks per GPU" atom-steps/s
  grep -h "halo messages\|rank grid\|GPU" "$out/md-g$gpus-auto-r1.log" | head -4 | sed 's/^/    /'
}

# Each rank's allowed CPUs (from /proc, read by a sampler while the run went)
# against its GPU's NUMA CPUs (sysfs local_cpulist): REPORT CPUS_FILE.
placement_check() {
  nvidia-smi --query-gpu=uuid,pci.bus_id --format=csv,noheader > "$out/gpu-buses.txt"
  python3 - "$1" "$2" "$out/gpu-buses.txt" <<'PY'
import json, re, sys
report, cpus_file, buses = sys.argv[1:4]
def cpu_set(text):
    out = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out
near = {}
for line in open(buses):
    uuid, bus = (f.strip() for f in line.split(","))
    path = "/sys/bus/pci/devices/%s/local_cpulist" % bus[-12:].lower()
    try:
        near[uuid] = cpu_set(open(path).read())
    except OSError:
        near[uuid] = set()
allowed = {}
for line in open(cpus_file):
    pid, _, cpus = line.partition(" ")
    allowed[int(pid)] = cpu_set(cpus)
r = json.load(open(report))
details = r.get("mps_details", {})
print("  cpu_placement (rank 0): %s" % details.get("cpu_placement"))
on_node = 0
rows = details.get("per_rank", [])
for row in rows:
    rank, pid, gpu = row["local_rank"], row["pid"], row["gpu"]
    mine, local = allowed.get(pid, set()), near.get(gpu, set())
    inside = bool(mine) and bool(local) and mine <= local
    on_node += inside
    print("    rank %d: GPU %s, %d CPUs allowed, %s its GPU's %d NUMA CPUs"
          % (rank, gpu[:12], len(mine), "within" if inside else "NOT within", len(local)))
print("  %d of %d ranks on their GPU's NUMA CPUs" % (on_node, len(rows)))
PY
}

# Every solver process's allowed CPUs into FILE, read each second while it
# runs; the last reading stays: an early one can catch a rank still starting,
# bound to one CPU at a time while hwloc reads each (docs/multi-gpu.md).
watch_cpus() {
  local p cpus round
  while sleep 1; do
    round=""
    for p in $(pgrep -f "$solver"); do
      cpus=$(awk '/Cpus_allowed_list/ {print $2}' "/proc/$p/status" 2>/dev/null)
      [ -n "$cpus" ] && round+="$p $cpus"$'\n'
    done
    [ -n "$round" ] && printf '%s' "$round" > "$1"
  done
}

# NUMA placement: heat SIZE³ per GPU, 8 ranks per GPU over the GPUs under MPS,
# halos through MPI staged through host memory (where host memory's locality
# matters), every rank left free by mpirun: pinned near its GPU
# (mps.cpu_placement = near_gpu) against left where it is (launcher), taking
# turns, medians of REPEATS; the first run of each arm shows where every rank
# ran. A machine whose GPUs share one NUMA node pins nothing (near_gpu = all).
numa() {
  echo "== NUMA placement: heat ${size}³ per GPU, 8 ranks per GPU over $gpus GPUs, MPI halos, MPS, median of $repeats"
  lscpu | grep -i numa | sed 's/^/  /'
  local placed=() free=() r arm v sampler
  export OMPI_MCA_hwloc_base_binding_policy=none
  for r in $(seq "$repeats"); do
    for arm in near_gpu launcher; do
      [ "$r" = 1 ] && { watch_cpus "$out/numa-$arm-cpus.txt" & sampler=$!; }
      v=$(rate $((8 * gpus)) "$size" $((size * gpus)) "$size" mpi "numa-$arm-r$r" \
        --set mps.cpu_placement="$arm")
      [ "$r" = 1 ] && kill "$sampler"
      case $arm in near_gpu) placed+=("$v") ;; launcher) free+=("$v") ;; esac
    done
  done
  unset OMPI_MCA_hwloc_base_binding_policy
  for arm in near_gpu launcher; do
    echo "  mps.cpu_placement = $arm:"
    placement_check "$out/numa-$arm-r1.json" "$out/numa-$arm-cpus.txt"
  done
  python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("  near_gpu %.3e, launcher %.3e cell-updates/s: near / launcher %.3f" % (a, b, a / b))' \
    "$(median "${placed[@]}")" "$(median "${free[@]}")"
  echo "    repeats: near_gpu [${placed[*]}]; launcher [${free[*]}]"
}

# One strong-scaling sweep on each of GPU_COUNTS GPUs (1 and all): NAME INPUT --set...
sweep_pair() {
  local name=$1 in=$2 g
  shift 2
  for g in ${GPU_COUNTS:-1 $gpus}; do
    timeout 200 python3 "$MPSFW_ROOT/scripts/sweep.py" "$in" --solver "$solver" --scaling strong \
      --modes mps --ranks-per-gpu "${RANKS_PER_GPU:-1,8,16}" --repeats "$repeats" --gpus "$g" \
      --out "$out/$name-g$g" "$@" > "$out/$name-g$g.log" 2>&1
    echo "== $name on $g GPU(s): exit $?"
    sed -n '/^|/p' "$out/$name-g$g/summary.md" 2>/dev/null | head -8
  done
}

strong() {
  local w
  for w in ${WORKLOADS:-heat256 heat512 md1M}; do
    case $w in
      heat256) sweep_pair heat256 "$input" --set heat.nx=256 --set heat.ny=256 --set heat.nz=256 \
        --set run.steps=500 --set run.diag_every=0 ;;
      heat512) sweep_pair heat512 "$input" --set heat.nx=512 --set heat.ny=512 --set heat.nz=512 \
        --set run.steps=100 --set run.diag_every=0 ;;
      md1M) sweep_pair md1M "$MPSFW_ROOT/inputs/md_lj.h5" --set md.cells_x=64 --set md.cells_y=64 \
        --set md.cells_z=64 --set run.steps=1000 --set run.diag_every=0 ;;
      md4M) sweep_pair md4M "$MPSFW_ROOT/inputs/md_lj.h5" --set md.cells_x=100 --set md.cells_y=100 \
        --set md.cells_z=100 --set run.steps=500 --set run.diag_every=0 ;;
      *) echo "WORKLOADS: no workload '$w' (heat256, heat512, md1M, md4M)" >&2 ;;
    esac
  done
}

for part in "${parts[@]}"; do "$part"; done
