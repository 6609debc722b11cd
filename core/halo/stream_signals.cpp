#include "stream_signals.hpp"

#include "core/error.hpp"
#if MPSFW_HAVE_CUDA
#include "core/cuda_check.hpp"
#endif

namespace mpsfw {

#if MPSFW_HAVE_CUDA
bool StreamSignals::available() {
  int device = 0, mps = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return mps == 1;
}

StreamSignals::StreamSignals() {
  void* p = nullptr;
  // The counter, then the arrivals of a kernel that marks it from its last
  // block (StepHandshake::arrivals); both zero.
  MPSFW_CUDA_CHECK(cudaMalloc(&p, 2 * sizeof(std::uint64_t)));
  mine_ = static_cast<std::uint64_t*>(p);
  MPSFW_CUDA_CHECK(cudaMemset(mine_, 0, 2 * sizeof(std::uint64_t)));
  MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
}

StreamSignals::~StreamSignals() {
  for (void* p : neighbors_) close_peer_memory(p);
  if (mine_ != nullptr) cudaFree(mine_);
}

PeerMemoryHandle StreamSignals::handle() const { return export_device_memory(mine_); }
#else
bool StreamSignals::available() { return false; }
StreamSignals::StreamSignals() { throw Error("this build of mpsfw has no CUDA backend"); }
StreamSignals::~StreamSignals() = default;
PeerMemoryHandle StreamSignals::handle() const { return {}; }
namespace detail {
void cuda_mark_and_wait(const StepHandshake&) {
  throw Error("this build of mpsfw has no CUDA backend");
}
}  // namespace detail
#endif

void StreamSignals::add_neighbor(const PeerMemoryHandle& handle) {
  if (static_cast<int>(neighbors_.size()) == kMaxNeighbors) {
    throw Error("StreamSignals: more than six neighbours");
  }
  neighbors_.push_back(open_peer_memory(handle));
}

StepHandshake StreamSignals::handshake(std::uint64_t finished_step) const {
  StepHandshake h;
  if (neighbors_.empty()) return h;
  h.mine = mine_;
  h.arrivals = reinterpret_cast<unsigned*>(mine_ + 1);
  for (size_t n = 0; n < neighbors_.size(); ++n) {
    h.theirs[n] = static_cast<const std::uint64_t*>(neighbors_[n]);
  }
  h.count = static_cast<int>(neighbors_.size());
  h.finished = finished_step;
  return h;
}

void StreamSignals::wait_for_neighbors(std::uint64_t finished_step) {
  const StepHandshake h = handshake(finished_step);
  if (!h.empty()) detail::cuda_mark_and_wait(h);
}

}  // namespace mpsfw
