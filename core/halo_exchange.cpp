#include "halo_exchange.hpp"

#include "box_copy.hpp"
#include "error.hpp"
#include "mpi_check.hpp"

namespace mpsfw {

static Box face_plane(const FieldLayout& layout, int face, bool halo) {
  Box b = layout.interior();
  const int d = face_dim(face);
  const int at = face_is_high(face) ? (halo ? layout.n[d] + 1 : layout.n[d]) : (halo ? 0 : 1);
  b.lo[d] = at;
  b.hi[d] = at + 1;
  return b;
}

Box face_send_plane(const FieldLayout& layout, int face) { return face_plane(layout, face, false); }
Box face_halo_plane(const FieldLayout& layout, int face) { return face_plane(layout, face, true); }

HaloExchange::HaloExchange(const CartDecomposition& decomposition, FieldLayout layout,
                           Backend space, bool cuda_aware_mpi)
    : comm_(decomposition.comm()),
      layout_(layout),
      space_(space),
      staged_(space == Backend::Cuda && !cuda_aware_mpi) {
  requests_.fill(MPI_REQUEST_NULL);
  for (int f = 0; f < kFaces; ++f) {
    FaceBuffers& fb = faces_[static_cast<size_t>(f)];
    fb.neighbor = decomposition.neighbor(f);
    fb.send_box = face_send_plane(layout, f);
    fb.recv_box = face_halo_plane(layout, f);
    if (fb.neighbor == MPI_PROC_NULL) continue;
    const auto cells = static_cast<std::size_t>(fb.send_box.cells());
    fb.send = Array<double>(space, cells);
    fb.recv = Array<double>(space, cells);
    if (staged_) {
      fb.send_host = static_cast<double*>(memory::allocate_pinned(space, cells * sizeof(double)));
      fb.recv_host = static_cast<double*>(memory::allocate_pinned(space, cells * sizeof(double)));
    }
  }
}

HaloExchange::~HaloExchange() {
  if (in_flight_) MPI_Waitall(2 * kFaces, requests_.data(), MPI_STATUSES_IGNORE);
  for (FaceBuffers& fb : faces_) {
    memory::release_pinned(space_, fb.send_host);
    memory::release_pinned(space_, fb.recv_host);
  }
}

FaceMask HaloExchange::exchanged_faces() const {
  FaceMask mask = 0;
  for (int f = 0; f < kFaces; ++f) {
    if (faces_[static_cast<size_t>(f)].neighbor != MPI_PROC_NULL) mask |= 1u << f;
  }
  return mask;
}

std::int64_t HaloExchange::bytes_per_exchange() const {
  std::int64_t bytes = 0;
  for (const FaceBuffers& fb : faces_) {
    if (fb.neighbor != MPI_PROC_NULL) bytes += fb.send_box.cells() * 8;
  }
  return bytes;
}

void HaloExchange::start(const double* field) {
  if (in_flight_) throw Error("HaloExchange::start called twice without finish");
  // A message is tagged with the face of the receiver's halo it fills, so the
  // two messages between the same pair of ranks (periodic, 1 or 2 ranks across)
  // cannot be confused.
  for (int f = 0; f < kFaces; ++f) {
    FaceBuffers& fb = faces_[static_cast<size_t>(f)];
    if (fb.neighbor == MPI_PROC_NULL) continue;
    void* into = staged_ ? static_cast<void*>(fb.recv_host) : static_cast<void*>(fb.recv.data());
    MPSFW_MPI_CHECK(MPI_Irecv(into, static_cast<int>(fb.recv.size()), MPI_DOUBLE, fb.neighbor, f,
                              comm_, &requests_[static_cast<size_t>(f)]));
  }
  for (FaceBuffers& fb : faces_) {
    if (fb.neighbor == MPI_PROC_NULL) continue;
    pack_box(space_, field, layout_, fb.send_box, fb.send.data());
    if (staged_) {
      memory::copy(fb.send_host, Backend::Host, fb.send.data(), space_,
                   fb.send.size() * sizeof(double));
    }
  }
  // Device-pointer sends must not start before the pack kernels are done.
  if (space_ == Backend::Cuda && !staged_) memory::synchronize(space_);
  for (int f = 0; f < kFaces; ++f) {
    FaceBuffers& fb = faces_[static_cast<size_t>(f)];
    if (fb.neighbor == MPI_PROC_NULL) continue;
    const void* from =
        staged_ ? static_cast<const void*>(fb.send_host) : static_cast<const void*>(fb.send.data());
    MPSFW_MPI_CHECK(MPI_Isend(from, static_cast<int>(fb.send.size()), MPI_DOUBLE, fb.neighbor,
                              opposite_face(f), comm_,
                              &requests_[static_cast<size_t>(kFaces + f)]));
  }
  in_flight_ = true;
}

void HaloExchange::finish(double* field) {
  if (!in_flight_) throw Error("HaloExchange::finish called without start");
  MPSFW_MPI_CHECK(MPI_Waitall(2 * kFaces, requests_.data(), MPI_STATUSES_IGNORE));
  in_flight_ = false;
  for (FaceBuffers& fb : faces_) {
    if (fb.neighbor == MPI_PROC_NULL) continue;
    if (staged_) {
      memory::copy(fb.recv.data(), space_, fb.recv_host, Backend::Host,
                   fb.recv.size() * sizeof(double));
    }
    unpack_box(space_, field, layout_, fb.recv_box, fb.recv.data());
  }
}

void HaloExchange::exchange(double* field) {
  start(field);
  finish(field);
}

}  // namespace mpsfw
