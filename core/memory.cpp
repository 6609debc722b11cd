#include "memory.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "error.hpp"
#if MPSFW_HAVE_CUDA
#include "cuda_check.hpp"
#endif

namespace mpsfw {

bool built_with_cuda() { return MPSFW_HAVE_CUDA != 0; }

Backend parse_backend(const std::string& t) {
  if (t == "host") return Backend::Host;
  if (t == "cuda") return Backend::Cuda;
  if (t == "auto") return Backend::Auto;
  throw InputError("backend: expected auto|host|cuda, got '" + t + "'");
}

namespace memory {
namespace {

std::atomic<std::int64_t> host_now{0}, host_peak{0}, device_now{0}, device_peak{0};

// Host blocks start on a 64-byte boundary (cache lines, vector loads); CUDA's
// allocator already gives 256 bytes.
constexpr std::size_t kAlign = 64;

std::size_t round_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

void count(Backend space, std::int64_t delta) {
  auto& now = space == Backend::Cuda ? device_now : host_now;
  auto& peak = space == Backend::Cuda ? device_peak : host_peak;
  const std::int64_t value = now += delta;
  std::int64_t old = peak.load();
  while (value > old && !peak.compare_exchange_weak(old, value)) {
  }
}

[[maybe_unused]] [[noreturn]] void no_cuda() {
  throw Error("this build of mpsfw has no CUDA backend (configure with -DMPSFW_ENABLE_CUDA=ON)");
}

void* host_allocate(std::size_t bytes) {
  void* p = std::aligned_alloc(kAlign, round_up(bytes == 0 ? 1 : bytes));
  if (p == nullptr)
    throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

}  // namespace

void* allocate(Backend space, std::size_t bytes) {
  if (space == Backend::Cuda) {
#if MPSFW_HAVE_CUDA
    void* p = nullptr;
    const cudaError_t code = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
    if (code == cudaErrorMemoryAllocation) {
      throw Error("out of GPU memory allocating " + std::to_string(bytes) + " bytes");
    }
    MPSFW_CUDA_CHECK(code);
    count(space, static_cast<std::int64_t>(bytes));
    return p;
#else
    no_cuda();
#endif
  }
  void* p = host_allocate(bytes);
  count(Backend::Host, static_cast<std::int64_t>(bytes));
  return p;
}

void release(Backend space, void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  count(space == Backend::Cuda ? Backend::Cuda : Backend::Host, -static_cast<std::int64_t>(bytes));
#if MPSFW_HAVE_CUDA
  if (space == Backend::Cuda) {
    cudaFree(p);
    return;
  }
#endif
  std::free(p);
}

void* allocate_pinned(Backend space, std::size_t bytes) {
#if MPSFW_HAVE_CUDA
  if (space == Backend::Cuda) {
    void* p = nullptr;
    MPSFW_CUDA_CHECK(cudaMallocHost(&p, bytes == 0 ? 1 : bytes));
    return p;
  }
#endif
  (void)space;
  return host_allocate(bytes);
}

void release_pinned(Backend space, void* p) noexcept {
  if (p == nullptr) return;
#if MPSFW_HAVE_CUDA
  if (space == Backend::Cuda) {
    cudaFreeHost(p);
    return;
  }
#endif
  (void)space;
  std::free(p);
}

void copy(void* dst, Backend dst_space, const void* src, Backend src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space != Backend::Cuda && src_space != Backend::Cuda) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if MPSFW_HAVE_CUDA
  MPSFW_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
#else
  no_cuda();
#endif
}

void synchronize(Backend space) {
#if MPSFW_HAVE_CUDA
  if (space == Backend::Cuda) MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
#else
  (void)space;
#endif
}

Usage usage() { return {host_now.load(), host_peak.load(), device_now.load(), device_peak.load()}; }

}  // namespace memory
}  // namespace mpsfw
