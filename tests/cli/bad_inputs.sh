#!/usr/bin/env bash
# Bad inputs must fail fast and clearly: for each case the solver must exit
# non-zero, say what is wrong (file, attribute path or option, what was
# expected), print the error once (from rank 0, not once per rank) and not hang.
#
#   tests/cli/bad_inputs.sh --solver PATH --make-bad PATH [options] [CASE...]
#   tests/cli/bad_inputs.sh --list [--cuda 0|1] [--kokkos 0|1]
# Options:
#   --mpiexec PATH      MPI launcher (default: mpiexec)
#   --np-flag FLAG      its process-count flag (default: -n)
#   --preflags "..."    extra launcher flags before the program
#   --cuda 0|1          whether the solver was built with the CUDA backend (default: 1)
#   --kokkos 0|1        whether the solver was built with the Kokkos backend (default: 1)
#   --timeout SECONDS   a run still going after this long is a hang (default: 60)
#   --keep              keep the work folder with the files and outputs
# With no CASE every case runs; the last line is "N passed, M failed".
# ctest runs one case per test (cli.bad.<case>), see CMakeLists.txt.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=cli_lib.sh source-path=SCRIPTDIR
source "$here/cli_lib.sh"

MAKE_BAD=""
CUDA_BUILD=1
KOKKOS_BUILD=1
LIST=0
KEEP=0
selected=()
while [ $# -gt 0 ]; do
  case "$1" in
    --solver) SOLVER=$2; shift 2 ;;
    --make-bad) MAKE_BAD=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --np-flag) NP_FLAG=$2; shift 2 ;;
    --preflags) PREFLAGS=$2; shift 2 ;;
    --cuda) CUDA_BUILD=$2; shift 2 ;;
    --kokkos) KOKKOS_BUILD=$2; shift 2 ;;
    --timeout) CASE_TIMEOUT=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --list) LIST=1; shift ;;
    -h | --help) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) cli_die "unknown option '$1' (see --help)" ;;
    *) selected+=("$1"); shift ;;
  esac
done

# ---------------------------------------------------------------------------
# The cases. add_case NAME NP EXPECT ARGS [PATTERN...]
#   NP      ranks (0: the solver alone, without mpiexec, as an MPI singleton)
#   EXPECT  fail: exit non-zero with exactly one "mpsfw: error:" line
#           usage: the same with exit 2 (a command line that does not parse)
#           warn: exit 0, the run summary, and each PATTERN on stderr
#           ok:   exit 0 and the run summary
#   ARGS    solver arguments split on spaces; @D@ is the folder with the files
#           that make_bad_inputs wrote (good.h5 is a valid input), @I@ the
#           project's inputs/ folder (md_lj.h5: a valid MD input)
#   PATTERN fixed strings that must all appear in the output
# CASE_ENV[NAME] may hold VAR=value words to set for that run.
# ---------------------------------------------------------------------------
declare -a CASES=()
declare -A C_NP C_EXPECT C_ARGS C_PATTERNS CASE_ENV
add_case() {
  local name=$1 np=$2 expect=$3 args=$4
  shift 4
  CASES+=("$name")
  C_NP[$name]=$np
  C_EXPECT[$name]=$expect
  C_ARGS[$name]=$args
  local p joined=""
  for p in "$@"; do joined+="$p"$'\n'; done
  C_PATTERNS[$name]=$joined
}

range_nx='expected an integer in [1, 1048576] (cells along x)'

# The control: the file every other one is derived from runs.
add_case good_file_runs 2 ok "@D@/good.h5"

# Files that cannot be read at all.
add_case missing_file 2 fail "@D@/does_not_exist.h5" \
  "does_not_exist.h5: cannot open: No such file or directory"
add_case missing_file_np1 1 fail "@D@/does_not_exist.h5" \
  "does_not_exist.h5: cannot open: No such file or directory"
add_case missing_file_singleton 0 fail "@D@/does_not_exist.h5" \
  "does_not_exist.h5: cannot open: No such file or directory"
