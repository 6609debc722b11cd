#pragma once
// The same-GPU half of the halo exchange. Each rank maps its same-GPU
// neighbours' two field buffers into its own address space once (CUDA IPC);
// halo planes then move device to device, no host copy, no MPI message, in
// one of two ways (DirectHalo):
//   Pull  start() copies the neighbours' planes into this rank's halo, on the
//         stream that then updates the field;
//   Push  the step's update writes the new boundary planes into the
//         neighbours' halos as well (HaloPushes): no copy kernel.
// Step s reads buffer s%2 and writes the other, so two orderings keep it
// correct: a halo is read only after the neighbour's step s-1 has written
// what it holds, and a buffer is overwritten only after the neighbours' step
// s-1 is done reading it. Under MPS the streams order themselves through step
// counters in device memory (StreamSignals): the CPU never waits. Without
// MPS, or with MPSFW_HALO_SYNC=barrier, finish_step() waits for the device
// and for the GPU's other ranks instead (one host rendezvous a step).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/box_copy.hpp"
#include "core/decomposition.hpp"
#include "core/field_layout.hpp"
#include "core/peer_memory.hpp"
#include "halo_push.hpp"
#include "halo_transport.hpp"
#include "step_handshake.hpp"
#include "stream_signals.hpp"

namespace mpsfw {

enum class DirectHalo { Pull, Push };

// Who runs a push step's handshake: finish_step() in a kernel of its own, or
// the caller, in the launch that pushes, once its pushes are written
// (step_handshake()).
enum class Handshake { Enqueue, RunByCaller };

class SameGpuPeers {
 public:
  // `neighbors[f]`: the rank across face f in `comm`, MPI_PROC_NULL at walls.
  // `memory` shares and maps the field buffers (CUDA IPC but in tests).
  SameGpuPeers(MPI_Comm comm, const std::array<int, kFaces>& neighbors, FieldLayout layout,
               Backend space, PeerMemory& memory);
  ~SameGpuPeers();
  SameGpuPeers(const SameGpuPeers&) = delete;
  SameGpuPeers& operator=(const SameGpuPeers&) = delete;

  // Collective over `comm`; see HaloExchange::connect_same_gpu_peers.
  void connect(HaloTransport mode, const std::string& gpu, const std::array<double*, 2>& fields,
               DirectHalo how);

  // Faces moved directly (the others go through MPI or are walls).
  FaceMask faces() const { return faces_; }
  // Whether this rank takes part in the per-step ordering (any direct face
  // on its GPU).
  bool active() const { return active_; }
  DirectHalo how() const { return how_; }
  const std::string& fallback_reason() const { return fallback_; }
  // "GPU-side waits", "a host barrier", or "" when not active.
  const char* ordering() const;

  // Pull: enqueues this step's pulls into `field` (one of the connected
  // buffers). Push: nothing (the neighbours pushed).
  void pull(double* field);
  // Push: where the step's update puts the new boundary planes of
  // `next` (one of the buffers). Empty in pull mode.
  const HaloPushes& pushes(const double* next) const;
  // Push under GPU-side waits: this step's handshake as data, for a caller
  // that runs it itself (mark_and_wait) once its pushes are written: it marks
  // them done and holds what follows until the neighbours' pushes of this
  // step are done too. Empty otherwise.
  StepHandshake step_handshake() const;
  // After the step's writes to the field: the end-of-step handshake (push,
  // unless the caller ran it) or, in barrier mode, the host barrier.
  void finish_step(Handshake handshake = Handshake::Enqueue);
  // Collective over the GPU's ranks: nobody reads this rank's fields after.
  void quiesce();

 private:
  // Maps the neighbours' buffers and plans the pulls; "" or why not.
  std::string map_neighbors(FaceMask faces, const std::array<double*, 2>& fields);
  void unmap_neighbors() noexcept;
  int buffer_index(const double* field) const;

  MPI_Comm comm_;
  std::array<int, kFaces> neighbors_;
  FieldLayout layout_;
  Backend space_;
  PeerMemory& memory_;
  FaceMask faces_ = 0;
  bool active_ = false;
  DirectHalo how_ = DirectHalo::Pull;
  std::array<const double*, 2> fields_{};
  std::array<PeerBoxList, 2> pulls_;  // into each of the two buffers
  std::array<HaloPushes, 2> pushes_;  // out of each of the two buffers
  HaloPushes no_pushes_;
  std::vector<void*> mapped_;               // neighbours' buffers mapped here
  MPI_Comm gpu_comm_ = MPI_COMM_NULL;       // the ranks on this rank's GPU
  std::unique_ptr<StreamSignals> signals_;  // null: host barrier mode
  std::uint64_t steps_ = 0;                 // pulls enqueued (pull), steps finished (push)
  std::string fallback_;
};

}  // namespace mpsfw
