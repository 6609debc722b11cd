#include "halo_exchange.hpp"

#include "core/base/error.hpp"
#include "core/comm/region_copy.hpp"
#include "core/parallel/mpi_check.hpp"

namespace mpsfw {

static std::array<int, kFaces> neighbors_of(const CartDecomposition& d) {
  std::array<int, kFaces> n{};
  for (int f = 0; f < kFaces; ++f) n[static_cast<size_t>(f)] = d.neighbour_across(f);
  return n;
}

HaloExchange::HaloExchange(const CartDecomposition& decomposition, FieldLayout layout,
                           Backend space, bool cuda_aware_mpi, PeerMemory& peer_memory)
    : comm_(decomposition.comm()),
      layout_(layout),
      space_(space),
      neighbors_(neighbors_of(decomposition)),
      messages_(comm_, space, cuda_aware_mpi),
      peers_(comm_, neighbors_, layout, space, peer_memory) {
  for (int f = 0; f < kFaces; ++f) {
    if (neighbors_[static_cast<size_t>(f)] != MPI_PROC_NULL) neighbor_faces_ |= 1u << f;
  }
  use_mpi_for(neighbor_faces_);
  plan_.mpi = neighbor_faces_;
}

HaloExchange::~HaloExchange() = default;

void HaloExchange::use_mpi_for(FaceMask faces) {
  send_boxes_ = PackedBoxes();
  recv_boxes_ = PackedBoxes();
  std::vector<NeighbourMessages::Message> receives, sends;
  for (int f = 0; f < kFaces; ++f) {
    if (!(faces & (1u << f))) continue;
    // A message is tagged with the face of the receiver's halo it fills, so
    // the two messages between the same pair of ranks (periodic, 1 or 2
    // ranks across) cannot be confused.
    const int n = neighbors_[static_cast<size_t>(f)];
    const std::int64_t at = send_boxes_.cells * std::int64_t{sizeof(double)};
    const std::int64_t bytes = face_send_plane(layout_, f).cells() * std::int64_t{sizeof(double)};
    receives.push_back({n, f, at, bytes});
    sends.push_back({n, opposite_face(f), at, bytes});
    send_boxes_.add(face_send_plane(layout_, f));
    recv_boxes_.add(face_halo_plane(layout_, f));
  }
  messages_.plan(receives, sends);
}

void HaloExchange::connect_direct_peers(HaloTransport mode, HaloSync sync,
                                        const DeviceLocation& where,
                                        const std::array<double*, 2>& fields,
                                        bool boundary_first_launch) {
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
  plan_.boundary_first = boundary_first_launch && pushes_to_others && plan_.mpi == 0;
}

void HaloExchange::start(double* field) {
  if (in_flight_) throw Error("HaloExchange::start called twice without finish");
  messages_.post_receives();
  if (send_boxes_.count > 0) {
    PhaseTimers::Scope t(*timers_, "halo pack");
    copy_regions(
        space_, ScalarType::Float64,
        pack_copies(field, layout_, send_boxes_, static_cast<double*>(messages_.send_buffer())));
  }
  messages_.send();
  in_flight_ = true;
}

void HaloExchange::finish(double* field) {
  if (!in_flight_) throw Error("HaloExchange::finish called without start");
  in_flight_ = false;
  messages_.wait();
  if (recv_boxes_.count == 0) return;
  PhaseTimers::Scope t(*timers_, "halo unpack");
  copy_regions(space_, ScalarType::Float64,
               unpack_copies(field, layout_, recv_boxes_,
                             static_cast<const double*>(messages_.receive_buffer())));
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