# A text deck named .h5 is read as the deck it is: its error names the line.
add_case not_hdf5 2 fail "@D@/not_hdf5.h5" \
  "not_hdf5.h5:2: unknown key 'nx' (did you mean 'heat.nx'?)"
add_case empty_file 1 fail "@D@/empty.h5" \
  "empty.h5: cannot open: not an HDF5 file" "or a text deck of key = value lines"
add_case directory_as_input 2 fail "@D@" \
  "cannot open"

# The root attribute /solver.
add_case no_solver 2 fail "@D@/no_solver.h5" \
  "no_solver.h5: attribute /solver is missing: expected one of heat"
add_case wrong_solver 2 fail "@D@/wrong_solver.h5" \
  "wrong_solver.h5: attribute /solver: expected one of heat" 'got "wave"'
add_case solver_integer 2 fail "@D@/solver_integer.h5" \
  "solver_integer.h5: attribute /solver: expected one of heat" "got a 64-bit integer"

# Required keys and their types and ranges.
add_case no_steps 1 fail "@D@/no_steps.h5" \
  "no_steps.h5: attribute /run/steps is missing: expected an integer"
add_case no_heat_group 2 fail "@D@/no_heat_group.h5" \
  "no_heat_group.h5: attribute /heat/nx is missing: $range_nx"
add_case no_nx 2 fail "@D@/no_nx.h5" \
  "no_nx.h5: attribute /heat/nx is missing: $range_nx"
add_case nx_string 2 fail "@D@/nx_string.h5" \
  "nx_string.h5: attribute /heat/nx: $range_nx" 'got the string "12"'
add_case nx_float 1 fail "@D@/nx_float.h5" \
  "nx_float.h5: attribute /heat/nx: $range_nx" "got a 64-bit float"
add_case nx_zero 2 fail "@D@/nx_zero.h5" \
  "nx_zero.h5: attribute /heat/nx: $range_nx, got 0"
add_case nx_negative 2 fail "@D@/nx_negative.h5" \
  "nx_negative.h5: attribute /heat/nx: $range_nx, got -12"
add_case nx_too_large 2 fail "@D@/nx_too_large.h5" \
  "nx_too_large.h5: attribute /heat/nx: $range_nx, got 2097152"
add_case nx_array 2 fail "@D@/nx_array.h5" \
  "nx_array.h5: attribute /heat/nx: $range_nx" "got a 3-element array"
add_case dx_negative 2 fail "@D@/dx_negative.h5" \
  "dx_negative.h5: attribute /heat/dx: expected a number > 0 (cell spacing along x, m), got -0.01"
add_case dx_zero 2 fail "@D@/dx_zero.h5" \
  "dx_zero.h5: attribute /heat/dx: expected a number > 0 (cell spacing along x, m), got 0"
add_case dt_nan 2 fail "@D@/dt_nan.h5" \
  "dt_nan.h5: attribute /heat/dt: expected a number > 0 (time step, s), got nan"
add_case boundary_unknown 2 fail "@D@/boundary_unknown.h5" \
  "boundary_unknown.h5: attribute /heat/boundary: expected one of dirichlet|periodic" \
  'got "neumann"'
add_case initial_unknown 2 fail "@D@/initial_unknown.h5" \
  "initial_unknown.h5: attribute /heat/initial: expected one of sine|gaussian|dataset" \
  'got "step"'
add_case backend_unknown_in_file 2 fail "@D@/backend_unknown.h5" \
  "backend_unknown.h5: attribute /run/backend: expected one of auto|host|cuda" 'got "gpu"'

# Cross-checks of heat_config_from: stability and the u0 dataset.
add_case dt_unstable 2 fail "@D@/dt_unstable.h5" \
  "dt_unstable.h5: attribute /heat/dt: dt = 1 is unstable for the explicit scheme" \
  "the largest stable dt is 0.166667"
add_case dataset_without_u0 2 fail "@D@/dataset_without_u0.h5" \
  "dataset_without_u0.h5: dataset /heat/u0 is missing" "[nz][ny][nx] = [8][10][12]"
add_case u0_wrong_shape 2 fail "@D@/u0_transposed.h5" \
  "u0_transposed.h5: dataset /heat/u0: expected shape [nz][ny][nx] = [8][10][12], got [12][10][8]"
