#include "neighbour_messages.hpp"

#include <utility>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

constexpr std::int64_t kAlign = 8;  // buffers in doubles

// The bytes a buffer needs for `messages`, each refused above MPI's int count.
std::int64_t extent(const std::vector<NeighbourMessages::Message>& messages) {
  std::int64_t end = 0;
  for (const NeighbourMessages::Message& m : messages) {
    mpi_count(m.bytes, "a halo message's bytes", "use more ranks");
    if (m.offset + m.bytes > end) end = m.offset + m.bytes;
  }
  return (end + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

NeighbourMessages::NeighbourMessages(MPI_Comm comm, Backend space, bool cuda_aware_mpi)
    : comm_(comm), space_(space), staged_(space == Backend::Cuda && !cuda_aware_mpi) {}

NeighbourMessages::~NeighbourMessages() {
  if (in_flight_) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  memory::release_pinned(space_, send_host_);
  memory::release_pinned(space_, receive_host_);
}

void NeighbourMessages::plan(std::vector<Message> receives, std::vector<Message> sends) {
  if (in_flight_) throw Error("NeighbourMessages::plan during a round");
  const auto keep = [](std::vector<Message>& v) {
    std::vector<Message> kept;
    for (const Message& m : v) {
      if (m.rank != MPI_PROC_NULL && m.bytes > 0) kept.push_back(m);
    }
    v = std::move(kept);
  };
  keep(receives);
  keep(sends);
  receive_bytes_ = extent(receives);
  send_bytes_ = extent(sends);
  receives_ = std::move(receives);
  sends_ = std::move(sends);
  // Buffers only grow: a particle exchange plans a round at every rebuild,
  // and a device allocation is a synchronisation.
  const auto fit = [this](Array<double>& a, void*& pinned, std::int64_t bytes) {
    if (static_cast<std::int64_t>(a.size()) * kAlign >= bytes) return;
    a = Array<double>(space_, static_cast<size_t>(bytes / kAlign));
    memory::release_pinned(space_, pinned);
    pinned = staged_ ? memory::allocate_pinned(space_, static_cast<size_t>(bytes)) : nullptr;
  };
  fit(receive_, receive_host_, receive_bytes_);
  fit(send_, send_host_, send_bytes_);
  requests_.assign(receives_.size() + sends_.size(), MPI_REQUEST_NULL);
}

void NeighbourMessages::post_receives() {
  if (in_flight_) throw Error("NeighbourMessages: a round posted twice without wait");
  PhaseTimers::Scope t(*timers_, "halo post");
  char* at = static_cast<char*>(staged_ ? receive_host_ : static_cast<void*>(receive_.data()));
  for (size_t i = 0; i < receives_.size(); ++i) {
    const Message& m = receives_[i];
    MPSFW_MPI_CHECK(MPI_Irecv(at + m.offset, static_cast<int>(m.bytes), MPI_BYTE, m.rank, m.tag,
                              comm_, &requests_[i]));
  }
  in_flight_ = true;
}

void NeighbourMessages::send() {
  if (!in_flight_) throw Error("NeighbourMessages::send before post_receives");
  if (send_bytes_ > 0) {
    PhaseTimers::Scope t(*timers_, "halo pack");
    if (staged_) {
      memory::copy(send_host_, Backend::Host, send_.data(), space_,
                   static_cast<size_t>(send_bytes_));
    } else {
      memory::synchronize(space_);
    }
  }
  PhaseTimers::Scope t(*timers_, "halo post");
  char* at = static_cast<char*>(staged_ ? send_host_ : static_cast<void*>(send_.data()));
  for (size_t i = 0; i < sends_.size(); ++i) {
    const Message& m = sends_[i];
    MPSFW_MPI_CHECK(MPI_Isend(at + m.offset, static_cast<int>(m.bytes), MPI_BYTE, m.rank, m.tag,
                              comm_, &requests_[receives_.size() + i]));
  }
}

void NeighbourMessages::wait() {
  if (!in_flight_) throw Error("NeighbourMessages::wait without a round");
  if (requests_.empty()) {  // nothing to wait for: no phase either
    in_flight_ = false;
    return;
  }
  {
    PhaseTimers::Scope t(*timers_, "halo wait");
    MPSFW_MPI_CHECK(
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
  }
  in_flight_ = false;
  if (staged_ && receive_bytes_ > 0) {
    PhaseTimers::Scope t(*timers_, "halo unpack");
    memory::copy(receive_.data(), space_, receive_host_, Backend::Host,
                 static_cast<size_t>(receive_bytes_));
  }
}

std::string NeighbourMessages::path() const {
  if (space_ == Backend::Host) return "MPI, host memory";
  return staged_ ? "MPI, staged through pinned host memory" : "MPI, device memory (CUDA-aware)";
}

}  // namespace mpsfw
