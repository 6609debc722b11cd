# Shared by the bench scripts that time the solver on one input they write:
#   source "$(dirname "$0")/bench_lib.sh"
#   bench_setup BUILD_DIR OUT_DIR SIZE STEPS
#   build_gpu_solver SOURCE_DIR BUILD_DIR LOG (the A/B scripts' trees)
#   build_trees "BASE.tar ..." WORK OUT (every tarball's tree and this one)
# checks BUILD_DIR/apps/solver, makes OUT_DIR, sets the Open MPI defaults the
# benches run with (oversubscription allowed, ob1) and writes OUT_DIR/input.h5:
# heat SIZE^3 cells, STEPS steps, diagnostics at the ends only. Sets solver,
# out, input, mpirun (MPIRUN or mpirun) and python (PYTHON or python3).
bench_setup() {
  solver="$1/apps/solver"
  out=$2
  mpirun=${MPIRUN:-mpirun}
  python=${PYTHON:-python3}
  [ -x "$solver" ] || { echo "no $solver" >&2; exit 2; }
  mkdir -p "$out"
  export OMPI_MCA_rmaps_base_oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-1}
  export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
  input="$out/input.h5"
  "$solver" --write-input "$input" --force --set heat.nx="$3" --set heat.ny="$3" \
    --set heat.nz="$3" --set run.steps="$4" --set run.diag_every=0 > /dev/null ||
    { echo "--write-input failed" >&2; exit 1; }
}

# Configures and builds the solver of SOURCE_DIR for sm_90 (Release, CUDA;
# Kokkos only with KOKKOS_PREFIX, a CUDA Kokkos's install prefix, e.g. from
# scripts/build_kokkos_cuda.sh) into BUILD_DIR, output into LOG; on failure
# prints LOG's tail and exits.
build_gpu_solver() {
  local kokkos=(-DMPSFW_ENABLE_KOKKOS=OFF)
  [ -n "${KOKKOS_PREFIX:-}" ] && kokkos=(-DMPSFW_ENABLE_KOKKOS=ON -DKokkos_ROOT="$KOKKOS_PREFIX")
  { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DMPSFW_ENABLE_CUDA=ON "${kokkos[@]}" &&
    cmake --build "$2" -j "$(nproc)" --target solver; } > "$3" 2>&1 || { tail -30 "$3"; exit 1; }
}

# Unpacks each tarball of TARS (made with `git archive REV > name.tar`) into
# WORK/src-<name> and builds its solver, then that of this tree ($root, the
# caller's), into
# WORK/build-<name> (logs OUT/build-<name>.log); sets sides to the names,
# "new" (this tree) last.
build_trees() {
  local tar side src
  sides=()
  for tar in $1; do
    side=$(basename "$tar" .tar)
    mkdir -p "$2/src-$side" && tar xf "$tar" -C "$2/src-$side" || exit 1
    sides+=("$side")
  done
  sides+=(new)
  for side in "${sides[@]}"; do
    src=$2/src-$side
    [ "$side" = new ] && src=$root
    build_gpu_solver "$src" "$2/build-$side" "$3/build-$side.log"
  done
}