add_case u0_nan 2 fail "@D@/u0_nan.h5" \
  "u0_nan.h5: dataset /heat/u0: expected finite values, got nan at [7][9][11] ([z][y][x])"
# H5MD is a particle trajectory's format: a grid's snapshots refuse it.
add_case heat_output_h5md 2 fail "@D@/good.h5 --output @D@/f.h5md" \
  "run.output_file = " "f.h5md: H5MD (.h5md) holds particle trajectories" "name it .h5"
add_case output_is_input 2 fail "@D@/victim.h5 --output @D@/victim.h5" \
  "--output" "victim.h5' is the input file; choose another name"
# Two outputs naming one file (also by another name, or an output's .xmf).
add_case report_is_input 2 fail "@D@/victim.h5 --report @D@/victim.h5" \
  "--report" "victim.h5' is the input file; choose another name"
add_case output_is_report 2 fail "@D@/good.h5 --output @D@/o.h5 --report @D@/o.h5" \
  "mpsfw: error: --output " " and --report " "/o.h5 name one file, '" \
  "one would replace the other"
add_case output_is_checkpoint 2 fail "@D@/good.h5 --output @D@/o.h5 --set run.checkpoint_file=@D@/o.h5" \
  "mpsfw: error: --output " "/o.h5 and --set run.checkpoint_file=" "name one file"
add_case output_is_numbered_checkpoint 2 fail "@D@/good.h5 --output @D@/c.00000010.h5 --set run.checkpoint_file=@D@/c.h5 --set run.checkpoint_keep=3" \
  "mpsfw: error: --output " "/c.00000010.h5' has the name of a numbered checkpoint of --set run.checkpoint_file=" "run.checkpoint_keep = 3"
add_case report_is_checkpoint 2 fail "@D@/good.h5 --report @D@/c.h5 --set run.checkpoint_file=@D@/c.h5" \
  "mpsfw: error: --set run.checkpoint_file=" "/c.h5 and --report " "name one file"
add_case report_is_output_xmf 2 fail "@D@/good.h5 --output @D@/o.h5 --report @D@/o.xmf" \
  "/o.h5 (writing '" "/o.xmf') and --report " "name one file"
add_case report_is_output_by_other_name 2 fail "@D@/good.h5 --output @D@/o.h5 --report @D@/./o.h5" \
  " and --report " "name one file" "(also '"
add_case u0_2d 1 fail "@D@/u0_2d.h5" \
  "u0_2d.h5: dataset /heat/u0: expected shape [nz][ny][nx] = [8][10][12], got [80][12]"

# Decomposition: hints that do not fit the job, more ranks than cells.
add_case hint_wrong_product 2 fail "@D@/hint_3x1x1.h5" \
  "hint_3x1x1.h5: /run/px, /run/py, /run/pz: rank grid 3x1x1 has 3 blocks but the job has 2 ranks"
add_case hint_does_not_divide 2 fail "@D@/hint_px3.h5" \
  "hint_px3.h5: /run/px, /run/py, /run/pz: rank grid 3x0x0 (0 = free) cannot be completed for 2 ranks"
add_case set_hint_wrong_product 2 fail "@D@/good.h5 --set run.px=1 --set run.py=1 --set run.pz=1" \
  "/run/px, /run/py, /run/pz: rank grid 1x1x1 has 1 blocks but the job has 2 ranks"
add_case more_ranks_than_cells 2 fail "@D@/nx_one.h5 --set run.px=2" \
  "nx_one.h5: /run/px, /run/py, /run/pz: rank grid 2x0x0 puts more ranks than cells (1) along dimension x" "another rank grid"
add_case thin_x_is_not_cut 2 ok "@D@/nx_one.h5" "2 ranks as 1 x 2 x 1"
add_case no_rank_grid_fits 2 fail "@D@/good.h5 --set heat.nx=1 --set heat.ny=1 --set heat.nz=1" \
  "good.h5: /run/px, /run/py, /run/pz: no rank grid 0x0x0 (0 = free) for 2 ranks fits 1x1x1 cells"

