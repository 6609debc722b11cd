#include "same_gpu_ghosts.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/parallel/collective.hpp"
#include "core/parallel/mpi_check.hpp"

namespace mpsfw {
namespace {

// What a receiver tells the sender of a list: where to write.
struct TargetRecord {
  PeerMemoryHandle positions;
  long slot = 0;        // first ghost slot of the list in the receiver's array
  long generation = 0;  // of the receiver's position array (a new one: map again)
  int ok = 0;           // 0: the receiver could not share its array (it says why)
};

}  // namespace

SameGpuGhosts::SameGpuGhosts(MPI_Comm comm, const std::array<int, kNeighbours>& neighbors,
                             HaloTransport mode, HaloSync sync, const DeviceLocation& where,
                             PeerMemory* memory)
    : comm_(comm),
      mode_(mode),
      links_(comm, mode, where, memory, memory != nullptr ? memory->space() : Backend::Host),
      records_(comm, Backend::Host, false) {
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me_));
  // The step counters and the ordering, with each linked neighbour once; the
  // position arrays are shared at every rebuild (connect).
  std::vector<int> others;
  for (int n : neighbors) {
    if (n != me_) others.push_back(n);
  }
  active_ = links_.connect(sync, others, {}, Int3{});
  fallback_ = links_.fallback();
  int any = active_ ? 1 : 0, anywhere = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &anywhere, 1, MPI_INT, MPI_LOR, comm_));
  active_anywhere_ = anywhere != 0;
}

SameGpuGhosts::~SameGpuGhosts() { unmap_all(); }

void SameGpuGhosts::connect(ParticleStore& store, const GhostTransfer plan[kNeighbours]) {
  for (int list = 0; list < kNeighbours; ++list) {
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
        shared_handle_ = links_.memory().share(store.positions_base());
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
  std::vector<NeighbourMessages::Message> receives, sends;
  for (int list = 0; list < kNeighbours; ++list) {
    const GhostTransfer& t = plan[list];
    const std::int64_t at = list * static_cast<std::int64_t>(sizeof(TargetRecord));
    pushed_[list] = direct(t.from);
    if (pushed_[list]) sends.push_back({t.from, 300 + list, at, sizeof(TargetRecord)});
    if (direct(t.to)) receives.push_back({t.to, 300 + list, at, sizeof(TargetRecord)});
  }
  records_.plan(std::move(receives), std::move(sends));
  records_.post_receives();
  TargetRecord* out = static_cast<TargetRecord*>(records_.send_buffer());
  for (int list = 0; list < kNeighbours; ++list) {
    if (!pushed_[list]) continue;
    out[list] = mine;
    out[list].slot = store.owned() + plan[list].receive_first;
  }
  records_.send();
  records_.wait();
  const TargetRecord* in = static_cast<const TargetRecord*>(records_.receive_buffer());
  std::vector<Mapping> used;
  for (int list = 0; list < kNeighbours; ++list) {
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
      links_.memory().unmap(m.mapped);
    }
  }
  mappings_ = used;
  if (failed.empty()) return;
  unmap_all();
  for (int list = 0; list < kNeighbours; ++list) {
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
  used->push_back({rank, generation, links_.memory().map(handle)});
  return used->back().mapped;
}

bool SameGpuGhosts::push_all(ParticleStore& store, GhostReads reads, std::uint32_t own,
                             const long own_first[kNeighbours]) {
  if (!active_) return false;
  void* targets[kNeighbours];
  long slots[kNeighbours];
  for (int list = 0; list < kNeighbours; ++list) {
    targets[list] = target_[list];
    slots[list] = own >> list & 1u ? own_first[list] : target_slot_[list];
  }
  // Every rank of the GPU passes the same `reads`, so the step counters match.
  // The rendezvous ahead waits in one block, never in every block of the
  // pushes' launch (waiting blocks could fill the GPU while the work they
  // wait for finds no room): in the last block of the store's pass that
  // ended this rank's ghost reads (carried since the last pushes; the store
  // runs it before these pushes at the latest), else in a launch of its own.
  if (reads == GhostReads::MayRun && !carried_) links_.rendezvous(++steps_);
  carried_ = false;
  // The pushes, the own images and the rendezvous after them in one launch
  // where the store can; else the pushes (in one launch with the own images
  // if it can), then the rendezvous.
  bool together;
  if (links_.gpu_waits() && store.push_all(targets, slots, own, links_.handshake(steps_ + 1))) {
    ++steps_;
    together = true;
  } else {
    together = store.push_all(targets, slots, own, StepHandshake{});
    if (!together) push_one_by_one(store);
    links_.rendezvous(++steps_);
  }
  // The next rendezvous ahead rides the store's pass that ends this rank's
  // reads of its ghosts (MD's kick-drift: its last block), where it can.
  if (links_.gpu_waits() && store.carry_rendezvous(links_.handshake(steps_ + 1))) {
    ++steps_;
    carried_ = true;
  }
  return together;
}

void SameGpuGhosts::set_peer_wait(const PeerWait& wait) { links_.set_peer_wait(wait, steps_); }

void SameGpuGhosts::push_one_by_one(ParticleStore& store) const {
  for (int list = 0; list < kNeighbours; ++list) {
    if (pushes(list)) store.push_sends(list, target_[list], target_slot_[list]);
  }
}

DeviceLink SameGpuGhosts::link_to(int rank) const {
  return rank == me_ ? DeviceLink::None : links_.link_to(rank);
}

std::string SameGpuGhosts::description() const {
  if (active_) {
    bool peer = false;
    for (int list = 0; list < kNeighbours; ++list) peer = peer || (pushes(list) && peer_gpu_[list]);
    return std::string(peer ? "on one GPU and between peer GPUs" : "on one GPU") +
           " device to device (CUDA IPC; " + describe(links_.ordering()) + "), else MPI";
  }
  if (!fallback_.empty()) return "through MPI (the same-GPU path is off: " + fallback_ + ")";
  return mode_ == HaloTransport::Mpi ? "through MPI (run.halo = mpi)" : "through MPI";
}

void SameGpuGhosts::unmap_all() noexcept {
  for (const Mapping& m : mappings_) links_.memory().unmap(m.mapped);
  mappings_.clear();
}

}  // namespace mpsfw
