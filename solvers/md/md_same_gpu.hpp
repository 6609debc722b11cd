#pragma once
// Ghost positions between ranks whose device memory reaches each other (one
// GPU, or peer GPUs of one node: halo_transport.hpp's device_link), device to
// device; "same GPU" stands for both below. At a rebuild
// (after the ghosts went through MPI once) every rank tells each rank it
// receives ghosts from where they live in its position array: a CUDA IPC
// handle and a first slot. Between rebuilds a sender writes its send list
// straight there (MdStore::push_sends): no host copy, no MPI message. After
// each of the three stages the ranks wait for their neighbours' pushes: stage
// y sends ghosts that stage x wrote, and forces read them all. Under MPS the
// streams wait for each other on the GPU (step counters, StreamSignals: the
// CPU never waits; push_stage folds a stage's pushes and its wait into one
// launch); otherwise a host barrier over the linked ranks orders them.
// The previous step's forces are done before any push: every rank passed the
// neighbour check's all-reduce after its own.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/halo/halo_plan.hpp"
#include "core/halo/halo_transport.hpp"
#include "core/halo/stream_signals.hpp"
#include "core/peer_memory.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

// One of the six ghost transfers of a rank: send list `list` goes to rank
// `to`, and what rank `from` sends the same way lands in ghost slots
// receive_first .. receive_first + receive_count - 1.
struct GhostTransfer {
  int to = 0, from = 0;
  long send_count = 0;
  long receive_first = 0;
  long receive_count = 0;
};

class SameGpuGhosts {
 public:
  // Collective over `comm`. `neighbors`: the ranks across the six faces;
  // `where`: this rank's node, GPU ("" on the host) and peer GPUs; `memory`: how device
  // buffers are shared (CUDA IPC); `mode` Mpi turns the direct path off, Ipc
  // makes a failure to map an error; `sync` as in halo_plan.hpp.
  SameGpuGhosts(MPI_Comm comm, const std::array<int, 6>& neighbors, HaloTransport mode,
                HaloSync sync, const DeviceLocation& where, PeerMemory* memory);
  ~SameGpuGhosts();
  SameGpuGhosts(const SameGpuGhosts&) = delete;
  SameGpuGhosts& operator=(const SameGpuGhosts&) = delete;

  // Collective, at every rebuild once the plan is final: exchanges where each
  // pushed list goes and maps the receivers' position arrays.
  void connect(MdStore& store, const GhostTransfer plan[6]);
  // Whether list `list` is pushed to its receiver / pushed to us by its sender.
  bool pushes(int list) const { return target_[list] != nullptr; }
  bool pushed_to_us(int list) const { return pushed_[list]; }
  // Pushes list `list` into its receiver.
  void push(MdStore& store, int list) const;
  // After a stage's transfers: the rendezvous of the GPU's ranks (if any pushes).
  void stage_done(MdStore& store) const;
  // Under GPU-side waits, where both lists of dimension `dim` are pushed and
  // pushed to us: the two pushes and stage_done in one launch of the store.
  // False (nothing done) otherwise.
  bool push_stage(MdStore& store, int dim) const;
  // How ghost positions travel, for the run report.
  std::string description() const;

 private:
  struct Mapping {
    int rank;
    long generation;
    void* mapped;
  };
  void* mapping_for(int rank, long generation, const PeerMemoryHandle& handle,
                    std::vector<Mapping>* used);
  void unmap_all() noexcept;
  // Under MPS: step counters shared with the face neighbours on this GPU.
  void connect_signals(const std::array<int, 6>& neighbors, HaloSync sync);

  MPI_Comm comm_;
  HaloTransport mode_;
  PeerMemory* memory_;
  // How this rank's memory reaches rank `rank`'s (None for itself).
  DeviceLink link_to(int rank) const;

  std::vector<DeviceLocation> where_;  // by rank
  int me_ = 0;
  MPI_Comm gpu_comm_ = MPI_COMM_NULL;  // the ranks linked to this rank's GPU
  bool active_ = false;                // some rank on this GPU pushes
  bool active_anywhere_ = false;       // some rank of comm_ is active_
  std::string fallback_;               // why not, where it could have
  std::vector<Mapping> mappings_;
  // This rank's position array as last shared (its handle is reused until
  // the array is reallocated).
  long shared_generation_ = 0;
  const void* shared_base_ = nullptr;
  PeerMemoryHandle shared_handle_;
  void* target_[6] = {};
  bool peer_gpu_[6] = {};  // the list's receiver is on another GPU
  long target_slot_[6] = {};
  bool pushed_[6] = {};
  std::unique_ptr<StreamSignals> signals_;  // null: host barrier
  mutable std::uint64_t stages_ = 0;        // stages marked done
};

}  // namespace mpsfw::md
