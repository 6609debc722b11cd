#include "stream_signals.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

constexpr std::size_t kBlockBytes = kSignalWords * sizeof(std::uint64_t);

// How often the watcher looks: the job ends this much after the deadline at
// most, for a wake-up nobody notices.
constexpr std::chrono::milliseconds kWatchPeriod(100);

static std::uint64_t to_nanoseconds(double seconds) {
  return static_cast<std::uint64_t>(std::llround(seconds * 1e9));
}

StreamSignals::StreamSignals(PeerMemory& memory)
    : memory_(memory),
      mine_(static_cast<std::uint64_t*>(memory.allocate(kBlockBytes))),
      wait_ns_(to_nanoseconds(PeerWait::kDefaultSeconds)) {
  if (memory_.space() != Backend::Cuda) return;  // the host waits itself, and throws
  try {
    failure_ = detail::cuda_allocate_failure(&failure_on_device_);
    watcher_ = std::make_unique<AbortWatch>([this] { return raised(); }, kWatchPeriod);
  } catch (...) {
    detail::cuda_release_failure(failure_);
    memory_.release(mine_, kBlockBytes);
    throw;
  }
}

StreamSignals::~StreamSignals() {
  watcher_.reset();
  detail::cuda_release_failure(failure_);
  for (void* p : neighbors_) memory_.unmap(p);
  memory_.release(mine_, kBlockBytes);
}

PeerMemoryHandle StreamSignals::handle() const { return memory_.share(mine_); }

void StreamSignals::add_neighbor(const PeerMemoryHandle& handle, int rank) {
  if (static_cast<int>(neighbors_.size()) == kMaxNeighbors) {
    throw Error("StreamSignals: more than " + std::to_string(kMaxNeighbors) + " neighbours");
  }
  neighbors_.push_back(memory_.map(handle));
  ranks_.push_back(rank);
}

void StreamSignals::set_peer_wait(const PeerWait& wait, std::uint64_t finished_step) {
  if (!(wait.seconds > 0)) throw Error("StreamSignals: the peer wait must be positive");
  std::lock_guard<std::mutex> lock(mutex_);
  wait_ns_ = to_nanoseconds(wait.seconds);
  step_offset_ = wait.step - static_cast<std::int64_t>(finished_step);
}

StepHandshake StreamSignals::handshake(std::uint64_t finished_step) const {
  StepHandshake h;
  if (neighbors_.empty()) return h;
  h.mine = mine_;
  h.arrivals = reinterpret_cast<unsigned*>(mine_ + kArrivals);
  for (size_t n = 0; n < neighbors_.size(); ++n) {
    h.theirs[n] = static_cast<const std::uint64_t*>(neighbors_[n]);
    h.rank[n] = ranks_[n];
  }
  h.count = static_cast<int>(neighbors_.size());
  h.finished = finished_step;
  h.wait_ns = wait_ns_;
  h.step_offset = step_offset_;
  h.failure = failure_on_device_;
  return h;
}

void StreamSignals::wait_for_neighbors(std::uint64_t finished_step) {
  const StepHandshake h = handshake(finished_step);
  if (h.empty()) return;
  if (memory_.space() == Backend::Cuda) {
    detail::cuda_mark_and_wait(h);
  } else {
    host_mark_and_wait(h);
  }
}

std::string StreamSignals::raised() const {
  if (__atomic_load_n(&failure_->raised, __ATOMIC_ACQUIRE) == 0) return "";
  std::lock_guard<std::mutex> lock(mutex_);
  const std::int64_t step =
      step_offset_ + static_cast<std::int64_t>(__atomic_load_n(&failure_->count, __ATOMIC_RELAXED));
  return peer_wait_message(__atomic_load_n(&failure_->rank, __ATOMIC_RELAXED), step,
                           static_cast<double>(wait_ns_) * 1e-9);
}

}  // namespace mpsfw
