#!/usr/bin/env bash
# A Slurm cluster on this machine for the job-script tests (no GPU: a
# character device per node stands in for it so gres/gpu and gres/mps can be
# declared).
#   tests/slurm/cluster.sh up DIR [NODES]  start munged (if needed), slurmctld, slurmd(s)
#   tests/slurm/cluster.sh down DIR        stop what `up` started
# NODES 1 (default): node "localhost", ports 16817/16818. NODES > 1: nodes
# node1..nodeN, each slurmd in a UTS namespace of its own (its host name is its
# node name, so MPI's node communicators and mpsfw's MPS sessions tell the nodes
# apart, as tests/support/fake-ssh does for mpirun), all on 127.0.0.1 with a port
# each (16828, 16829, ...; slurmctld 16827), each with its own spool, log and
# TmpFS (Slurm's PMIx folders would collide in one /tmp). The nodes share this
# machine's CPUs, files and loopback network.
# Idempotent, bounded (30 s), needs root and Debian's slurmctld slurmd
# slurm-client munge. Clients find it with: export SLURM_CONF=DIR/slurm.conf
set -uo pipefail
cmd=${1:?up|down} dir=${2:?folder} nodes=${3:-1}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf
if [ "$cmd" = up ]; then
  case $nodes in [1-9]) ;; *) echo "slurm: NODES must be 1..9, not '$nodes'" >&2; exit 2 ;; esac
  echo "$nodes" >"$dir/nodes"
fi
nodes=$(cat "$dir/nodes" 2>/dev/null || echo 1)
if [ "$nodes" -eq 1 ]; then
  names=(localhost) ctld_port=16817 cluster=mpsfw-test
else
  names=() ctld_port=16827 cluster=mpsfw-test$nodes
  for ((i = 1; i <= nodes; i++)); do names+=("node$i"); done
fi

wait_for() {  # wait_for SECONDS COMMAND...: until it succeeds
  local until=$(($(date +%s) + $1)); shift
  while ! "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$until" ] && return 1
    sleep 0.2
  done
}

stop_pidfile() {  # read the PID first: slurmd removes its file before it exits
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
  rm -f "$f"
}

case $cmd in
  up)
    if [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null &&
       [ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle $nodes" ]; then
      echo "slurm: already up ($conf)"
      exit 0
    fi
    mkdir -p "$dir/state"
    for n in "${names[@]}"; do
      mkdir -p "$dir/spool/$n" "$dir/tmp/$n"
      [ -e "$dir/fakegpu-$n" ] || mknod "$dir/fakegpu-$n" c 1 3
    done
    cat > "$conf" <<CONF
ClusterName=$cluster
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
TmpFS=$dir/tmp/%n
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
SlurmdParameters=config_overrides
ReturnToService=2
GresTypes=gpu,mps
CONF
    : >"$dir/gres.conf"
    for ((i = 0; i < nodes; i++)); do
      n=${names[$i]}
      if [ "$nodes" -eq 1 ]; then
        echo "NodeName=$n CPUs=8 RealMemory=4000 Gres=gpu:1,mps:100 State=UNKNOWN" >>"$conf"
      else
        echo "NodeName=$n NodeHostname=$n NodeAddr=127.0.0.1 Port=$((ctld_port + 1 + i)) CPUs=4" \
          "RealMemory=2000 Gres=gpu:1,mps:100 State=UNKNOWN" >>"$conf"
      fi
      printf 'NodeName=%s Name=gpu File=%s\nNodeName=%s Name=mps Count=100 File=%s\n' \
        "$n" "$dir/fakegpu-$n" "$n" "$dir/fakegpu-$n" >>"$dir/gres.conf"
    done
    echo "PartitionName=debug Nodes=$(IFS=,; echo "${names[*]}") Default=YES MaxTime=INFINITE State=UP" \
      >>"$conf"
    # slurmctld authenticates through munge: a credential must round-trip.
    # (pgrep would also see a zombie munged, so ask munge itself.)
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
      mkdir -p /run/munge && chown munge:munge /run/munge
      runuser -u munge -- /usr/sbin/munged --force || { echo "slurm: munged did not start"; exit 1; }
      touch "$dir/started-munged"
      wait_for 10 bash -c 'munge -n | unmunge' || { echo "slurm: munge does not work"; exit 1; }
    fi
    if scontrol ping 2>/dev/null | grep -q UP; then
      echo "slurm: another slurmctld already answers on port 16817; stop it first"
      exit 1
    fi
    /usr/sbin/slurmctld -f "$conf" || { echo "slurm: slurmctld did not start"; tail "$dir/slurmctld.log"; exit 1; }
    wait_for 20 scontrol ping || { echo "slurm: slurmctld does not answer"; tail "$dir/slurmctld.log"; exit 1; }
    if [ "$nodes" -eq 1 ]; then
      /usr/sbin/slurmd -f "$conf" -N localhost ||
        { echo "slurm: slurmd did not start"; tail "$dir/slurmd.localhost.log"; exit 1; }
    else
      for n in "${names[@]}"; do
        unshare --uts /bin/bash -c "hostname '$n' && exec /usr/sbin/slurmd -f '$conf'" ||
          { echo "slurm: slurmd of $n did not start"; tail "$dir/slurmd.$n.log"; exit 1; }
      done
    fi
    wait_for 20 bash -c "[ \"\$(sinfo -h -o '%T %D')\" = 'idle $nodes' ]" ||
      { echo "slurm: nodes not idle"; sinfo; tail "$dir"/slurmd.*.log; exit 1; }
    echo "slurm: up, $nodes node(s) ($conf)"
    ;;
  down)
    for n in "${names[@]}"; do stop_pidfile "$dir/slurmd.$n.pid"; done
    stop_pidfile "$dir/slurmctld.pid"
    if [ -f "$dir/started-munged" ]; then
      stop_pidfile /run/munge/munged.pid
      rm -f "$dir/started-munged"
    fi
    echo "slurm: down"
    ;;
  *) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac
