#!/usr/bin/env bash
# Checks what mpsfw needs (command -v, headers, Python modules) and installs
# only what is missing, from Debian/Ubuntu packages:
#   scripts/setup.sh build   what building and running need: CMake, a C++
#                            compiler, Open MPI, parallel HDF5, GoogleTest,
#                            and Kokkos (for the Kokkos backend)
#   scripts/setup.sh test    (default) also what the test suite uses: h5py,
#                            matplotlib, PyYAML, clang-format, and Slurm for
#                            the job-script test
# With everything present it needs no root and runs no apt-get (a cluster, the
# GPU machine). Without apt-get, missing build tools are an error and missing
# test extras a warning (their tests skip or say what is missing). The CUDA
# toolkit is not installed here: the build uses nvcc where it finds it (PATH
# first, then /usr/local/cuda/bin).
set -euo pipefail
profile=${1:-test}
case "$profile" in build | test) ;; *) echo "usage: setup.sh [build|test]" >&2; exit 2 ;; esac

missing=() optional=()
# any_exists PATH...: true when one of them exists (`ls A B` fails when any is missing).
any_exists() {
  local p
  for p in "$@"; do [ -e "$p" ] && return 0; done
  return 1
}
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v mpicxx >/dev/null || missing+=(openmpi-bin libopenmpi-dev)
command -v mpirun >/dev/null || missing+=(openmpi-bin)
if ! any_exists /usr/include/hdf5.h /usr/include/hdf5/*/hdf5.h; then
  missing+=(libhdf5-openmpi-dev)
fi
command -v h5dump >/dev/null || missing+=(hdf5-tools)
if ! any_exists /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/*/cmake/GTest /usr/lib/cmake/GTest; then
  missing+=(libgtest-dev googletest)
fi
# Kokkos for the Kokkos backend (--backend kokkos): Debian's is 3.4.1 with the
# Serial execution space (a CUDA Kokkos: docs/kokkos.md). Without it the
# backend is not built and its tests are not registered.
any_exists /usr/lib/*/cmake/Kokkos/KokkosConfig.cmake || optional+=(libtrilinos-kokkos-dev)
if [ "$profile" = test ]; then
  # A real one-node Slurm for the job-script test (tests/slurm/).
  command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || optional+=(slurmctld)
  command -v slurmd >/dev/null || [ -x /usr/sbin/slurmd ] || optional+=(slurmd)
  command -v sbatch >/dev/null || optional+=(slurm-client)
  [ -x /usr/sbin/munged ] || optional+=(munge)
  # The style check (tests/style) formats with Debian 12's clang-format.
  command -v clang-format >/dev/null || optional+=(clang-format)
  # ParaView's XDMF readers for the test that opens the outputs as users do
  # (tests/cli/viewers.sh: pvbatch under xvfb).
  command -v pvbatch >/dev/null || optional+=(paraview python3-paraview)
  command -v xvfb-run >/dev/null || optional+=(xvfb xauth)
  # h5py for the test that feeds the solver a file written the way Python users do;
  # matplotlib for the ranks-per-GPU sweep's plots (scripts/sweep.py). The
  # tests use the system's python3 (a version manager's shim may lack them).
  py=/usr/bin/python3
  [ -x "$py" ] || py=$(command -v python3 || echo python3)
  "$py" -c 'import h5py, numpy' >/dev/null 2>&1 || optional+=(python3-h5py python3-numpy)
  "$py" -c 'import matplotlib' >/dev/null 2>&1 || optional+=(python3-matplotlib)
  "$py" -c 'import yaml' >/dev/null 2>&1 || optional+=(python3-yaml)
  # MDAnalysis reads the MD trajectory as H5MD (tests/cli/h5md_reader.sh).
  "$py" -c 'import MDAnalysis' >/dev/null 2>&1 || optional+=(python3-mdanalysis)
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
  echo "setup: all dependencies present ($profile)"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
    exit 1
  fi
  echo "setup: warning: no apt-get here and ${optional[*]} missing: the tests that need them skip or fail saying so" >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]} ${optional[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" "${optional[@]}"
