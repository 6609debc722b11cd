#pragma once
// Exchange of the six face halos of a one-cell-halo field (enough for a
// 7-point stencil: edges and corners are not sent). Split in two so the caller
// can compute the interior while messages are in flight:
//   start(u)  post nonblocking receives, pack faces (on the device), post sends
//   finish(u) wait, unpack into the halo
//   finish_step()  after the step's last write to either field
// With CUDA and an MPI that is not CUDA-aware, messages go through pinned host
// buffers; a CUDA-aware MPI gets the device buffers directly.
//
// Same-GPU neighbours (connect_direct_peers) skip MPI: the caller's update
// kernel pushes their planes device to device (CUDA IPC; DirectPeers has how
// and why). What goes which way, and how the GPU's ranks order their steps,
// is resolved once, at connect, into plan().
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "core/base/backend.hpp"
#include "core/comm/halo_transport.hpp"
#include "core/comm/neighbour_messages.hpp"
#include "core/comm/region_copy.hpp"
#include "core/comm/step_ordering.hpp"
#include "core/device/memory.hpp"
#include "core/device/peer_memory.hpp"
#include "core/device/timers.hpp"
#include "core/mesh/decomposition.hpp"
#include "core/mesh/field_layout.hpp"
#include "direct_peers.hpp"
#include "face_geometry.hpp"
#include "halo_push.hpp"

namespace mpsfw {

// The heat-style exchange of one field, resolved once when it connects
// (HaloExchange::connect_direct_peers); the solver asks, nothing else
// decides.
struct HaloPlan {
  FaceMask mpi = 0;       // faces exchanged as MPI messages (start, then finish)
  FaceMask pushed = 0;    // direct faces: the update writes them into the neighbours' halos
  FaceMask peer_gpu = 0;  // of `pushed`, those whose neighbour is on another GPU (peer access)
  // The update writes the pushed planes before the rest of the block, and
  // runs the step's handshake in the same launch: worth it when other ranks
  // wait for those planes and no face waits for MPI, and only where the
  // backend's kernels have that launch (resolved once, at connect).
  bool boundary_first = false;
  HaloOrdering ordering = HaloOrdering::None;
  std::string fallback;  // why same-GPU faces use MPI ("" when none do)
};

class HaloExchange {
 public:
  // `peer_memory` shares the fields with same-GPU neighbours (tests pass
  // host shared memory).
  HaloExchange(const CartDecomposition& decomposition, FieldLayout layout, Backend space,
               bool cuda_aware_mpi, PeerMemory& peer_memory = cuda_ipc_memory());
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  // Collective over the decomposition's communicator; call once, after both
  // fields hold their initial values. `fields` are the two buffers the caller
  // alternates between, swapping after every step like every other rank;
  // the first step reads fields[0]. `where` is this rank's device_location()
  // (no GPU on the host, where Ipc is an error). Faces whose neighbour is on
  // the same GPU or a peer GPU switch from MPI to pushes, as `mode` allows
  // (see HaloTransport), ordered as `sync` allows (step_ordering.hpp). Throws
  // AgreedError on every rank when `mode` is Ipc and that is impossible
  // somewhere. The caller's update then writes the new boundary planes
  // through pushes(next), and finish_step() follows every step's writes.
  // `boundary_first_launch`: whether the caller's kernels have the
  // boundary-first launch with the handshake inside (HaloPlan::boundary_first
  // is only ever set where they do).
  void connect_direct_peers(HaloTransport mode, HaloSync sync, const DeviceLocation& where,
                            const std::array<double*, 2>& fields, bool boundary_first_launch);
  // What goes which way, and how the step is ordered (before connect: every
  // neighbour through MPI).
  const HaloPlan& plan() const { return plan_; }

  void start(double* field);
  void finish(double* field);
  // Push: where the writer of `next` puts the new values of its boundary
  // planes (empty when there is nothing to push).
  const HaloPushes& pushes(const double* next) const { return peers_.pushes(next); }
  // Push under GPU-side waits: the step's handshake, for a caller that runs
  // it in its pushing launch (DirectPeers::step_handshake).
  StepHandshake step_handshake() const { return peers_.step_handshake(); }
  // After the step's writes to the field: under GPU-side waits enqueues the
  // end-of-step handshake unless the caller ran it; with the host barrier
  // waits for the device and the GPU's other ranks.
  void finish_step(Handshake handshake = Handshake::Enqueue);
  // After connect_direct_peers: how long a GPU-side wait for a neighbour may
  // take before the job ends naming it (run.peer_wait_seconds), and the step
  // every rank has finished now, for that message.
  void set_peer_wait(const PeerWait& wait) { peers_.set_peer_wait(wait); }
  // Collective over the ranks of this rank's GPU: returns once nobody reads
  // this rank's fields any more. Call before freeing or rewriting them from
  // the host (the end of a run).
  void quiesce();

  // Where the time goes, as phases "halo post" (MPI receives and sends
  // posted), "halo pack" (faces packed and, when staged, copied to the host:
  // waits for the device), "halo wait"
  // (MPI completion: waits for the neighbours), "halo unpack" (copied back
  // and unpacked) and "halo sync" (finish_step, quiesce).
  void set_timers(PhaseTimers* timers) {
    timers_ = timers;
    messages_.set_timers(timers);
  }

  bool staged_through_host() const { return messages_.staged(); }
  // Faces filled by finish() (MPI messages) and by the neighbours' pushes;
  // faces in neither keep their wall values.
  FaceMask mpi_faces() const { return plan_.mpi; }
  FaceMask direct_faces() const { return plan_.pushed; }
  // Why faces that could have been direct use MPI ("" when none did).
  const std::string& fallback_reason() const { return plan_.fallback; }

 private:
  // Sends and receives the faces in `faces` through MPI, the others not.
  void use_mpi_for(FaceMask faces);

  MPI_Comm comm_;
  FieldLayout layout_;
  Backend space_;
  std::array<int, kFaces> neighbors_;
  FaceMask neighbor_faces_ = 0;          // faces with a neighbour (not a wall)
  PackedBoxes send_boxes_, recv_boxes_;  // MPI faces only, in face order
  // All faces' messages in one buffer per direction: one pack launch, one
  // unpack launch and (staged) one copy each way per exchange.
  NeighbourMessages messages_;
  bool in_flight_ = false;

  bool connected_ = false;
  DirectPeers peers_;
  HaloPlan plan_;

  PhaseTimers untimed_;  // where phases go when nobody asked for them
  PhaseTimers* timers_ = &untimed_;
};

}  // namespace mpsfw
