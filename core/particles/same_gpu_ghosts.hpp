#pragma once
// Ghost positions between ranks whose device memory reaches each other (one
// GPU, or peer GPUs of one node: halo_transport.hpp's device_link), device to
// device; "same GPU" stands for both below. At a rebuild, once the counts
// are known, every rank tells each rank it receives ghosts from where they
// live in its position array: a CUDA IPC handle and a first slot. From then
// on (the rebuild's positions too) a sender writes its send list
// straight there (ParticleStore::push_sends): no host copy, no MPI message. Every
// list holds owned particles only, so a step needs one rendezvous: after its
// pushes each rank waits for its neighbours' before forces read the ghosts.
// Under MPS the streams wait for each other on the GPU (step counters,
// StreamSignals: the CPU never waits; ParticleStore::push_all folds the pushes and
// the wait into one launch); otherwise a host barrier over the linked ranks
// orders them. Linking, ordering and the rendezvous are the peer-link
// protocol's (core/comm/peer_links.hpp); what is the particles' own is where
// each list lands, announced anew at every rebuild.
// Ghost fields (FieldSpec::ghosts) take the same links: every rank shares a
// receive buffer with room for its ghosts' field words, senders write their
// lists' words straight into it, and after a rendezvous the receiver moves
// them into its ghost slots (one pass on its own stream). A rendezvous before
// the writes keeps them off a buffer the receiver has not emptied yet.
// The previous step's reads of the ghosts come before any push: the caller
// orders them (MD: every rank passed the neighbour check's all-reduce after
// its forces), or push_all waits for them (GhostReads::MayRun: one more
// rendezvous, before the pushes).
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "particle_store.hpp"
#include <mpsfw/core/comm/halo_transport.hpp>
#include <mpsfw/core/comm/neighbour_messages.hpp>
#include <mpsfw/core/comm/peer_links.hpp>
#include <mpsfw/core/comm/step_ordering.hpp>
#include <mpsfw/core/device/peer_memory.hpp>

namespace mpsfw {

// Whether the receivers' reads of their ghosts (the step before's forces) are
// known to be over when positions are pushed: Over where every rank passed
// a collective after them, MayRun where a step's work was queued early.
enum class GhostReads { Over, MayRun };

class SameGpuGhosts {
 public:
  // Collective over `comm`. `neighbors`: the ranks the 26 lists go to;
  // `where`: this rank's node, GPU ("" on the host) and peer GPUs; `memory`: how device
  // buffers are shared (CUDA IPC); `mode` Mpi turns the direct path off, Ipc
  // makes a failure to map an error; `sync` as in step_ordering.hpp.
  SameGpuGhosts(MPI_Comm comm, const std::array<int, kNeighbours>& neighbors, HaloTransport mode,
                HaloSync sync, const DeviceLocation& where, PeerMemory* memory);
  ~SameGpuGhosts();
  SameGpuGhosts(const SameGpuGhosts&) = delete;
  SameGpuGhosts& operator=(const SameGpuGhosts&) = delete;

  // Collective, at every rebuild once the plan's counts and slots are final
  // and the ghost slots exist: exchanges where each pushed list goes and maps
  // the receivers' position arrays.
  void connect(ParticleStore& store, const GhostTransfer plan[kNeighbours]);
  // Whether list `list` is pushed to its receiver / pushed to us by its sender.
  bool pushes(int list) const { return target_[list] != nullptr; }
  bool pushed_to_us(int list) const { return pushed_[list]; }
  // Pushes every list that has a receiver here and waits until the ranks
  // that push to this one have (GPU-side or at a host barrier): nothing
  // where no rank on this GPU pushes. With `reads` MayRun, first waits until
  // the ranks it pushes to have finished their work queued before this call.
  // The lists in `own` (this rank's own images, from ghost slot
  // own_first[list] on) ride the pushes' launch where the store can: true
  // if they did, else the caller copies them.
  bool push_all(ParticleStore& store, GhostReads reads = GhostReads::Over, std::uint32_t own = 0,
                const long own_first[kNeighbours] = nullptr);
  // The ghost fields `fields` (ParticleStore::ghost_field_words) of every
  // pushed list into their receivers' ghost slots, and those pushed to this
  // rank into its own, between two rendezvous (nothing where no rank on this
  // GPU pushes). Every rank of the GPU calls it at the same points.
  void push_fields(ParticleStore& store, std::uint32_t fields);
  // How long a GPU-side wait may take, and the step every rank has finished
  // now (StreamSignals::set_peer_wait); nothing under the host barrier.
  void set_peer_wait(const PeerWait& wait);
  // How ghost positions travel, for the run report.
  std::string description() const;

 private:
  // A neighbour's shared array: its positions or its field receive buffer.
  enum class Shared { Positions, Fields };
  struct Mapping {
    int rank;
    Shared what;
    long generation;
    void* mapped;
  };
  void* mapping_for(int rank, Shared what, long generation, const PeerMemoryHandle& handle,
                    std::vector<Mapping>* used);
  // A field receive buffer of at least `bytes`, shared (a larger one: a new
  // generation).
  void reserve_field_buffer(std::size_t bytes);
  void release_field_buffer() noexcept;
  void unmap_all() noexcept;
  // Each list that has a receiver, a launch each (stores without push_all).
  void push_one_by_one(ParticleStore& store) const;
  // How this rank's memory reaches rank `rank`'s (None for itself: its
  // lists to itself are copied, not pushed).
  DeviceLink link_to(int rank) const;

  MPI_Comm comm_;
  HaloTransport mode_;
  int me_ = 0;
  PeerLinks links_;               // ordering and rendezvous with the linked ranks
  NeighbourMessages records_;     // where to push, from each receiver
  bool active_ = false;           // this rank orders its steps with linked ranks
  bool active_anywhere_ = false;  // some rank of comm_ is active_
  std::string fallback_;          // why not, where it could have
  std::vector<Mapping> mappings_;
  // This rank's position array as last shared (its handle is reused until
  // the array is reallocated).
  long shared_generation_ = 0;
  const void* shared_base_ = nullptr;
  PeerMemoryHandle shared_handle_;
  void* target_[kNeighbours] = {};
  bool peer_gpu_[kNeighbours] = {};  // the list's receiver is on another GPU
  long target_slot_[kNeighbours] = {};
  bool pushed_[kNeighbours] = {};
  // The ghost fields: this rank's receive buffer (words a ghost slot, slot
  // after slot), where each pushed list's words go, and each list's ghost
  // slots here.
  void* field_buffer_ = nullptr;
  std::size_t field_buffer_bytes_ = 0;
  long field_buffer_generation_ = 0;
  PeerMemoryHandle field_buffer_handle_;
  void* field_target_[kNeighbours] = {};
  long field_slot_[kNeighbours] = {};
  long receive_first_[kNeighbours] = {}, receive_count_[kNeighbours] = {};
  std::uint64_t steps_ = 0;  // steps marked done
  bool carried_ = false;     // the store holds the next rendezvous ahead
};

}  // namespace mpsfw