# --set overrides.
add_case set_unknown_key 2 fail "@D@/good.h5 --set heat.nxx=3" \
  "--set heat.nxx=3: unknown key 'heat.nxx' (did you mean 'heat.nx'?); the keys of /heat: heat.nx," "heat.dt,"
add_case set_unknown_group 1 fail "@D@/good.h5 --set nothing.at_all=3" \
  "--set nothing.at_all=3: unknown key 'nothing.at_all'; --list-keys lists every key"
add_case set_malformed_integer 2 fail "@D@/good.h5 --set heat.nx=abc" \
  "--set heat.nx=abc: $range_nx, got 'abc'"
add_case set_malformed_real 1 fail "@D@/good.h5 --set heat.dt=0.1s" \
  "--set heat.dt=0.1s: expected a number > 0 (time step, s), got '0.1s'"
add_case set_without_equals 2 fail "@D@/good.h5 --set heatnx" \
  "--set heatnx: expected group.key=value, e.g. --set heat.nx=128"
add_case set_empty_key 2 fail "@D@/good.h5 --set =3" \
  "--set =3: expected group.key=value"
add_case set_missing_value 2 fail "@D@/good.h5 --set" \
  "--set needs a value" "usage:"
add_case set_out_of_range 2 fail "@D@/good.h5 --set heat.nx=0" \
  "--set heat.nx=0: $range_nx, got 0"
add_case set_bad_choice 2 fail "@D@/good.h5 --set heat.boundary=neumann" \
  "--set heat.boundary=neumann: expected one of dirichlet|periodic" 'got "neumann"'
add_case set_unstable_dt 2 fail "@D@/good.h5 --set heat.dt=0.5" \
  "--set heat.dt=0.5: dt = 0.5 is unstable" "the largest stable dt is 0.166667"
add_case set_dataset_without_u0 2 fail "@D@/good.h5 --set heat.initial=dataset" \
  "good.h5: dataset /heat/u0 is missing"

# MD inputs: md_lj.h5 shrunk to 4^3 FCC cells (a 6.72 box, 2 link cells a side).
EXAMPLES=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../inputs" && pwd)
md_small="@I@/md_lj.h5 --set md.cells_x=4 --set md.cells_y=4 --set md.cells_z=4 --set run.steps=5"
add_case md_good_runs 2 ok "$md_small" "atom-steps/s"
add_case md_cutoff_over_half_box 2 fail "$md_small --set md.cells_x=2" \
  "md_lj.h5: attribute /md/cutoff: md.cutoff = 2.5 is more than half the box along x (3.35"
add_case md_more_ranks_than_link_cells 3 fail "$md_small --set run.px=3 --set run.py=1 --set run.pz=1" \
  "puts more ranks than cells (2) along dimension x" \
  "an MD rank needs at least one link cell of md.cutoff + md.skin along each dimension"
add_case md_fcc_without_cells 2 fail "$md_small --set md.cells_y=0" \
  "--set md.cells_y=0: md.initial = fcc needs md.cells_y >= 1"
add_case md_dataset_without_box 2 fail "$md_small --set md.initial=dataset" \
  "md.initial = dataset needs md.box_x > 0"
add_case md_thermostat_unknown 1 fail "$md_small --set md.thermostat=berendsen" \
  "--set md.thermostat=berendsen: expected one of none|rescale"
add_case md_dt_negative 2 fail "$md_small --set md.dt=-0.005" \
  "--set md.dt=-0.005: expected a number > 0 (time step)"
add_case md_heat_key 2 fail "$md_small --set heat.nx=4" \
  "--set heat.nx=4: unknown key 'heat.nx'"
add_case md_skin_negative 2 fail "$md_small --set md.skin=-0.1" \
  "--set md.skin=-0.1: expected a number >= 0 (neighbour lists reach cutoff + skin"
add_case md_skin_over_box 2 fail "$md_small --set md.skin=5" \
  "--set md.skin=5: md.skin = 5 with md.cutoff = 2.5 reaches 7.5, more than the box along x (6.71838); use a smaller skin"
