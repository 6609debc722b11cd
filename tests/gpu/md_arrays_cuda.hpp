#pragma once
// MD's store on the particle arrays with the CUDA primitives
// (core/particles/cuda_exec.cuh), for the test that holds it against the
// host primitives: md_arrays_cuda.cu, or md_arrays_cuda_off.cpp (throws)
// without CUDA.
#include <memory>

#include "solvers/md/md_store.hpp"

namespace mpsfw::testing_support {

std::unique_ptr<md::MdStore> make_cuda_arrays_md_store();

}  // namespace mpsfw::testing_support
