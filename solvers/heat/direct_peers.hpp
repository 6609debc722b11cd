#pragma once
// The device-to-device half of heat's halo exchange. Each rank maps the two
// field buffers of its neighbours on the same GPU, or on a peer GPU of its
// node, into its own address space once (the peer-link protocol,
// peer_links.hpp); the step's update then writes the new boundary planes into
// the neighbours' halos as well (HaloPushes): no copy kernel, no host copy,
// no MPI message. The linked ranks order their steps as step_ordering.hpp
// describes: GPU-side waits under MPS, else a host barrier.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/backend.hpp"
#include "core/comm/halo_transport.hpp"
#include "core/comm/peer_links.hpp"
#include "core/comm/region_copy.hpp"
#include "core/comm/step_handshake.hpp"
#include "core/comm/step_ordering.hpp"
#include "core/device/peer_memory.hpp"
#include "core/mesh/decomposition.hpp"
#include "core/mesh/field_layout.hpp"
#include "halo_push.hpp"

namespace mpsfw {

// Who runs a push step's handshake: finish_step() in a kernel of its own, or
// the caller, in the launch that pushes, once its pushes are written
// (step_handshake()).
enum class Handshake { Enqueue, RunByCaller };

class DirectPeers {
 public:
  // `neighbors[f]`: the rank across face f in `comm`, MPI_PROC_NULL at walls.
  // `memory` shares and maps the field buffers (CUDA IPC but in tests).
  DirectPeers(MPI_Comm comm, const std::array<int, kFaces>& neighbors, FieldLayout layout,
              Backend space, PeerMemory& memory);
  ~DirectPeers();
  DirectPeers(const DirectPeers&) = delete;
  DirectPeers& operator=(const DirectPeers&) = delete;

  // Collective over `comm`; see HaloExchange::connect_direct_peers.
  void connect(HaloTransport mode, HaloSync sync, const DeviceLocation& where,
               const std::array<double*, 2>& fields);

  // Faces pushed directly (the others go through MPI or are walls), and
  // those of them whose neighbour is on another GPU.
  FaceMask faces() const { return faces_; }
  FaceMask peer_gpu_faces() const { return peer_gpu_faces_; }
  // Whether this rank takes part in the per-step ordering (any direct face
  // on its GPU).
  bool active() const { return links_ && links_->active(); }
  HaloOrdering ordering() const { return links_ ? links_->ordering() : HaloOrdering::None; }
  const std::string& fallback_reason() const;

  // Where the step's update puts the new boundary planes of `next` (one of
  // the buffers); empty without direct faces.
  const HaloPushes& pushes(const double* next) const;
  // Under GPU-side waits: this step's handshake as data, for a caller that
  // runs it itself (mark_and_wait) once its pushes are written: it marks
  // them done and holds what follows until the neighbours' pushes of this
  // step are done too. Empty otherwise.
  StepHandshake step_handshake() const;
  // After the step's writes to the field: the end-of-step handshake (unless
  // the caller ran it) or the host barrier.
  void finish_step(Handshake handshake = Handshake::Enqueue);
  // After connect: how long the GPU-side waits may take, and the step every
  // rank has finished now (see StreamSignals::set_peer_wait).
  void set_peer_wait(const PeerWait& wait);
  // Collective over the GPU's ranks: nobody reads this rank's fields after.
  void quiesce();

 private:
  // The pushes into the linked neighbours' buffers, and the first buffer's
  // halos to read once.
  void plan_pushes(FaceMask other_gpu, const std::array<double*, 2>& fields);
  int buffer_index(const double* field) const;

  MPI_Comm comm_;
  std::array<int, kFaces> neighbors_;
  FieldLayout layout_;
  Backend space_;
  PeerMemory& memory_;
  FaceMask faces_ = 0;
  FaceMask peer_gpu_faces_ = 0;
  std::array<const double*, 2> fields_{};
  RegionCopyList first_fill_;         // the first buffer's direct halos, read once at connect
  std::array<HaloPushes, 2> pushes_;  // out of each of the two buffers
  HaloPushes no_pushes_;
  std::unique_ptr<PeerLinks> links_;  // after connect
  std::uint64_t steps_ = 0;           // steps finished
};

}  // namespace mpsfw
