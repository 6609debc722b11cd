#include "peer_links.hpp"

#include <algorithm>
#include <cstring>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

// What a rank tells the other ranks linked to its GPU, before its handles:
// who it is and its block.
struct Head {
  int rank = -1;
  int cells[3] = {};
};

}  // namespace

PeerLinks::PeerLinks(MPI_Comm comm, HaloTransport mode, const DeviceLocation& where,
                     PeerMemory* memory, Backend space)
    : comm_(comm), mode_(mode), memory_(memory), space_(space) {
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me_));
  std::string refused;
  if (mode == HaloTransport::Ipc && where.gpu.empty()) {
    refused = "run.halo = ipc needs the CUDA backend (this rank computes on the host)";
  } else if (mode == HaloTransport::Ipc && memory == nullptr) {
    refused = "run.halo = ipc needs the CUDA backend (this backend sends everything through MPI)";
  }
  agree_on_error(comm_, refused);
  if (mode == HaloTransport::Mpi || memory == nullptr) return;
  where_ = device_locations(comm_, as_transport_allows(where, mode));
  gpu_comm_ = linked_communicator(comm_, where_);
}

PeerLinks::~PeerLinks() {
  off();
  if (gpu_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm_);
}

DeviceLink PeerLinks::link_to(int rank) const {
  if (where_.empty() || rank < 0 || static_cast<size_t>(rank) >= where_.size()) {
    return DeviceLink::None;
  }
  return device_link(where_[static_cast<size_t>(me_)], where_[static_cast<size_t>(rank)]);
}

bool PeerLinks::connect(HaloSync sync, const std::vector<int>& neighbours,
                        const std::vector<void*>& buffers, Int3 cells) {
  if (where_.empty()) return false;  // the same on every rank: run.halo = mpi, or no memory
  off();
  std::vector<int> linked;  // each linked neighbour once, this rank aside
  bool any_linked = false;
  for (int n : neighbours) {
    if (link_to(n) == DeviceLink::None) continue;
    any_linked = true;
    if (n != me_ && std::find(linked.begin(), linked.end(), n) == linked.end()) linked.push_back(n);
  }
  std::string error;
  if (gpu_comm_ != MPI_COMM_NULL) error = share_and_map(sync, linked, any_linked, buffers, cells);
  const std::string failed = first_error(comm_, error);
  if (failed.empty()) return active();
  off();
  if (mode_ == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
  fallback_ = failed;
  return false;
}

std::string PeerLinks::share_and_map(HaloSync sync, const std::vector<int>& linked, bool any_linked,
                                     const std::vector<void*>& buffers, Int3 cells) {
  // Every rank of the GPU orders its steps if any of them has a linked
  // neighbour; if none has, nothing is shared.
  int any = any_linked ? 1 : 0, all_any = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_LOR, gpu_comm_));
  if (all_any == 0) return "";
  const int count = static_cast<int>(buffers.size());
  int fewest = 0, most = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&count, &fewest, 1, MPI_INT, MPI_MIN, gpu_comm_));
  MPSFW_MPI_CHECK(MPI_Allreduce(&count, &most, 1, MPI_INT, MPI_MAX, gpu_comm_));
  if (fewest != most) throw Error("peer links: the ranks of a GPU share different buffer counts");
  ordering_ =
      agree_ordering(gpu_comm_, sync, can_wait_on_gpu(space_, static_cast<int>(linked.size())));

  // One record per rank: its head, its step counter's handle, its buffers'.
  const size_t handles = 1 + buffers.size();
  const size_t record = sizeof(Head) + handles * sizeof(PeerMemoryHandle);
  std::vector<unsigned char> mine(record);
  Head head;
  head.rank = me_;
  for (int d = 0; d < 3; ++d) head.cells[d] = cells[d];
  std::memcpy(mine.data(), &head, sizeof head);
  std::string error;
  try {
    // Every buffer holds its initial values before a neighbour reads it.
    memory::synchronize(space_);
    std::vector<PeerMemoryHandle> shared(handles);
    if (ordering_ == HaloOrdering::GpuWaits) {
      signals_ = std::make_unique<StreamSignals>(*memory_);
      shared[0] = signals_->handle();
    }
    for (size_t b = 0; b < buffers.size(); ++b) shared[1 + b] = memory_->share(buffers[b]);
    std::memcpy(mine.data() + sizeof head, shared.data(), handles * sizeof(PeerMemoryHandle));
  } catch (const std::exception& e) {
    error = e.what();
  }
  int group = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm_, &group));
  std::vector<unsigned char> all(record * static_cast<size_t>(group));
  const int bytes = static_cast<int>(record);
  MPSFW_MPI_CHECK(
      MPI_Allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, gpu_comm_));
  // A failed export anywhere on the GPU leaves a record nobody may open.
  int ok = error.empty() ? 1 : 0, all_ok = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, gpu_comm_));
  if (!error.empty()) return "rank " + std::to_string(me_) + ": " + error;
  if (!all_ok) return "";  // the failing rank says why

  try {
    for (int n : linked) {
      const unsigned char* at = nullptr;
      for (int g = 0; g < group && at == nullptr; ++g) {
        Head h;
        std::memcpy(&h, all.data() + record * static_cast<size_t>(g), sizeof h);
        if (h.rank == n) at = all.data() + record * static_cast<size_t>(g);
      }
      if (at == nullptr) {
        throw Error("neighbour rank " + std::to_string(n) + " is not linked to this GPU");
      }
      Head h;
      std::memcpy(&h, at, sizeof h);
      std::vector<PeerMemoryHandle> theirs(handles);
      std::memcpy(theirs.data(), at + sizeof h, handles * sizeof(PeerMemoryHandle));
      Peer p;
      p.rank = n;
      p.cells = {h.cells[0], h.cells[1], h.cells[2]};
      for (size_t b = 0; b < buffers.size(); ++b) {
        mapped_.push_back(memory_->map(theirs[1 + b]));
        p.buffers.push_back(mapped_.back());
      }
      if (signals_) signals_->add_neighbor(theirs[0], n);
      peers_.push_back(p);
    }
  } catch (const std::exception& e) {
    return "rank " + std::to_string(me_) + " could not map a neighbour's memory: " + e.what();
  }
  return "";
}

const PeerLinks::Peer* PeerLinks::peer(int rank) const {
  for (const Peer& p : peers_) {
    if (p.rank == rank) return &p;
  }
  return nullptr;
}

void PeerLinks::off() noexcept {
  for (void* p : mapped_) memory_->unmap(p);
  mapped_.clear();
  peers_.clear();
  signals_.reset();
  ordering_ = HaloOrdering::None;
}

void PeerLinks::rendezvous(std::uint64_t finished) {
  if (!active()) return;
  if (signals_) {
    signals_->wait_for_neighbors(finished);
    return;
  }
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

StepHandshake PeerLinks::handshake(std::uint64_t finished) const {
  return signals_ ? signals_->handshake(finished) : StepHandshake{};
}

void PeerLinks::set_peer_wait(const PeerWait& wait, std::uint64_t finished) {
  if (signals_) signals_->set_peer_wait(wait, finished);
}

void PeerLinks::quiesce() {
  if (!active()) return;
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

}  // namespace mpsfw
