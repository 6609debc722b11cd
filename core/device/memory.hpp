#pragma once
// Memory in a backend's space: plain host memory or CUDA device memory, plus
// pinned host memory for staging MPI messages. Counts bytes for the run report.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {
namespace memory {

void* allocate(Backend space, std::size_t bytes);
void release(Backend space, void* p, std::size_t bytes) noexcept;
// Page-locked host memory when CUDA is in use (fast, asynchronous copies).
void* allocate_pinned(Backend space, std::size_t bytes);
void release_pinned(Backend space, void* p) noexcept;
void copy(void* dst, Backend dst_space, const void* src, Backend src_space, std::size_t bytes);
// Waits until all device work issued so far is done (no-op on the host).
void synchronize(Backend space);

// Bytes held now and at most, per space (host counts only field/halo memory).
struct Usage {
  std::int64_t host_now = 0, host_peak = 0, device_now = 0, device_peak = 0;
};
Usage usage();

namespace detail {
// The CUDA runtime's side (memory_cuda.cpp; cuda_off.cpp without CUDA).
void* cuda_allocate(std::size_t bytes);
void cuda_release(void* p) noexcept;
void* cuda_allocate_pinned(std::size_t bytes);
void cuda_release_pinned(void* p) noexcept;
void cuda_copy(void* dst, const void* src, std::size_t bytes);
void cuda_synchronize();
std::int64_t cuda_free_bytes();  // free memory of the current device
}  // namespace detail

}  // namespace memory

// An owning array of T in one backend's memory.
template <class T>
class Array {
 public:
  Array() = default;
  Array(Backend space, std::size_t count)
      : space_(space),
        count_(count),
        data_(static_cast<T*>(memory::allocate(space, count * sizeof(T)))) {}
  ~Array() { memory::release(space_, data_, count_ * sizeof(T)); }
  Array(Array&& o) noexcept { swap(o); }
  Array& operator=(Array&& o) noexcept {
    swap(o);
    return *this;
  }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  Backend space() const { return space_; }
  void swap(Array& o) noexcept {
    std::swap(space_, o.space_);
    std::swap(count_, o.count_);
    std::swap(data_, o.data_);
  }
  void copy_from_host(const T* src) {
    memory::copy(data_, space_, src, Backend::Host, count_ * sizeof(T));
  }
  void copy_to_host(T* dst) const {
    memory::copy(dst, Backend::Host, data_, space_, count_ * sizeof(T));
  }

 private:
  Backend space_ = Backend::Host;
  std::size_t count_ = 0;
  T* data_ = nullptr;
};

}  // namespace mpsfw