add_case md_rebuild_every_zero 2 fail "$md_small --set md.rebuild_every=0" \
  "--set md.rebuild_every=0: expected an integer >= 1 (most steps between neighbour-list rebuilds"
add_case md_progress_lines 2 ok "$md_small --set run.steps=20 --set run.progress_seconds=0.000001" \
  "  step 1/20 (5%), "
add_case md_dataset_runs 2 ok "@D@/md_dataset_good.h5" "4 atoms"
add_case md_atom_outside_box 4 fail "@D@/md_atom_outside.h5" \
  "md_atom_outside.h5: dataset /md/positions: row 2: y = 8.5 is outside the box [0, 8)"
add_case md_trajectory_is_checkpoint 2 fail "$md_small --output @D@/t.h5 --set run.checkpoint_file=@D@/t.h5" \
  "mpsfw: error: --output " "/t.h5 and --set run.checkpoint_file=" "name one file"
add_case md_trajectory_is_report 2 fail "$md_small --output @D@/t.h5 --report @D@/t.h5" \
  "mpsfw: error: --output " "/t.h5 and --report " "name one file"
add_case md_checkpoint_is_report 2 fail "$md_small --report @D@/c.h5 --set run.checkpoint_file=@D@/c.h5" \
  "mpsfw: error: --set run.checkpoint_file=" "/c.h5 and --report " "name one file"
add_case md_trajectory_is_input 2 fail "@D@/md_dataset_good.h5 --output @D@/md_dataset_good.h5" \
  "--output" "md_dataset_good.h5' is the input file; choose another name"
add_case md_positions_wrong_shape 2 fail "@D@/md_positions_two_columns.h5" \
  "md_positions_two_columns.h5: dataset /md/positions: expected shape [N][3], got [4][2]"

# The command line itself.
add_case unknown_option 2 usage "@D@/good.h5 --bogus" \
  "unknown option '--bogus'" "usage: mpirun -np N solver INPUT [options]"
add_case misspelt_option 1 usage "@D@/good.h5 --ouptut x.h5" \
  "unknown option '--ouptut' (did you mean '--output'?)"
add_case no_input_file 2 usage "" \
  "no input file given" "usage: mpirun -np N solver INPUT [options]"
add_case two_input_files 1 usage "@D@/good.h5 @D@/good.h5" \
  "more than one input file"
add_case backend_option_unknown 2 fail "@D@/good.h5 --backend gpu" \
  "--backend gpu: expected one of auto|host|cuda" 'got "gpu"'
add_case halo_option_unknown 2 fail "@D@/good.h5 --halo nvlink" \
  "--halo nvlink: expected one of auto|mpi|ipc|same-gpu" 'got "nvlink"'
add_case halo_ipc_on_host 2 fail "@D@/good.h5 --backend host --halo ipc" \
  "run.halo = ipc needs the CUDA backend"
add_case halo_sync_unknown 2 fail "@D@/good.h5 --set run.halo_sync=spin" \
  "--set run.halo_sync=spin: expected one of auto|barrier" 'got "spin"'

# Options for Kokkos (--kokkos-NAME[=VALUE]) go to Kokkos::initialize on backend
# kokkos; a typo of the prefix is still unknown; the two that choose the device
# and the host threads are the binding's, refused by name; on another backend or
# without Kokkos an option for it is an error, never silently nothing.
add_case kokkos_option_typo 2 usage "@D@/good.h5 --backend kokkos --kokos-disable-warnings" \
  "unknown option '--kokos-disable-warnings'" "usage: mpirun -np N solver INPUT [options]"
add_case kokkos_device_id_refused 2 fail "@D@/good.h5 --backend kokkos --kokkos-device-id=0" \
  "--kokkos-device-id=0: mpsfw sets Kokkos's device from its binding" "CUDA_VISIBLE_DEVICES"
add_case kokkos_num_threads_refused 2 fail "@D@/good.h5 --backend kokkos --kokkos-num-threads=4" \
  "--kokkos-num-threads=4: mpsfw sets Kokkos's host threads from its binding" "OMP_NUM_THREADS"
