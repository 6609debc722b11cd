#pragma once
// Exchange of the six face halos of a one-cell-halo field (enough for a
// 7-point stencil: edges and corners are not sent). Split in two so the caller
// can compute the interior while messages are in flight:
//   start(u)  post nonblocking receives, pack faces (on the device), post sends
//   finish(u) wait, unpack into the halo
// With CUDA and an MPI that is not CUDA-aware, messages go through pinned host
// buffers; a CUDA-aware MPI gets the device buffers directly.
#include <mpi.h>

#include <array>

#include "backend.hpp"
#include "box_copy.hpp"
#include "decomposition.hpp"
#include "field_layout.hpp"
#include "memory.hpp"
#include "timers.hpp"

namespace mpsfw {

// The interior plane a face sends, and the halo plane it receives into.
Box face_send_plane(const FieldLayout& layout, int face);
Box face_halo_plane(const FieldLayout& layout, int face);

class HaloExchange {
 public:
  HaloExchange(const CartDecomposition& decomposition, FieldLayout layout, Backend space,
               bool cuda_aware_mpi);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  void start(const double* field);
  void finish(double* field);
  // start() then finish(), for callers with nothing to overlap.
  void exchange(double* field);

  // Where the time of start() and finish() goes, as phases "halo post" (MPI
  // receives and sends posted), "halo pack" (faces packed and, when staged,
  // copied to the host: waits for the device), "halo wait" (MPI completion:
  // waits for the neighbours) and "halo unpack" (copied back and unpacked).
  void set_timers(PhaseTimers* timers) { timers_ = timers; }

  bool staged_through_host() const { return staged_; }
  // Faces that receive data from a neighbour (the others keep wall values).
  FaceMask exchanged_faces() const;
  // Bytes sent per exchange by this rank.
  std::int64_t bytes_per_exchange() const;

 private:
  // Where each face's message sits in the send and receive buffers.
  struct FaceSlot {
    int neighbor = MPI_PROC_NULL;
    std::int64_t offset = 0, cells = 0;
  };

  MPI_Comm comm_;
  FieldLayout layout_;
  Backend space_;
  bool staged_;
  std::array<FaceSlot, kFaces> slots_;
  BoxList send_boxes_, recv_boxes_;  // exchanged faces only, in face order
  // All faces' messages in one buffer per direction: one pack launch, one
  // unpack launch and (staged) one copy each way per exchange.
  Array<double> send_, recv_;             // in the field's space
  double* send_host_ = nullptr;           // pinned staging (CUDA without CUDA-aware MPI)
  double* recv_host_ = nullptr;
  std::array<MPI_Request, 2 * kFaces> requests_;
  bool in_flight_ = false;
  PhaseTimers untimed_;  // where phases go when nobody asked for them
  PhaseTimers* timers_ = &untimed_;
};

}  // namespace mpsfw
