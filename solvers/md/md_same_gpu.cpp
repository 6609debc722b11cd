#include "md_same_gpu.hpp"

#include <algorithm>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_check.hpp"

namespace mpsfw::md {
namespace {

// What a receiver tells the sender of a list: where to write.
struct TargetRecord {
  PeerMemoryHandle positions;
  long slot = 0;        // first ghost slot of the list in the receiver's array
  long generation = 0;  // of the receiver's position array (a new one: map again)
  int ok = 0;           // 0: the receiver could not share its array (it says why)
};

}  // namespace

SameGpuGhosts::SameGpuGhosts(MPI_Comm comm, const std::array<int, kGhostLists>& neighbors,
                             HaloTransport mode, HaloSync sync, const DeviceLocation& where,
                             PeerMemory* memory)
    : comm_(comm), mode_(mode), memory_(memory) {
  std::string refused;
  if (mode == HaloTransport::Ipc && where.gpu.empty()) {
    refused = "run.halo = ipc needs the CUDA backend (this rank computes on the host)";
  } else if (mode == HaloTransport::Ipc && memory == nullptr) {
    refused = "run.halo = ipc needs the CUDA backend (this backend sends every ghost through MPI)";
  }
  agree_on_error(comm_, refused);
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me_));
  // Linked: the same GPU, or peer GPUs of one node (run.halo = same-gpu
  // leaves the peers out).
  where_ = device_locations(comm_, as_transport_allows(where, mode));
  gpu_comm_ = linked_communicator(comm_, where_);
  int linked = 0;
  if (gpu_comm_ != MPI_COMM_NULL) MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm_, &linked));
  active_ = mode != HaloTransport::Mpi && memory_ != nullptr && !where.gpu.empty() && linked > 1;
  int any = active_ ? 1 : 0, anywhere = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &anywhere, 1, MPI_INT, MPI_LOR, comm_));
  active_anywhere_ = anywhere != 0;
  connect_signals(neighbors, sync);
}