if [ "$KOKKOS_BUILD" = 1 ]; then
  add_case kokkos_option_runs 2 ok "@D@/good.h5 --backend kokkos --kokkos-disable-warnings" \
    "backend kokkos, MPS" "kokkos (Kokkos "
  # Kokkos itself acts on it (tries to load the tool): the options reach it.
  add_case kokkos_option_reaches_kokkos 1 ok \
    "@D@/good.h5 --backend kokkos --kokkos-tools-library=@D@/no_such_tool.so" \
    "Unable to load KokkosP library: " "/no_such_tool.so"
  add_case kokkos_option_on_host 2 fail "@D@/good.h5 --backend host --kokkos-disable-warnings" \
    "--kokkos-disable-warnings given, but this run's backend is host (--backend host)" \
    "options for Kokkos are for backend kokkos"
  add_case kokkos_option_on_auto 2 fail "@D@/good.h5 --kokkos-disable-warnings" \
    "--kokkos-disable-warnings given, but this run's backend is auto" \
    "--backend kokkos"
else
  add_case kokkos_option_runs 2 fail "@D@/good.h5 --backend kokkos --kokkos-disable-warnings" \
    "--kokkos-disable-warnings given, but mpsfw was built without Kokkos"
  add_case kokkos_option_on_host 2 fail "@D@/good.h5 --backend host --kokkos-disable-warnings" \
    "--kokkos-disable-warnings given, but mpsfw was built without Kokkos"
fi

# --backend cuda: what it must do depends on the build and the machine.
if [ "$CUDA_BUILD" = 0 ]; then
  add_case backend_cuda 2 fail "@D@/good.h5 --backend cuda" \
    "backend 'cuda' needs CUDA, but mpsfw was built without it"
elif cli_gpu_present; then
  # Inverted on a GPU machine: it must run there.
  add_case backend_cuda 2 ok "@D@/good.h5 --backend cuda" "backend cuda"
else
  add_case backend_cuda 2 fail "@D@/good.h5 --backend cuda" \
    "backend 'cuda' was requested but no GPU is visible" "--backend host"
fi
if [ "$CUDA_BUILD" != 0 ]; then
  # Hiding every GPU gives the same clear error on any machine.
  add_case backend_cuda_gpus_hidden 2 fail "@D@/good.h5 --backend cuda" \
    "backend 'cuda' was requested but no GPU is visible" "CUDA_VISIBLE_DEVICES"
  CASE_ENV[backend_cuda_gpus_hidden]="CUDA_VISIBLE_DEVICES="
fi

# Unknown keys in a file are only a warning, and so is a dataset of the
# particles' group that nothing reads (a misspelt name).
add_case unknown_key_is_warning 2 warn "@D@/unknown_keys.h5" \
  "mpsfw: warning: " "unknown_keys.h5: attribute /heat/conductivity is not a known key and is ignored" \
  "unknown_keys.h5: /notes is not a group or dataset this solver reads; ignored"
add_case md_unread_dataset_is_warning 2 warn "@D@/md_dataset_misspelt.h5" \
  "mpsfw: warning: " \
  "md_dataset_misspelt.h5: /md/velocity is not read (/md/positions, /md/velocities, /md/ids are): a misspelt name?"

# ---------------------------------------------------------------------------

if [ "$LIST" = 1 ]; then
  for name in "${CASES[@]}"; do echo "$name ${C_NP[$name]}"; done
  exit 0
fi

cli_require_tools
[ -n "$MAKE_BAD" ] || cli_die "--make-bad PATH is required"
[ -x "$MAKE_BAD" ] || cli_die "make_bad_inputs '$MAKE_BAD' is not an executable"

