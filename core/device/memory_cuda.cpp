// The CUDA runtime's side of memory.hpp (compiled only with CUDA).
#include <string>

#include "cuda_check.hpp"
#include "memory.hpp"

namespace mpsfw::memory::detail {

void* cuda_allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t code = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  if (code == cudaErrorMemoryAllocation) {
    throw Error("out of GPU memory allocating " + std::to_string(bytes) + " bytes");
  }
  MPSFW_CUDA_CHECK(code);
  return p;
}

void cuda_release(void* p) noexcept { cudaFree(p); }

void* cuda_allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  MPSFW_CUDA_CHECK(cudaMallocHost(&p, bytes == 0 ? 1 : bytes));
  return p;
}

void cuda_release_pinned(void* p) noexcept { cudaFreeHost(p); }

void cuda_copy(void* dst, const void* src, std::size_t bytes) {
  MPSFW_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
}

void cuda_synchronize() { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }

std::int64_t cuda_free_bytes() {
  std::size_t free = 0, total = 0;
  MPSFW_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return static_cast<std::int64_t>(free);
}

}  // namespace mpsfw::memory::detail