void SameGpuGhosts::connect_signals(const std::array<int, kGhostLists>& neighbors, HaloSync sync) {
  // One ordering for the whole GPU (halo_plan.hpp), over each neighbour once
  // however many lists go to it.
  std::vector<int> distinct;
  for (int n : neighbors) {
    if (n != me_ && n >= 0 && std::find(distinct.begin(), distinct.end(), n) == distinct.end())
      distinct.push_back(n);
  }
  const int waits = static_cast<int>(distinct.size());
  const bool everywhere =
      gpu_comm_ != MPI_COMM_NULL &&
      agree_ordering(gpu_comm_, sync, active_ && can_wait_on_gpu(memory_->space(), waits)) ==
          HaloOrdering::GpuWaits;
  struct Record {
    int rank = -1;
    PeerMemoryHandle counter;
  };
  std::string error;
  Record mine;
  mine.rank = me_;
  if (everywhere) {
    try {
      signals_ = std::make_unique<StreamSignals>(*memory_);
      mine.counter = signals_->handle();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  std::vector<Record> records;
  if (everywhere) {
    int group = 0;
    MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm_, &group));
    records.resize(static_cast<size_t>(group));
    MPSFW_MPI_CHECK(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, records.data(), sizeof mine,
                                  MPI_BYTE, gpu_comm_));
  }
  // Each neighbour on this GPU once.
  for (int n : distinct) {
    if (!signals_ || !error.empty()) break;
    for (const Record& r : records) {
      if (r.rank != n) continue;
      try {
        signals_->add_neighbor(r.counter, n);
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
  }
  // Where the counters cannot be shared, a host barrier orders the steps.
  if (!first_error(comm_, error).empty()) signals_.reset();
}

SameGpuGhosts::~SameGpuGhosts() {
  unmap_all();
  if (gpu_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm_);
}

void SameGpuGhosts::connect(MdStore& store, const GhostTransfer plan[kGhostLists]) {
  for (int list = 0; list < kGhostLists; ++list) {
    target_[list] = nullptr;
    pushed_[list] = false;
  }
  // Every rank takes part while any may push: the records below are collective.
  if (!active_anywhere_) return;

  std::string error;
  TargetRecord mine;
  if (active_) {
    try {
      // No wait for the device: the ghost slots exist (reserve_ghosts), and
      // pushes into them are ordered by the step's rendezvous. The handle of
      // an array is the same until it is reallocated.
      const long generation = store.positions_generation();
      if (shared_base_ != store.positions_base() || shared_generation_ != generation) {
        shared_handle_ = memory_->share(store.positions_base());
        shared_generation_ = generation;
        shared_base_ = store.positions_base();
      }
      mine.positions = shared_handle_;
      mine.generation = generation;
      mine.ok = 1;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  // Both ends of a transfer agree on this from the locations alone.
  const auto direct = [&](int rank) { return active_ && link_to(rank) != DeviceLink::None; };
  // The lists' records in one round.
  TargetRecord out[kGhostLists], in[kGhostLists];
  MPI_Request requests[2 * kGhostLists];
  for (int list = 0; list < kGhostLists; ++list) {
    const GhostTransfer& t = plan[list];
    out[list] = mine;
    out[list].slot = store.owned() + t.receive_first;
    pushed_[list] = direct(t.from);
    MPSFW_MPI_CHECK(MPI_Isend(&out[list], sizeof(TargetRecord), MPI_BYTE,
                              pushed_[list] ? t.from : MPI_PROC_NULL, 300 + list, comm_,
                              &requests[list]));
    MPSFW_MPI_CHECK(MPI_Irecv(&in[list], sizeof(TargetRecord), MPI_BYTE,
                              direct(t.to) ? t.to : MPI_PROC_NULL, 300 + list, comm_,
                              &requests[kGhostLists + list]));
  }
  MPSFW_MPI_CHECK(MPI_Waitall(2 * kGhostLists, requests, MPI_STATUSES_IGNORE));
  std::vector<Mapping> used;
  for (int list = 0; list < kGhostLists; ++list) {
    if (!direct(plan[list].to) || !error.empty() || !in[list].ok) continue;
    try {
      peer_gpu_[list] = link_to(plan[list].to) == DeviceLink::PeerGpu;
      target_[list] = mapping_for(plan[list].to, in[list].generation, in[list].positions, &used);
      target_slot_[list] = in[list].slot;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  // A rank that cannot push or be pushed to turns the direct path off for all.
  const std::string failed =
      first_error(comm_, error.empty() ? "" : "rank " + std::to_string(me_) + ": " + error);
  for (Mapping& m : mappings_) {
    if (std::none_of(used.begin(), used.end(),
                     [&](const Mapping& u) { return u.mapped == m.mapped; })) {
      memory_->unmap(m.mapped);
    }
  }
  mappings_ = used;
  if (failed.empty()) return;
  unmap_all();
  for (int list = 0; list < kGhostLists; ++list) {
    target_[list] = nullptr;
    pushed_[list] = false;
  }
  active_ = active_anywhere_ = false;
  if (mode_ == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
  fallback_ = failed;
}

void* SameGpuGhosts::mapping_for(int rank, long generation, const PeerMemoryHandle& handle,
                                 std::vector<Mapping>* used) {
  // Mapped already by this connect, or by an earlier one (then kept).
  for (const Mapping& m : *used) {
    if (m.rank == rank && m.generation == generation) return m.mapped;
  }
  for (const Mapping& m : mappings_) {
    if (m.rank == rank && m.generation == generation) {
      used->push_back(m);
      return m.mapped;
    }
  }
  used->push_back({rank, generation, memory_->map(handle)});
  return used->back().mapped;
}

void SameGpuGhosts::push_all(MdStore& store) const {
  if (!active_) return;
  void* targets[kGhostLists];
  long slots[kGhostLists];
  for (int list = 0; list < kGhostLists; ++list) {
    targets[list] = target_[list];
    slots[list] = target_slot_[list];
  }
  if (signals_) {
    if (store.push_all(targets, slots, signals_->handshake(steps_ + 1))) {
      ++steps_;  // pushes and the rendezvous, one launch
      return;
    }
    // Pushes in one launch if the store can, then the rendezvous.
    if (!store.push_all(targets, slots, StepHandshake{})) push_one_by_one(store);
    signals_->wait_for_neighbors(++steps_);
    return;
  }
  if (!store.push_all(targets, slots, StepHandshake{})) push_one_by_one(store);
  store.synchronize();
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

void SameGpuGhosts::set_peer_wait(const PeerWait& wait) {
  if (signals_) signals_->set_peer_wait(wait, steps_);
}

void SameGpuGhosts::push_one_by_one(MdStore& store) const {
  for (int list = 0; list < kGhostLists; ++list) {
    if (pushes(list)) store.push_sends(list, target_[list], target_slot_[list]);
  }
}

DeviceLink SameGpuGhosts::link_to(int rank) const {
  if (rank == me_ || rank < 0) return DeviceLink::None;
  return device_link(where_[static_cast<size_t>(me_)], where_[static_cast<size_t>(rank)]);
}

std::string SameGpuGhosts::description() const {
  if (active_) {
    bool peer = false;
    for (int list = 0; list < kGhostLists; ++list) peer = peer || (pushes(list) && peer_gpu_[list]);
    return std::string(peer ? "on one GPU and between peer GPUs" : "on one GPU") +
           " device to device (CUDA IPC; " +
           (signals_ ? "GPU-side waits" : "a host barrier per step") + "), else MPI";
  }
  if (!fallback_.empty()) return "through MPI (the same-GPU path is off: " + fallback_ + ")";
  return mode_ == HaloTransport::Mpi ? "through MPI (run.halo = mpi)" : "through MPI";
}

void SameGpuGhosts::unmap_all() noexcept {
  for (const Mapping& m : mappings_) memory_->unmap(m.mapped);
  mappings_.clear();
}

}  // namespace mpsfw::md
