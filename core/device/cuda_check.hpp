#pragma once
// Checks every CUDA runtime call and every kernel launch. Only for files built
// with the CUDA backend.
#include <cuda_runtime.h>

#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw Error(std::string("CUDA call failed: ") + call + " (" + file + ":" + std::to_string(line) +
              "): " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

}  // namespace mpsfw

#define MPSFW_CUDA_CHECK(call) ::mpsfw::cuda_check((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: catches bad configurations at once; faults inside the
// kernel surface at the next synchronising call, which is checked too.
#define MPSFW_CUDA_CHECK_LAUNCH() \
  ::mpsfw::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
