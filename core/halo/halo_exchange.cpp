#include "halo_exchange.hpp"

#include "core/box_copy.hpp"
#include "core/error.hpp"
#include "core/mpi_check.hpp"

namespace mpsfw {

static std::array<int, kFaces> neighbors_of(const CartDecomposition& d) {
  std::array<int, kFaces> n{};
  for (int f = 0; f < kFaces; ++f) n[static_cast<size_t>(f)] = d.neighbor(f);
  return n;
}

HaloExchange::HaloExchange(const CartDecomposition& decomposition, FieldLayout layout,
                           Backend space, bool cuda_aware_mpi, PeerMemory& peer_memory)
    : comm_(decomposition.comm()),
      layout_(layout),
      space_(space),
      staged_(space == Backend::Cuda && !cuda_aware_mpi),
      neighbors_(neighbors_of(decomposition)),
      peers_(comm_, neighbors_, layout, space, peer_memory) {
  requests_.fill(MPI_REQUEST_NULL);
  for (int f = 0; f < kFaces; ++f) {
    if (neighbors_[static_cast<size_t>(f)] != MPI_PROC_NULL) neighbor_faces_ |= 1u << f;
  }
  use_mpi_for(neighbor_faces_);
  plan_.mpi = neighbor_faces_;
}

HaloExchange::~HaloExchange() {
  if (in_flight_) MPI_Waitall(2 * kFaces, requests_.data(), MPI_STATUSES_IGNORE);
  memory::release_pinned(space_, send_host_);
  memory::release_pinned(space_, recv_host_);
}

void HaloExchange::use_mpi_for(FaceMask faces) {
  send_boxes_ = BoxList();
  recv_boxes_ = BoxList();
  for (int f = 0; f < kFaces; ++f) {
    FaceSlot& slot = slots_[static_cast<size_t>(f)];
    slot = FaceSlot();
    if (!(faces & (1u << f))) continue;
    slot.neighbor = neighbors_[static_cast<size_t>(f)];
    slot.offset = send_boxes_.cells;
    slot.cells = face_send_plane(layout_, f).cells();
    mpi_count(slot.cells, "a halo face's cells", "use more ranks");  // refused here, not mid-run
    send_boxes_.add(face_send_plane(layout_, f));
    recv_boxes_.add(face_halo_plane(layout_, f));
  }
  const auto total = static_cast<size_t>(send_boxes_.cells);
  send_ = Array<double>(space_, total);
  recv_ = Array<double>(space_, total);
  memory::release_pinned(space_, send_host_);
  memory::release_pinned(space_, recv_host_);
  send_host_ = recv_host_ = nullptr;
  if (staged_) {
    send_host_ = static_cast<double*>(memory::allocate_pinned(space_, total * sizeof(double)));
    recv_host_ = static_cast<double*>(memory::allocate_pinned(space_, total * sizeof(double)));
  }
}

void HaloExchange::connect_direct_peers(HaloTransport mode, HaloSync sync,
                                        const DeviceLocation& where,
                                        const std::array<double*, 2>& fields) {
  if (connected_) throw Error("HaloExchange::connect_direct_peers called twice");
  if (in_flight_) throw Error("HaloExchange::connect_direct_peers during an exchange");
  connected_ = true;
  peers_.connect(mode, sync, where, fields);
  plan_.pushed = peers_.faces();
  plan_.peer_gpu = peers_.peer_gpu_faces();
  plan_.mpi = neighbor_faces_ & ~plan_.pushed;
  plan_.ordering = peers_.ordering();
  plan_.fallback = peers_.fallback_reason();
  use_mpi_for(plan_.mpi);
  // Boundary first pays off when other ranks wait for the planes; a rank
  // that only wraps onto itself (periodic, one rank across) waits for nobody
  // and keeps the whole block in the update's own blocks (pushed last).
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me));
  bool pushes_to_others = false;
  for (int f = 0; f < kFaces; ++f) {
    if (((plan_.pushed >> f) & 1u) && neighbors_[static_cast<size_t>(f)] != me) {
      pushes_to_others = true;
    }
  }
  plan_.boundary_first = pushes_to_others && plan_.mpi == 0;
}

void HaloExchange::start(double* field) {
  if (in_flight_) throw Error("HaloExchange::start called twice without finish");
  double* recv_at = staged_ ? recv_host_ : recv_.data();
  double* send_at = staged_ ? send_host_ : send_.data();
  // A message is tagged with the face of the receiver's halo it fills, so the
  // two messages between the same pair of ranks (periodic, 1 or 2 ranks across)
  // cannot be confused.
  {
    PhaseTimers::Scope t(*timers_, "halo post");
    for (int f = 0; f < kFaces; ++f) {
      const FaceSlot& slot = slots_[static_cast<size_t>(f)];
      if (slot.neighbor == MPI_PROC_NULL) continue;
      MPSFW_MPI_CHECK(MPI_Irecv(recv_at + slot.offset, static_cast<int>(slot.cells), MPI_DOUBLE,
                                slot.neighbor, f, comm_, &requests_[static_cast<size_t>(f)]));
    }
  }
  if (send_boxes_.count > 0) {
    PhaseTimers::Scope t(*timers_, "halo pack");
    pack_boxes(space_, field, layout_, send_boxes_, send_.data());
    if (staged_) {
      memory::copy(send_host_, Backend::Host, send_.data(), space_, send_.size() * sizeof(double));
    } else if (space_ == Backend::Cuda) {
      memory::synchronize(space_);  // device-pointer sends must not start before the pack is done
    }
  }
  {
    PhaseTimers::Scope t(*timers_, "halo post");
    for (int f = 0; f < kFaces; ++f) {
      const FaceSlot& slot = slots_[static_cast<size_t>(f)];
      if (slot.neighbor == MPI_PROC_NULL) continue;
      MPSFW_MPI_CHECK(MPI_Isend(send_at + slot.offset, static_cast<int>(slot.cells), MPI_DOUBLE,
                                slot.neighbor, opposite_face(f), comm_,
                                &requests_[static_cast<size_t>(kFaces + f)]));
    }
  }
  in_flight_ = true;
}

void HaloExchange::finish(double* field) {
  if (!in_flight_) throw Error("HaloExchange::finish called without start");
  if (send_boxes_.count == 0) {
    in_flight_ = false;
    return;
  }
  {
    PhaseTimers::Scope t(*timers_, "halo wait");
    MPSFW_MPI_CHECK(MPI_Waitall(2 * kFaces, requests_.data(), MPI_STATUSES_IGNORE));
  }
  in_flight_ = false;
  PhaseTimers::Scope t(*timers_, "halo unpack");
  if (staged_) {
    memory::copy(recv_.data(), space_, recv_host_, Backend::Host, recv_.size() * sizeof(double));
  }
  unpack_boxes(space_, field, layout_, recv_boxes_, recv_.data());
}

void HaloExchange::finish_step(Handshake handshake) {
  if (!peers_.active()) return;
  PhaseTimers::Scope t(*timers_, "halo sync");
  peers_.finish_step(handshake);
}

void HaloExchange::quiesce() {
  if (!peers_.active()) return;
  PhaseTimers::Scope t(*timers_, "halo sync");
  peers_.quiesce();
}

}  // namespace mpsfw
