#pragma once
// Host shared memory standing in for CUDA IPC in tests, so the same-GPU paths
// (naming, mapping, ordering, fallback) run in CI without a GPU: an MPI
// shared-memory window of the node, and a handle is (owner's rank in the
// window, byte offset).
#include <mpi.h>

#include <cstddef>
#include <cstring>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/peer_memory.hpp>

namespace mpsfw::testing_support {

// Every rank's share of the window holds `doubles` numbers, then room for
// allocate() (the step counters of StreamSignals).
class SharedWindowMemory final : public PeerMemory {
 public:
  SharedWindowMemory(MPI_Comm node, std::size_t doubles) : doubles_(doubles) {
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(doubles * sizeof(double) + kSpareBytes),
                            sizeof(double), MPI_INFO_NULL, node, &base_, &win_);
    MPI_Comm_rank(node, &rank_);
    std::memset(static_cast<char*>(base_) + doubles * sizeof(double), 0, kSpareBytes);
  }
  ~SharedWindowMemory() override { MPI_Win_free(&win_); }
  SharedWindowMemory(const SharedWindowMemory&) = delete;
  SharedWindowMemory& operator=(const SharedWindowMemory&) = delete;

  double* base() const { return static_cast<double*>(base_); }
  Backend space() const override { return Backend::Host; }
  void* allocate(std::size_t bytes) override {
    const std::size_t rounded = (bytes + 7) / 8 * 8;
    if (spare_used_ + rounded > kSpareBytes) throw Error("SharedWindowMemory: spare room used up");
    void* p = static_cast<char*>(base_) + doubles_ * sizeof(double) + spare_used_;
    spare_used_ += rounded;
    return p;
  }
  void release(void*, std::size_t) noexcept override {}
  PeerMemoryHandle share(const void* p) override {
    const Where w{rank_, static_cast<const char*>(p) - static_cast<const char*>(base_)};
    PeerMemoryHandle h;
    std::memcpy(h.bytes, &w, sizeof w);
    return h;
  }
  void* map(const PeerMemoryHandle& h) override {
    if (refuse_) throw Error("mapping refused by the test");
    Where w;
    std::memcpy(&w, h.bytes, sizeof w);
    MPI_Aint size = 0;
    int unit = 0;
    void* theirs = nullptr;
    MPI_Win_shared_query(win_, w.rank, &size, &unit, &theirs);
    return static_cast<char*>(theirs) + w.offset;
  }
  void unmap(void*) noexcept override {}
  void refuse_maps() { refuse_ = true; }

 private:
  struct Where {
    int rank;
    std::ptrdiff_t offset;
  };
  static constexpr std::size_t kSpareBytes = 16384;
  std::size_t doubles_ = 0;
  std::size_t spare_used_ = 0;
  MPI_Win win_ = MPI_WIN_NULL;
  void* base_ = nullptr;
  int rank_ = 0;
  bool refuse_ = false;
};

}  // namespace mpsfw::testing_support
