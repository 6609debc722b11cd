#!/usr/bin/env bash
# Experiment (needs 2+ GPUs): how the node's GPUs reach each other and whether
# a process on one GPU can write another process's memory on another GPU
# through CUDA IPC under each MPS arrangement mpsfw could choose:
#   none        no MPS
#   own         one daemon per GPU, each started seeing its GPU only
#   peers       one daemon per GPU, each started seeing its GPU first, then the others
#   node        one daemon for all GPUs
# Clients see their GPU first, then the others (UUIDs). Logs under $OUT.
set -uo pipefail
final="${OUT:-/tmp}"
out="$final/multi-gpu-probe"
mkdir -p "$out"
trap 'tar czf "$out.tgz" -C "$final" --exclude=pipe-* multi-gpu-probe && rm -rf "$out"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi -L > "$out/gpus.txt"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
nvidia-smi topo -p2p w > "$out/topo-p2p-write.txt" 2>&1
nvcc -O2 -arch=sm_90 -o "$out/probe" "$here/peer_ipc_probe.cu" || exit 1
mapfile -t uuids < <(nvidia-smi --query-gpu=uuid --format=csv,noheader)
a=${uuids[0]} b=${uuids[1]}

start_daemon() {  # NAME VISIBLE
  mkdir -p "$out/pipe-$1" "$out/log-$1"
  CUDA_VISIBLE_DEVICES=$2 CUDA_MPS_PIPE_DIRECTORY=$out/pipe-$1 CUDA_MPS_LOG_DIRECTORY=$out/log-$1 \
    nvidia-cuda-mps-control -d
  sleep 0.3
}
stop_daemons() {
  for p in "$out"/pipe-*; do
    [ -d "$p" ] && echo quit | CUDA_MPS_PIPE_DIRECTORY=$p timeout 10 nvidia-cuda-mps-control
  done
  sleep 1
  rm -rf "$out"/pipe-*
}
pair() {  # TAG PIPE_A PIPE_B VIS_A VIS_B
  local d="$out/$1"
  mkdir -p "$d"
  (CUDA_MPS_PIPE_DIRECTORY=$2 CUDA_VISIBLE_DEVICES=$4 timeout 90 "$out/probe" export "$d" \
     > "$d/export.log" 2>&1; echo "exit $?" >> "$d/export.log") &
  CUDA_MPS_PIPE_DIRECTORY=$3 CUDA_VISIBLE_DEVICES=$5 timeout 90 "$out/probe" import "$d" \
    > "$d/import.log" 2>&1
  echo "exit $?" >> "$d/import.log"
  wait
  nvidia-smi > "$d/nvidia-smi.txt" 2>&1
  echo "== $1"; cat "$d/export.log" "$d/import.log"
}

pair none /nonexistent /nonexistent "$a,$b" "$b,$a"
start_daemon a "$a"; start_daemon b "$b"
pair own-both-visible "$out/pipe-a" "$out/pipe-b" "$a,$b" "$b,$a"
pair own-one-visible "$out/pipe-a" "$out/pipe-b" "$a" "$b"
stop_daemons
start_daemon a "$a,$b"; start_daemon b "$b,$a"
pair peers "$out/pipe-a" "$out/pipe-b" "$a,$b" "$b,$a"
echo get_server_list | CUDA_MPS_PIPE_DIRECTORY=$out/pipe-a nvidia-cuda-mps-control > "$out/peers-servers.txt" 2>&1
stop_daemons
start_daemon n "$a,$b"
pair node "$out/pipe-n" "$out/pipe-n" "$a,$b" "$b,$a"
stop_daemons
cp "$out"/log-*/*.log "$out/" 2>/dev/null
for l in "$out"/log-*; do for f in "$l"/*; do cp "$f" "$out/$(basename "$l")-$(basename "$f")"; done; done
echo done
