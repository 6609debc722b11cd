# Sourced by the scripts: the build folder and how to call mpirun here.
MPSFW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MPSFW_BUILD="${MPSFW_BUILD:-$MPSFW_ROOT/build/default}"
MPSFW_JOBS="${MPSFW_JOBS:-$(nproc)}"
export MPSFW_ROOT MPSFW_BUILD MPSFW_JOBS
# Open MPI refuses root and more ranks than cores unless told; ob1 skips UCX probing.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe="${OMPI_MCA_rmaps_base_oversubscribe:-1}"
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
