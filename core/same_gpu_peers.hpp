#pragma once
// The same-GPU half of the halo exchange. Each rank maps its same-GPU
// neighbours' two field buffers into its own address space once (CUDA IPC)
// and copies their planes device to device into its halo, on the stream that
// then updates the field: no host copy, no MPI message. Step s reads buffer
// s%2 and writes the other, so two orderings keep it correct: a rank pulls
// from a neighbour only after the neighbour's step s-1 writes, and writes only
// after its neighbours' step s-1 pulls out of the buffer it overwrites. Under
// MPS the streams order themselves through step counters in device memory
// (StreamSignals): the CPU never waits. Without MPS, or with
// MPSFW_HALO_SYNC=barrier, finish_step() waits for the device and for the
// GPU's other ranks instead (one host rendezvous a step).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "box_copy.hpp"
#include "decomposition.hpp"
#include "field_layout.hpp"
#include "halo_transport.hpp"
#include "peer_memory.hpp"
#include "stream_signals.hpp"

namespace mpsfw {

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
  void connect(HaloTransport mode, const std::string& gpu,
               const std::array<const double*, 2>& fields);

  // Faces pulled directly (the others go through MPI or are walls).
  FaceMask faces() const { return faces_; }
  // Whether this rank takes part in the per-step ordering (any direct face
  // on its GPU).
  bool active() const { return active_; }
  const std::string& fallback_reason() const { return fallback_; }
  // "GPU-side waits", "a host barrier", or "" when not active.
  const char* ordering() const;

  // Enqueues this step's pulls into `field` (one of the connected buffers).
  void pull(double* field);
  // After the step's last write to the field (host barrier in barrier mode).
  void finish_step();
  // Collective over the GPU's ranks: nobody reads this rank's fields after.
  void quiesce();

 private:
  // Maps the neighbours' buffers and plans the pulls; "" or why not.
  std::string map_neighbors(FaceMask faces, const std::array<const double*, 2>& fields);
  void unmap_neighbors() noexcept;
  int buffer_index(const double* field) const;

  MPI_Comm comm_;
  std::array<int, kFaces> neighbors_;
  FieldLayout layout_;
  Backend space_;
  PeerMemory& memory_;
  FaceMask faces_ = 0;
  bool active_ = false;
  std::array<const double*, 2> fields_{};
  std::array<PeerBoxList, 2> pulls_;  // into each of the two buffers
  std::vector<void*> mapped_;          // neighbours' buffers mapped here
  MPI_Comm gpu_comm_ = MPI_COMM_NULL;  // the ranks on this rank's GPU
  std::unique_ptr<StreamSignals> signals_;  // null: host barrier mode
  std::uint64_t steps_ = 0;                 // pulls enqueued
  std::string fallback_;
};

}  // namespace mpsfw
