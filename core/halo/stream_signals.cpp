#include "stream_signals.hpp"

#include <string>

#include "core/error.hpp"

namespace mpsfw {

// The counter, then the arrivals of a kernel that marks it from its last
// block (StepHandshake::arrivals); both zero.
constexpr std::size_t kCounterBytes = 2 * sizeof(std::uint64_t);

StreamSignals::StreamSignals(PeerMemory& memory)
    : memory_(memory), mine_(static_cast<std::uint64_t*>(memory.allocate(kCounterBytes))) {}

StreamSignals::~StreamSignals() {
  for (void* p : neighbors_) memory_.unmap(p);
  memory_.release(mine_, kCounterBytes);
}

PeerMemoryHandle StreamSignals::handle() const { return memory_.share(mine_); }

void StreamSignals::add_neighbor(const PeerMemoryHandle& handle) {
  if (static_cast<int>(neighbors_.size()) == kMaxNeighbors) {
    throw Error("StreamSignals: more than " + std::to_string(kMaxNeighbors) + " neighbours");
  }
  neighbors_.push_back(memory_.map(handle));
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
  if (h.empty()) return;
  if (memory_.space() == Backend::Cuda) {
    detail::cuda_mark_and_wait(h);
  } else {
    host_mark_and_wait(h);
  }
}

}  // namespace mpsfw
