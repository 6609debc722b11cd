#include "memory.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
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

void* host_allocate(std::size_t bytes) {
  void* p = std::aligned_alloc(kAlign, round_up(bytes == 0 ? 1 : bytes));
  if (p == nullptr)
    throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

// Pinned memory only where CUDA can use it; plain host memory otherwise.
bool pinned_by_cuda(Backend space) { return space == Backend::Cuda && built_with_cuda(); }

}  // namespace

void* allocate(Backend space, std::size_t bytes) {
  if (space == Backend::Cuda) {
    void* p = detail::cuda_allocate(bytes);
    count(Backend::Cuda, static_cast<std::int64_t>(bytes));
    return p;
  }
  void* p = host_allocate(bytes);
  count(Backend::Host, static_cast<std::int64_t>(bytes));
  return p;
}

void release(Backend space, void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  count(space == Backend::Cuda ? Backend::Cuda : Backend::Host, -static_cast<std::int64_t>(bytes));
  if (space == Backend::Cuda) {
    detail::cuda_release(p);
  } else {
    std::free(p);
  }
}

void* allocate_pinned(Backend space, std::size_t bytes) {
  return pinned_by_cuda(space) ? detail::cuda_allocate_pinned(bytes) : host_allocate(bytes);
}

void release_pinned(Backend space, void* p) noexcept {
  if (p == nullptr) return;
  if (pinned_by_cuda(space)) {
    detail::cuda_release_pinned(p);
  } else {
    std::free(p);
  }
}

void copy(void* dst, Backend dst_space, const void* src, Backend src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space != Backend::Cuda && src_space != Backend::Cuda) {
    std::memcpy(dst, src, bytes);
    return;
  }
  detail::cuda_copy(dst, src, bytes);
}

void synchronize(Backend space) {
  // Without CUDA there is no device work to wait for.
  if (space == Backend::Cuda && built_with_cuda()) detail::cuda_synchronize();
}

Usage usage() { return {host_now.load(), host_peak.load(), device_now.load(), device_peak.load()}; }

}  // namespace memory
}  // namespace mpsfw
