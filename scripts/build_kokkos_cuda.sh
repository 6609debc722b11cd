#!/usr/bin/env bash
# Builds a CUDA Kokkos for the Kokkos backend on the GPU machine, from a
# Kokkos source tree (github.com/kokkos/kokkos; a release >= 4.7.02 needs no
# fixes with CUDA 13), into a git-ignored prefix. Nothing of Kokkos enters
# mpsfw: the tree is copied and the copy patched.
#   scripts/build_kokkos_cuda.sh KOKKOS_SRC [PREFIX (default .deps/kokkos-cuda)] [ARCH (HOPPER90)]
# Then: cmake ... -DKokkos_ROOT=PREFIX (docs/kokkos.md).
# Kokkos is built with CMake's CUDA language (Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE),
# so mpsfw compiles its few Kokkos sources as CUDA and everything else with g++.
set -euo pipefail
src=${1:?usage: build_kokkos_cuda.sh KOKKOS_SRC [PREFIX] [ARCH]}
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${2:-$root/.deps/kokkos-cuda}
arch=${3:-HOPPER90}
work=$root/.deps/kokkos-build
rm -rf "$work" && mkdir -p "$work"
cp -r "$src" "$work/src"

# A develop snapshot older than 4.7 (e.g. 4.6.99) calls two CUDA
# functions whose signatures CUDA 13 changed (PLATFORM.md); patch the copy.
instance=$work/src/core/src/Cuda/Kokkos_Cuda_Instance.hpp
if grep -q 'return cudaGraphAddDependencies(graph, from, to, numDependencies);' "$instance"; then
  python3 - "$instance" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace(
    "return cudaGraphAddDependencies(graph, from, to, numDependencies);",
    "#if CUDART_VERSION >= 13000\n    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);\n"
    "#else\n    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n#endif")
s = s.replace(
    "return cudaMemPrefetchAsync(devPtr, count, dstDevice, m_stream);",
    "#if CUDART_VERSION >= 13000\n    cudaMemLocation location{cudaMemLocationTypeDevice, dstDevice};\n"
    "    return cudaMemPrefetchAsync(devPtr, count, location, 0, m_stream);\n"
    "#else\n    return cudaMemPrefetchAsync(devPtr, count, dstDevice, m_stream);\n#endif")
open(p, "w").write(s)
PY
  echo "build_kokkos_cuda: patched $instance for CUDA 13"
fi

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_"$arch"=ON \
  -DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON -DKokkos_ENABLE_TESTS=OFF \
  -DKokkos_ENABLE_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF > "$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "${MPSFW_JOBS:-$(nproc)}" > "$work/build.log" 2>&1 ||
  { grep -m5 -B2 -A5 "error" "$work/build.log"; exit 1; }
cmake --install "$work/build" > "$work/install.log" 2>&1
echo "build_kokkos_cuda: installed in $prefix"
