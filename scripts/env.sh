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
# For the device scripts: `device_logs NAME` makes the log folder $out
# ($OUT/NAME, tarred into $OUT/NAME.tgz on exit: the device tool returns few
# files) and $gen (Ninja where there is one); `has PART` says whether PART is
# in $parts.
device_logs() {
  local root="${OUT:-$MPSFW_ROOT/device-logs}"
  out="$root/$1"
  mkdir -p "$out"
  # shellcheck disable=SC2064  # the names are fixed now
  trap "tar czf '$root/$1.tgz' -C '$root' '$1'" EXIT
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
}
has() { [[ " $parts " == *" $1 "* ]]; }
# For the device scripts: the GPU, nvcc and the tree they run, into FILE and
# on stdout (each log folder says what it was measured on).
record_device_machine() {
  {
    nvidia-smi --query-gpu=name,memory.total,driver_version,compute_mode --format=csv
    nvcc --version | tail -2
    git -C "$MPSFW_ROOT" log -1 --format='tree %h %s' 2>/dev/null
    # The device copy's checkout may lag the tree that runs: name what differs.
    local changed
    changed=$(git -C "$MPSFW_ROOT" status --porcelain --untracked-files=no 2>/dev/null)
    if [ -n "$changed" ]; then
      echo "  plus uncommitted changes to tracked files:"
      echo "$changed" | head -20
    fi
  } > "$1" 2>&1
  cat "$1"
}
# For the device scripts: the programs of BUILD's GPU tests (ctest -L gpu:
# test programs, and the apps that script tests run), one a line; and
# `run_gpu_tests BUILD` runs them (a missing GPU a failure), logs in
# $out/ctest.log, prints the summary, returns ctest's exit.
gpu_test_targets() {
  (cd "$1" && ctest -N -V -L gpu | grep "Test command" | grep -o "tests/test_[a-z_]*\|apps/[a-z_]*" |
    sed 's|^tests/||; s|^apps/||' | sort -u)
}
run_gpu_tests() {
  (cd "$1" && MPSFW_REQUIRE_GPU=1 timeout 240 ctest -L gpu --output-on-failure -j 4 \
    > "$out/ctest.log" 2>&1)
  local rc=$?
  echo "gpu tests: exit $rc"
  grep -E "tests passed|Failed|\*\*\*" "$out/ctest.log" | head -20
  return "$rc"
}

