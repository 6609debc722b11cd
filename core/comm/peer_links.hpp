#pragma once
// The peer-link protocol, written once for every device-to-device exchange:
// the grid halo's pulls and pushes (FieldHalos) and the particles' ghost pushes
// (core/particles/same_gpu_ghosts.hpp). Ranks whose device memory reaches each
// other (one GPU, or peer GPUs of a node: halo_transport.hpp's device_link) are
// linked.
//   construction   where every rank is (as run.halo allows) and the
//                  communicator of the ranks linked to this rank's GPU;
//   connect        collective: when any rank of the GPU has a linked
//                  neighbour, all of them agree how their steps are ordered
//                  (step_ordering.hpp: GPU-side waits on shared step counters, or
//                  a host barrier), share their counters and buffers, and
//                  map each linked neighbour's buffers once. A failure on any
//                  rank turns the links off for every rank (the caller sends
//                  everything through MPI and says why: fallback()) or, with
//                  run.halo = ipc, is an error;
//   each step      rendezvous(finished): mark `finished` steps done and hold
//                  what follows until the linked neighbours have too; or the
//                  same as data (handshake()) for a kernel that runs it itself;
//   the end        quiesce(): no neighbour reads this rank's memory after it.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "halo_transport.hpp"
#include "step_handshake.hpp"
#include "step_ordering.hpp"
#include "stream_signals.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

class PeerLinks {
 public:
  // A linked neighbour's shared buffers, mapped here, and its block.
  struct Peer {
    int rank = -1;
    Int3 cells;
    std::vector<void*> buffers;
  };

  // Collective over `comm`. `memory` shares and maps device memory (CUDA IPC;
  // host shared memory in tests); nullptr for a backend whose memory is never
  // shared: nothing is linked. `space`: where the shared buffers live. With
  // `mode` Ipc on a rank that cannot link (host backend, no `memory`), every
  // rank throws AgreedError.
  PeerLinks(MPI_Comm comm, HaloTransport mode, const DeviceLocation& where, PeerMemory* memory,
            Backend space);
  ~PeerLinks();
  PeerLinks(const PeerLinks&) = delete;
  PeerLinks& operator=(const PeerLinks&) = delete;

  // How this rank's memory reaches `rank`'s (None for MPI_PROC_NULL, and for
  // every rank when nothing can be linked).
  DeviceLink link_to(int rank) const;

  // Collective over `comm`. `neighbours`: the ranks this one exchanges with
  // (repeats, MPI_PROC_NULL and this rank itself allowed; only the linked
  // ones count). Shares `buffers` (every rank of a GPU passes as many; their
  // initial values written) and this rank's block `cells`, and maps the
  // linked neighbours' buffers. False when the links are off: then
  // fallback() says why, and nothing is mapped.
  bool connect(HaloSync sync, const std::vector<int>& neighbours, const std::vector<void*>& buffers,
               Int3 cells);
  // A linked neighbour after connect (nullptr for others and for this rank).
  const Peer* peer(int rank) const;

  // Whether this rank orders its steps with linked ranks, and how.
  bool active() const { return ordering_ != HaloOrdering::None; }
  HaloOrdering ordering() const { return ordering_; }
  bool gpu_waits() const { return signals_ != nullptr; }
  const std::string& fallback() const { return fallback_; }

  // Marks `finished` steps done and holds later work until every linked
  // neighbour has: enqueued on the GPU (run at once on the host) under
  // GPU-side waits, else the device synchronised and a barrier of the GPU's
  // ranks. Nothing when not active().
  void rendezvous(std::uint64_t finished);
  // The same as data, for a kernel that runs it in a block of its own once
  // its writes are done; empty without GPU-side waits.
  StepHandshake handshake(std::uint64_t finished) const;
  // How long a GPU-side wait may take, and the step every rank has finished
  // when `finished` was marked (StreamSignals::set_peer_wait).
  void set_peer_wait(const PeerWait& wait, std::uint64_t finished);
  // Collective over the GPU's linked ranks: the device synchronised, and no
  // neighbour reads this rank's memory after it.
  void quiesce();

  PeerMemory& memory() const { return *memory_; }

 private:
  // Shares and maps; "" or why not (this rank's reason).
  std::string share_and_map(HaloSync sync, const std::vector<int>& linked, bool any_linked,
                            const std::vector<void*>& buffers, Int3 cells);
  void off() noexcept;

  MPI_Comm comm_;
  HaloTransport mode_;
  PeerMemory* memory_;
  Backend space_;
  int me_ = 0;
  std::vector<DeviceLocation> where_;  // by rank; empty: nothing linked
  MPI_Comm gpu_comm_ = MPI_COMM_NULL;
  HaloOrdering ordering_ = HaloOrdering::None;
  std::unique_ptr<StreamSignals> signals_;  // GPU-side waits
  std::vector<Peer> peers_;
  std::vector<void*> mapped_;
  std::string fallback_;
};

}  // namespace mpsfw