if [ ${#selected[@]} -eq 0 ]; then
  selected=("${CASES[@]}")
else
  for name in "${selected[@]}"; do
    [ -n "${C_EXPECT[$name]:-}" ] || cli_die "no case named '$name' (see --list)"
  done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mpsfw-bad-inputs.XXXXXX") || cli_die "mktemp failed"
if [ "$KEEP" = 1 ]; then
  echo "work folder (kept): $work"
else
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/files" "$work/out"
"$MAKE_BAD" "$work/files" || cli_die "make_bad_inputs failed to write the bad files"

# count_lines FILE REGEX: lines matching an extended regex.
count_lines() { grep -cE "$2" "$1" 2>/dev/null || true; }

run_case() {
  local name=$1
  local np=${C_NP[$name]} expect=${C_EXPECT[$name]}
  local out="$work/out/$name.stdout" err="$work/out/$name.stderr" all="$work/out/$name.all"
  local -a words=() args=() envs=()
  local w
  [ -n "${C_ARGS[$name]}" ] && read -r -a words <<<"${C_ARGS[$name]}"
  for w in "${words[@]}"; do
    w=${w//@D@/$work/files}
    args+=("${w//@I@/$EXAMPLES}")
  done
  [ -n "${CASE_ENV[$name]:-}" ] && read -r -a envs <<<"${CASE_ENV[$name]}"

  if [ ${#envs[@]} -gt 0 ]; then
    # In a subshell, so the variables reach only this run.
    (
      for w in "${envs[@]}"; do export "${w?}"; done
      cli_run "$np" "$out" "$err" "${args[@]}"
      exit "$CLI_RC"
    )
    CLI_RC=$?
  else
    cli_run "$np" "$out" "$err" "${args[@]}"
  fi
  local rc=$CLI_RC
  cat "$out" "$err" >"$all"

  local -a problems=()
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    problems+=("still running after ${CASE_TIMEOUT} s and killed (exit $rc): a rank hangs?")
  elif [ "$expect" = fail ] || [ "$expect" = usage ]; then
    [ "$rc" -ne 0 ] || problems+=("exit code 0, expected a failure")
    [ "$expect" != usage ] || [ "$rc" -eq 2 ] || problems+=("exit code $rc, expected 2 (a usage error)")
    local n
    n=$(count_lines "$err" '^mpsfw: error: ')
    [ "$n" -eq 1 ] || problems+=("$n lines 'mpsfw: error: ...' on stderr, expected exactly 1")
    ! grep -q 'error on rank' "$all" ||
      problems+=("the job was aborted ('error on rank'), expected a clean input error")
    ! grep -q 'MPI_ABORT' "$all" || problems+=("MPI_ABORT was called, expected a clean exit")
  else
    [ "$rc" -eq 0 ] || problems+=("exit code $rc, expected 0")
    grep -qE '(heat|md) run summary' "$out" || problems+=("no run summary on stdout")
    [ "$(count_lines "$err" '^mpsfw: error')" -eq 0 ] || problems+=("an error was printed")
  fi
  local p
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    local where=$all
    [ "$expect" = warn ] && where=$err
    grep -qF -- "$p" "$where" || problems+=("missing text: $p")
  done <<<"${C_PATTERNS[$name]}"
  if [ "$expect" = warn ]; then
    # Each warning once (rank 0 prints them), however many ranks ran.
    local n
    while IFS= read -r p; do
      [ -n "$p" ] && [ "$p" != "mpsfw: warning: " ] || continue
      n=$(grep -cF -- "$p" "$err")
      [ "$n" -eq 1 ] || problems+=("'$p' appears $n times on stderr, expected once (rank 0)")
    done <<<"${C_PATTERNS[$name]}"
  fi

  local envtext=""
  [ ${#envs[@]} -gt 0 ] && envtext="${envs[*]} "
  if [ ${#problems[@]} -eq 0 ]; then
    echo "PASS  $name  (exit $rc; np=$np; $expect)"
    return 0
  fi
  echo "FAIL  $name"
  echo "    command: $envtext$(cli_command_text "$np" "${args[@]}")"
  echo "    exit code: $rc"
  for p in "${problems[@]}"; do echo "    - $p"; done
  cli_show stdout "$out"
  cli_show stderr "$err"
  return 1
}

passed=0
failed=0
failed_names=()
for name in "${selected[@]}"; do
  if run_case "$name"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_names+=("$name")
  fi
done
[ "$failed" -eq 0 ] || echo "failed cases: ${failed_names[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
