#!/usr/bin/env bash
# Installs what mpsfw needs to build and test, where it is missing, from
# Debian/Ubuntu packages: Open MPI, parallel HDF5, GoogleTest, CMake, a C++
# compiler. Does nothing when everything is already there (a cluster, the GPU
# machine). The CUDA toolkit is not installed here: the build uses it when it
# finds nvcc (in PATH or /usr/local/cuda/bin).
set -euo pipefail

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v mpicxx >/dev/null || missing+=(openmpi-bin libopenmpi-dev)
command -v mpirun >/dev/null || missing+=(openmpi-bin)
if ! ls /usr/include/hdf5.h /usr/include/hdf5/*/hdf5.h >/dev/null 2>&1; then
  missing+=(libhdf5-openmpi-dev)
fi
command -v h5dump >/dev/null || missing+=(hdf5-tools)
if ! ls /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/*/cmake/GTest /usr/lib/cmake/GTest \
    >/dev/null 2>&1; then
  missing+=(libgtest-dev googletest)
fi
# A real one-node Slurm for the job-script test (tests/slurm/).
command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || missing+=(slurmctld)
command -v slurmd >/dev/null || [ -x /usr/sbin/slurmd ] || missing+=(slurmd)
command -v sbatch >/dev/null || missing+=(slurm-client)
[ -x /usr/sbin/munged ] || missing+=(munge)
# h5py for the test that feeds the solver a file written the way Python users do;
# matplotlib for the ranks-per-GPU sweep's plots (scripts/sweep.py).
/usr/bin/python3 -c 'import h5py, numpy' >/dev/null 2>&1 || missing+=(python3-h5py python3-numpy)
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || missing+=(python3-matplotlib)
/usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || missing+=(python3-yaml)

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "setup: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
