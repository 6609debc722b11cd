#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the job-script tests (no GPU: a
# character device stands in for it so gres/gpu and gres/mps can be declared).
#   tests/slurm/cluster.sh up DIR     start munged (if needed), slurmctld, slurmd
#   tests/slurm/cluster.sh down DIR   stop what `up` started
# Idempotent, bounded (30 s), needs root and Debian's slurmctld slurmd
# slurm-client munge. Clients find it with: export SLURM_CONF=DIR/slurm.conf
set -uo pipefail
cmd=${1:?up|down} dir=${2:?folder}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
export SLURM_CONF=$conf

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
       sinfo -h -o %T 2>/dev/null | grep -q idle; then
      echo "slurm: already up ($conf)"
      exit 0
    fi
    mkdir -p "$dir/state" "$dir/spool"
    [ -e "$dir/fakegpu0" ] || mknod "$dir/fakegpu0" c 1 3
    cat > "$conf" <<CONF
ClusterName=mpsfw-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=localhost CPUs=8 RealMemory=4000 Gres=gpu:1,mps:100 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    cat > "$dir/gres.conf" <<CONF
NodeName=localhost Name=gpu File=$dir/fakegpu0
NodeName=localhost Name=mps Count=100 File=$dir/fakegpu0
CONF
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
    /usr/sbin/slurmd -f "$conf" -N localhost || { echo "slurm: slurmd did not start"; tail "$dir/slurmd.log"; exit 1; }
    wait_for 20 bash -c 'sinfo -h -o %T | grep -q idle' ||
      { echo "slurm: node not idle"; sinfo; tail "$dir/slurmd.log"; exit 1; }
    echo "slurm: up ($conf)"
    ;;
  down)
    stop_pidfile "$dir/slurmd.pid"
    stop_pidfile "$dir/slurmctld.pid"
    if [ -f "$dir/started-munged" ]; then
      stop_pidfile /run/munge/munged.pid
      rm -f "$dir/started-munged"
    fi
    echo "slurm: down"
    ;;
  *) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac
