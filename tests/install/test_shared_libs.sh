#!/usr/bin/env bash
# BUILD_SHARED_LIBS=ON: mpsfw configured from its source as shared libraries
# (with CUDA as this build has it; no Kokkos, no tests, no benchmarks), built,
# installed into a fresh prefix; the consumer of install.find_package built
# against it with the CUDA toolkit hidden from CMake (a host-only solver
# needs none: the shared libmpsfw_core holds the runtime) and run at 2 ranks,
# its program linked to the installed libmpsfw_*.so, and the installed
# mpsfw-solver running the heat example.
#
#   tests/install/test_shared_libs.sh --build DIR --mpiexec PATH [--work DIR]
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
source "$here/install_lib.sh" "$@"
prefix=$WORK/prefix

cuda=$(sed -n 's/^MPSFW_ENABLE_CUDA:BOOL=//p' "$BUILD/CMakeCache.txt")
cmake -S "$repo" -B "$WORK/build" -DBUILD_SHARED_LIBS=ON -DMPSFW_ENABLE_CUDA="${cuda:-OFF}" \
      -DMPSFW_ENABLE_KOKKOS=OFF -DMPSFW_BUILD_TESTS=OFF -DMPSFW_BUILD_BENCH=OFF \
      -DCMAKE_BUILD_TYPE=Release > "$WORK/configure.log" 2>&1 || { tail -30 "$WORK/configure.log"; fail "configure with BUILD_SHARED_LIBS=ON"; }
cmake --build "$WORK/build" -j 2 > "$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; fail "build with BUILD_SHARED_LIBS=ON"; }
cmake --install "$WORK/build" --prefix "$prefix" > "$WORK/install.log" 2>&1 || fail "install of the shared build"
for lib in core mps runtime heat md workloads; do
  ls "$prefix"/lib*/libmpsfw_$lib.so >/dev/null 2>&1 || fail "no shared libmpsfw_$lib.so installed"
done
ls "$prefix"/lib*/libmpsfw_*.a >/dev/null 2>&1 && fail "static libraries installed by a shared build"
# Versioned as a packager expects: the file, the soname and the link.
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$WORK/build/CMakeCache.txt")
core=$(ls "$prefix"/lib*/libmpsfw_core.so."$version" 2>/dev/null) || fail "no libmpsfw_core.so.$version"
soname=$(objdump -p "$core" | sed -n 's/^ *SONAME *//p')
[ "$soname" = "libmpsfw_core.so.${version%.*}" ] || fail "libmpsfw_core's soname is '$soname', expected libmpsfw_core.so.${version%.*}"

cmake -S "$here/consumer" -B "$WORK/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_BUILD_TYPE=Release > "$WORK/consumer-configure.log" 2>&1 || { cat "$WORK/consumer-configure.log"; fail "configure the consumer against the shared mpsfw"; }
cmake --build "$WORK/consumer" -j 2 > "$WORK/consumer-build.log" 2>&1 || { tail -30 "$WORK/consumer-build.log"; fail "build the consumer against the shared mpsfw"; }
libs=$(ldd "$WORK/consumer/ranks_solver")
grep -q "libmpsfw_core.so.[0-9.]* => $prefix" <<<"$libs" ||
  fail "ranks_solver does not load libmpsfw_core.so from $prefix: $(ldd "$WORK/consumer/ranks_solver" | grep mpsfw)"
"$prefix/bin/mpsfw-mkinput" "$WORK/heat.h5" --set heat.nx=12 --set heat.ny=12 --set heat.nz=12 > /dev/null ||
  fail "the installed mpsfw-mkinput (shared) did not run"
out=$("$MPIEXEC" -n 2 "$WORK/consumer/ranks_solver" "$WORK/heat.h5" --backend host \
      --set solver=ranks --set ranks.n=6 --set run.steps=2 2>&1) || { echo "$out"; fail "the consumer at 2 ranks"; }
grep -q "^ranks: 216 cells on 2 ranks" <<<"$out" || { echo "$out"; fail "the consumer's output at 2 ranks"; }
out=$("$MPIEXEC" -n 2 "$prefix/bin/mpsfw-solver" "$WORK/heat.h5" --backend host --set run.steps=3 2>&1) ||
  { echo "$out"; fail "the installed mpsfw-solver (shared) at 2 ranks"; }
grep -q "heat run summary" <<<"$out" || { echo "$out"; fail "no heat summary from the installed mpsfw-solver"; }
echo "shared libraries: ok ($prefix)"
