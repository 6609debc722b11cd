# Shared by the bench scripts that time the solver on one input they write:
#   source "$(dirname "$0")/bench_lib.sh"
#   bench_setup BUILD_DIR OUT_DIR SIZE STEPS
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
  "$solver" --write-input "$input" --set heat.nx="$3" --set heat.ny="$3" \
    --set heat.nz="$3" --set run.steps="$4" --set run.diag_every=0 > /dev/null ||
    { echo "--write-input failed" >&2; exit 1; }
}
