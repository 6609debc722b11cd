#include "stream_signals.hpp"

#include "core/error.hpp"

namespace mpsfw {

PeerMemoryHandle StreamSignals::handle() const { return export_device_memory(mine_); }

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
