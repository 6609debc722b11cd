#include "same_gpu_ghosts.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

// What a receiver tells the sender of a list: where to write.
struct TargetRecord {
  PeerMemoryHandle positions;
  long slot = 0;        // first ghost slot of the list in the receiver's array
  long generation = 0;  // of the receiver's position array (a new one: map again)
  // Its ghost fields' receive buffer (where the store has ghost fields), the
  // list's first ghost slot there, and the buffer's generation.
  PeerMemoryHandle fields;
  long ghost_slot = 0;
  long fields_generation = 0;
  int ok = 0;  // 0: the receiver could not share its arrays (it says why)
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

SameGpuGhosts::~SameGpuGhosts() {
  unmap_all();
  release_field_buffer();
}

void SameGpuGhosts::connect(ParticleStore& store, const GhostTransfer plan[kNeighbours]) {
  long ghosts = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    target_[list] = field_target_[list] = nullptr;
    pushed_[list] = false;
    receive_first_[list] = plan[list].receive_first;
    receive_count_[list] = plan[list].receive_count;
    ghosts = std::max(ghosts, plan[list].receive_first + plan[list].receive_count);
  }
  // Every rank takes part while any may push: the records below are collective.
  if (!active_anywhere_) return;
  const int field_words = store.ghost_field_words(ParticleStore::kAllGhostFields);

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
      if (field_words > 0) {
        reserve_field_buffer(static_cast<std::size_t>(field_words * ghosts) *
                             sizeof(std::uint64_t));
        mine.fields = field_buffer_handle_;
        mine.fields_generation = field_buffer_generation_;
      }
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
    out[list].ghost_slot = plan[list].receive_first;
  }
  records_.send();
  records_.wait();
  const TargetRecord* in = static_cast<const TargetRecord*>(records_.receive_buffer());
  std::vector<Mapping> used;
  for (int list = 0; list < kNeighbours; ++list) {
    if (!direct(plan[list].to) || !error.empty() || !in[list].ok) continue;
    try {
      peer_gpu_[list] = link_to(plan[list].to) == DeviceLink::PeerGpu;
      target_[list] = mapping_for(plan[list].to, Shared::Positions, in[list].generation,
                                  in[list].positions, &used);
      target_slot_[list] = in[list].slot;
      if (field_words > 0) {
        field_target_[list] = mapping_for(plan[list].to, Shared::Fields, in[list].fields_generation,
                                          in[list].fields, &used);
        field_slot_[list] = in[list].ghost_slot;
      }
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
    target_[list] = field_target_[list] = nullptr;
    pushed_[list] = false;
  }
  active_ = active_anywhere_ = false;
  if (mode_ == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
  fallback_ = failed;
}

void* SameGpuGhosts::mapping_for(int rank, Shared what, long generation,
                                 const PeerMemoryHandle& handle, std::vector<Mapping>* used) {
  const auto same = [&](const Mapping& m) {
    return m.rank == rank && m.what == what && m.generation == generation;
  };
  // Mapped already by this connect, or by an earlier one (then kept).
  for (const Mapping& m : *used) {
    if (same(m)) return m.mapped;
  }
  for (const Mapping& m : mappings_) {
    if (same(m)) {
      used->push_back(m);
      return m.mapped;
    }
  }
  used->push_back({rank, what, generation, links_.memory().map(handle)});
  return used->back().mapped;
}

void SameGpuGhosts::reserve_field_buffer(std::size_t bytes) {
  if (field_buffer_ != nullptr && bytes <= field_buffer_bytes_) return;
  release_field_buffer();
  // Grown ahead, so that a rebuild with a few more ghosts maps nothing anew.
  const std::size_t grown = bytes + bytes / 4 + 64 * sizeof(std::uint64_t);
  field_buffer_ = links_.memory().allocate(grown);
  field_buffer_bytes_ = grown;
  ++field_buffer_generation_;
  field_buffer_handle_ = links_.memory().share(field_buffer_);
}

void SameGpuGhosts::release_field_buffer() noexcept {
  if (field_buffer_ == nullptr) return;
  links_.memory().release(field_buffer_, field_buffer_bytes_);
  field_buffer_ = nullptr;
  field_buffer_bytes_ = 0;
}

void SameGpuGhosts::push_fields(ParticleStore& store, std::uint32_t fields) {
  if (!active_) return;
  // The rendezvous below follow any the store still holds.
  if (carried_) {
    store.run_carried_rendezvous();
    carried_ = false;
  }
  links_.rendezvous(++steps_);  // the receivers have taken the fields pushed last
  store.push_ghost_fields(fields, field_target_, field_slot_);
  links_.rendezvous(++steps_);  // every push into this rank's buffer is done
  // Adjacent lists' slots are adjacent: one pass per run of pushed lists.
  const auto* in = static_cast<const std::uint64_t*>(field_buffer_);
  for (int list = 0; list < kNeighbours;) {
    if (!pushed_[list]) {
      ++list;
      continue;
    }
    const long first = receive_first_[list];
    long count = 0;
    for (; list < kNeighbours && pushed_[list]; ++list) count += receive_count_[list];
    if (count > 0) store.unpack_ghost_fields(fields, in, first, count);
  }
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
           " device to device (CUDA IPC; " + describe(links_.ordering()) +
           "; ghost fields too), else MPI";
  }
  if (!fallback_.empty()) return "through MPI (the same-GPU path is off: " + fallback_ + ")";
  return mode_ == HaloTransport::Mpi ? "through MPI (run.halo = mpi)" : "through MPI";
}

void SameGpuGhosts::unmap_all() noexcept {
  for (const Mapping& m : mappings_) links_.memory().unmap(m.mapped);
  mappings_.clear();
}

}  // namespace mpsfw
