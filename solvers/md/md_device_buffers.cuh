#pragma once
// Device memory of the CUDA MD store that keeps its capacity: arrays that are
// reallocated only when they must grow, page-locked staging for MPI, and the
// temporary storage Thrust's algorithms borrow. Included by md_store_cuda.cu
// only.
#include <cstddef>
#include <utility>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/memory.hpp"

namespace mpsfw::md::gpu {

// A device array that keeps its capacity: resizing within it allocates nothing.
template <class T>
class DeviceBuffer {
 public:
  T* data() { return array_.data(); }
  const T* data() const { return array_.data(); }
  // Room for n elements; the first `keep` survive a reallocation.
  void reserve(int n, int keep = 0) {
    if (static_cast<std::size_t>(n) <= array_.size()) return;
    const std::size_t want = static_cast<std::size_t>(n) + static_cast<std::size_t>(n) / 4 + 64;
    Array<T> bigger(Backend::Cuda, want);
    if (keep > 0) {
      MPSFW_CUDA_CHECK(
          cudaMemcpy(bigger.data(), array_.data(), keep * sizeof(T), cudaMemcpyDeviceToDevice));
    }
    array_.swap(bigger);
    ++generation_;
  }
  void swap(DeviceBuffer& o) noexcept {
    array_.swap(o.array_);
    std::swap(generation_, o.generation_);
    ++generation_;
    ++o.generation_;
  }
  // Changes whenever data() may have.
  long generation() const { return generation_; }

 private:
  Array<T> array_;
  long generation_ = 0;
};

// Page-locked host memory that keeps its capacity (MPI staging).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { memory::release_pinned(Backend::Cuda, data_); }
  T* data() { return data_; }
  void reserve(long n) {
    if (n <= capacity_) return;
    const long want = n + n / 4 + 64;
    T* bigger = static_cast<T*>(memory::allocate_pinned(Backend::Cuda, want * sizeof(T)));
    memory::release_pinned(Backend::Cuda, data_);
    data_ = bigger;
    capacity_ = want;
  }

 private:
  T* data_ = nullptr;
  long capacity_ = 0;
};

// Pinned memory that asynchronous copies on the stream read or write:
// mark_used after enqueueing one, wait before the host touches it again.
template <class T>
class PinnedStage {
 public:
  PinnedStage() = default;
  PinnedStage(const PinnedStage&) = delete;
  PinnedStage& operator=(const PinnedStage&) = delete;
  ~PinnedStage() {
    if (used_ != nullptr) cudaEventDestroy(used_);
  }
  T* data() { return buffer_.data(); }
  // Waits for the last copy first: a bigger buffer replaces this one.
  void reserve(long n) {
    wait();
    buffer_.reserve(n);
  }
  void mark_used() {
    if (used_ == nullptr)
      MPSFW_CUDA_CHECK(cudaEventCreateWithFlags(&used_, cudaEventDisableTiming));
    MPSFW_CUDA_CHECK(cudaEventRecord(used_));
    pending_ = true;
  }
  void wait() {
    if (!pending_) return;
    MPSFW_CUDA_CHECK(cudaEventSynchronize(used_));
    pending_ = false;
  }

 private:
  PinnedBuffer<T> buffer_;
  cudaEvent_t used_ = nullptr;
  bool pending_ = false;
};

// Thrust's temporary storage (sort, copy_if, reduce): a block returned by one
// call is handed out again to the next, and regrown when too small. A block
// returned by a call that does not wait (policy_nosync) may still be read by
// its kernels: the next user is later on the same stream, and regrowing frees
// it with cudaFree, which waits for the device.
class TempStorage {
 public:
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    const std::size_t want = static_cast<std::size_t>(bytes);
    Block* reuse = nullptr;
    for (Block& b : blocks_) {
      if (b.in_use) continue;
      if (b.array.size() >= want) {
        b.in_use = true;
        return b.array.data();
      }
      reuse = &b;
    }
    if (reuse == nullptr) {
      blocks_.emplace_back();
      reuse = &blocks_.back();
    }
    reuse->array = Array<char>(Backend::Cuda, want + want / 4);
    reuse->in_use = true;
    return reuse->array.data();
  }
  void deallocate(char* p, std::size_t) {
    for (Block& b : blocks_) {
      if (b.array.data() == p) b.in_use = false;
    }
  }

 private:
  struct Block {
    Array<char> array;
    bool in_use = false;
  };
  std::vector<Block> blocks_;
};

}  // namespace mpsfw::md::gpu
