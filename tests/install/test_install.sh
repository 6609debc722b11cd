#!/usr/bin/env bash
# mpsfw installed and found: `cmake --install` of this build into a fresh
# prefix, then tests/install/consumer (a solver with a workload of its own)
# configured with find_package(mpsfw) against that prefix only, built, and
# run at 1 and 2 ranks; its input is written by the installed mkinput. Then
# the same consumer configured with mpsfw's source as a subdirectory: the
# mpsfw:: aliases resolve, and mpsfw's tests and benchmarks stay off.
#
#   tests/install/test_install.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
source "$here/install_lib.sh" "$@"
prefix=$WORK/prefix

install_into "$prefix"
for f in bin/mpsfw-solver bin/mpsfw-mkinput bin/mpsfw-mpsctl bin/mpsfw-run include/mpsfw/core/driver/workload.hpp include/mpsfw/runtime/session.hpp \
         share/mpsfw/README.md share/mpsfw/docs/input-format.md share/mpsfw/docs/framework.md \
         include/mpsfw/runtime/solver_main.hpp lib/cmake/mpsfw/mpsfwConfig.cmake \
         lib/cmake/mpsfw/mpsfwConfigVersion.cmake share/mpsfw/LICENSE share/mpsfw/scripts/advise.py \
         share/mpsfw/scripts/sweep.py share/mpsfw/slurm/run.sbatch share/mpsfw/inputs/heat_default.h5 \
         share/mpsfw/examples/wave/CMakeLists.txt share/doc/mpsfw/docs/input-format.md; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
# Only the API's headers and what they include (cmake/MpsfwPublicHeaders.cmake):
# the libraries' own parts stay out.
for f in solvers/md/md_arrays_store.hpp mps/client_watch.hpp runtime/input_writer.hpp \
         core/input/deck.hpp solvers/heat/heat_kernels.hpp; do
  [ ! -e "$prefix/include/mpsfw/$f" ] || fail "cmake --install installed $f, not a header of the API"
done

# Every module an installed Python tool imports from scripts/ is installed beside it.
for script in "$prefix"/share/mpsfw/scripts/*.py; do
  for module in $(python3 -c 'import ast, sys
for n in ast.walk(ast.parse(open(sys.argv[1]).read())):
    if isinstance(n, ast.Import): print(" ".join(a.name for a in n.names))
    elif isinstance(n, ast.ImportFrom) and n.module: print(n.module)' "$script"); do
    [ ! -e "$here/../../scripts/$module.py" ] || [ -e "$prefix/share/mpsfw/scripts/$module.py" ] ||
      fail "$(basename "$script") imports $module, which is not installed beside it"
  done
done

# The package finds the user's Kokkos again (find_dependency): nothing of this
# machine's Kokkos libraries is written into the exported targets.
grep -l "libkokkos" "$prefix"/lib*/cmake/mpsfw/*.cmake && fail "the installed package names this machine's Kokkos libraries"

# Only the prefix: the source tree is not on any path the consumer sees.
cmake -S "$here/consumer" -B "$WORK/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "configure with find_package(mpsfw)"; }
cmake --build "$WORK/consumer" -j 2 > "$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "build against the installed mpsfw"; }

for short in solver mkinput mpsctl run; do
  [ ! -e "$prefix/bin/$short" ] || fail "bin/$short installed: a short name that clashes on a shared PATH"
done
# --help says where the installed docs are.
help=$("$prefix/bin/mpsfw-solver" --help)
grep -qF "$prefix/share/mpsfw/docs" <<<"$help" ||
  fail "mpsfw-solver --help does not name $prefix/share/mpsfw/docs"
# The installed tools run from the prefix: advise finds the installed solver.
python3 "$prefix/share/mpsfw/scripts/advise.py" "$prefix/share/mpsfw/inputs/heat_default.h5" --gpus 0 \
  --steps 2 --max-ranks-per-gpu 1 --json "$WORK/advise.json" > "$WORK/advise.log" 2>&1 ||
  { cat "$WORK/advise.log"; fail "the installed advise.py did not run"; }
grep -qF "$prefix/bin/mpsfw-solver" "$WORK/advise.json" || fail "the installed advise.py did not use $prefix/bin/mpsfw-solver"
"$prefix/bin/mpsfw-mkinput" "$WORK/heat.h5" --set heat.nx=12 --set heat.ny=12 --set heat.nz=12 > /dev/null
# The installed wrapper runs any program and passes its exit code on.
out=$("$MPIEXEC" -n 2 "$prefix/bin/mpsfw-run" --mps off -- sh -c 'exit 0' 2>&1) ||
  { echo "$out"; fail "the installed mpsfw-run --mps off at 2 ranks"; }
grep -q "^mpsfw-run: 2 rank(s) on this node, MPS off" <<<"$out" || { echo "$out"; fail "no mpsfw-run summary"; }
for np in 1 2; do
  # The built-in workloads come along: the heat input runs in the consumer's program.
  out=$("$MPIEXEC" -n "$np" "$WORK/consumer/ranks_solver" "$WORK/heat.h5" --backend host \
        --set solver=heat --set run.steps=3 2>&1) || { echo "$out"; fail "heat through the consumer at $np ranks"; }
  grep -q "^mpsfw: heat 12x12x12 cells, 3 steps on $np ranks" <<<"$out" || { echo "$out"; fail "no heat banner at $np ranks"; }
  # Its own workload: /ranks/n from --set (unknown groups in the file only warn).
  out=$("$MPIEXEC" -n "$np" "$WORK/consumer/ranks_solver" "$WORK/heat.h5" --backend host \
        --set solver=ranks --set ranks.n=6 --set run.steps=2 --report "$WORK/ranks$np.json" 2>&1) || { echo "$out"; fail "ranks workload at $np ranks"; }
  grep -q "^ranks: 216 cells on $np ranks" <<<"$out" || { echo "$out"; fail "ranks workload output at $np ranks"; }
  grep -q '"solver": "ranks"' "$WORK/ranks$np.json" || fail "run.json of the ranks workload does not name it"
done
# An unknown solver names the ones this program knows, its own included.
if out=$("$WORK/consumer/ranks_solver" "$WORK/heat.h5" --set solver=wave 2>&1); then
  fail "solver=wave was accepted"
fi
grep -q 'expected one of heat|md|ranks' <<<"$out" || { echo "$out"; fail "the unknown-solver message does not list heat|md|ranks"; }
# add_subdirectory: configure only (building mpsfw twice would double the test's time).
cmake -S "$here/consumer" -B "$WORK/subdir" -DMPSFW_SOURCE_DIR="$here/../.." -DMPSFW_ENABLE_CUDA=OFF \
      > "$WORK/subdir.log" 2>&1 || { cat "$WORK/subdir.log"; fail "configure with add_subdirectory(mpsfw)"; }
[ ! -e "$WORK/subdir/mpsfw/tests" ] || fail "mpsfw's tests were configured inside another project"
[ ! -e "$WORK/subdir/mpsfw/bench" ] || fail "mpsfw's benchmarks were configured inside another project"
echo "install: ok ($prefix)"
