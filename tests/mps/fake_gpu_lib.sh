# shellcheck shell=bash
# The fake GPU for tests that run mpsfw's MPS code on a machine without a GPU
# (tests/mps, tests/slurm, tests/sweep). Sourced. mpsfw finds GPUs in
# /proc/driver/nvidia/gpus (MPSFW_NVIDIA_PROC_ROOT stands in for it) and runs
# nvidia-cuda-mps-control. Here the GPUs are plain files and the program is the
# test double fake-nvidia-cuda-mps-control beside this file (README.md). The
# double writes one line per event to FAKE_MPS_RECORD for the tests to check.
#
#   fake_mps_env DIR [PYTHON [DOUBLE]]
#     DIR/bin/nvidia-cuda-mps-control runs the double (DOUBLE if given). With
#     PYTHON it is a wrapper that runs the double with PYTHON, else a link
#     that runs it by its #! line (/usr/bin/python3). Also makes DIR/proc, a GPU
#     tree with no GPU (fake_gpus adds them), and DIR/record, empty. Sets
#     the array FAKE_MPS_ENV to the variables that put a process on these:
#       PATH=DIR/bin:$PATH (the PATH of the call)
#       MPSFW_MPS_CONTROL=DIR/bin/nvidia-cuda-mps-control
#       MPSFW_NVIDIA_PROC_ROOT=DIR/proc  FAKE_MPS_RECORD=DIR/record
#     It exports nothing. Use `export "${FAKE_MPS_ENV[@]}"` for the rest of
#     a script, or `env "${FAKE_MPS_ENV[@]}" CMD` for one command.
#   fake_gpus DIR N
#     N fake GPUs (1 to 4) in DIR/proc. Sets FAKE_GPU_UUIDS to their UUIDs
#     in CUDA order. FAKE_GPU_ALL_PCI and FAKE_GPU_ALL_UUID list all four.

_fake_gpu_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# PCI order differs from UUID order on purpose: CUDA counts GPUs by PCI bus,
# so code that sorts them by UUID gets the wrong ones.
FAKE_GPU_ALL_PCI=(0000:1a:00.0 0000:3b:00.0 0000:5e:00.0 0000:86:00.0)
FAKE_GPU_ALL_UUID=(GPU-d0d0d0d0-0000-4000-8000-000000000000 GPU-a1a1a1a1-0000-4000-8000-000000000001
                   GPU-c2c2c2c2-0000-4000-8000-000000000002 GPU-b3b3b3b3-0000-4000-8000-000000000003)

fake_mps_env() {
  local dir=$1 python=${2:-} double=${3:-$_fake_gpu_lib_dir/fake-nvidia-cuda-mps-control}
  local control=$dir/bin/nvidia-cuda-mps-control
  mkdir -p "$dir/bin" "$dir/proc" || return 1
  if [ -n "$python" ]; then
    # The double's #! line names /usr/bin/python3, and some machines do not
    # have it. The caller's python3 runs it instead.
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$python" "$double" >"$control" &&
      chmod +x "$control" || return 1
  else
    ln -sf "$double" "$control" || return 1
  fi
  : >"$dir/record"
  # MPSFW_MPS_CONTROL names the program as well as PATH finding it, because
  # mpirun may put its own prefix first on PATH. On a GPU machine that prefix
  # can hold a real nvidia-cuda-mps-control.
  # shellcheck disable=SC2034  # for the caller
  FAKE_MPS_ENV=("PATH=$dir/bin:$PATH" "MPSFW_MPS_CONTROL=$control"
                "MPSFW_NVIDIA_PROC_ROOT=$dir/proc" "FAKE_MPS_RECORD=$dir/record")
}

fake_gpus() {
  local dir=$1 n=$2 i pci
  [ "$n" -le ${#FAKE_GPU_ALL_PCI[@]} ] || { echo "fake_gpus: at most ${#FAKE_GPU_ALL_PCI[@]} GPUs" >&2; return 1; }
  FAKE_GPU_UUIDS=()
  for ((i = 0; i < n; i++)); do
    pci=${FAKE_GPU_ALL_PCI[$i]}
    mkdir -p "$dir/proc/$pci" || return 1
    # As the driver writes it. mpsfw reads "GPU UUID" (and "Device Minor",
    # which a MIG test adds) and takes the PCI bus from the folder's name.
    printf 'Model: \t\t Fake GPU %d\nIRQ:   \t\t 255\nGPU UUID: \t %s\nBus Location: \t %s\n' \
      "$i" "${FAKE_GPU_ALL_UUID[$i]}" "$pci" >"$dir/proc/$pci/information" || return 1
    FAKE_GPU_UUIDS+=("${FAKE_GPU_ALL_UUID[$i]}")
  done
}
