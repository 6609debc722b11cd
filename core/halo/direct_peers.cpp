#include "direct_peers.hpp"

#include <algorithm>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/mpi_check.hpp"
#include "core/peer_memory.hpp"
#include "face_geometry.hpp"

namespace mpsfw {

DirectPeers::DirectPeers(MPI_Comm comm, const std::array<int, kFaces>& neighbors,
                         FieldLayout layout, Backend space, PeerMemory& memory)
    : comm_(comm), neighbors_(neighbors), layout_(layout), space_(space), memory_(memory) {}

DirectPeers::~DirectPeers() {
  unmap_neighbors();
  if (gpu_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm_);
}

namespace {

// What a rank tells the other ranks on its GPU: who it is, its block, and
// handles for its two buffers.
struct PeerRecord {
  int rank = -1;
  int cells[3] = {};
  PeerMemoryHandle field[2];
  PeerMemoryHandle signals;  // its step counter (GPU-side waits)
};

}  // namespace

void DirectPeers::connect(HaloTransport mode, HaloSync sync, const DeviceLocation& where,
                          const std::array<double*, 2>& fields) {
  agree_on_error(comm_,
                 mode == HaloTransport::Ipc && where.gpu.empty()
                     ? "run.halo = ipc needs the CUDA backend (this rank computes on the host)"
                     : "");
  if (mode == HaloTransport::Mpi) return;
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me));
  const std::vector<DeviceLocation> all = device_locations(comm_, as_transport_allows(where, mode));
  const FaceMask faces = direct_faces(neighbors_, me, all);
  const FaceMask other_gpu = direct_faces(neighbors_, me, all, DeviceLink::PeerGpu);
  gpu_comm_ = linked_communicator(comm_, all);

  const std::string failed = first_error(comm_, map_neighbors(faces, other_gpu, sync, fields));
  if (!failed.empty()) {
    unmap_neighbors();
    ordering_ = HaloOrdering::None;
    first_fill_ = {};
    pushes_ = {};
    if (mode == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
    fallback_ = failed;
    return;
  }
  faces_ = faces;
  peer_gpu_faces_ = other_gpu;
  fields_ = {fields[0], fields[1]};
  if (faces_ != 0) {
    // Nobody pushed into the first buffer's halo: fill it once. The
    // neighbours overwrite what this reads no earlier than their second step,
    // which waits for this rank's first.
    copy_from_peers(space_, fields[0], layout_, first_fill_);
    memory::synchronize(space_);
  }
}

std::string DirectPeers::map_neighbors(FaceMask faces, FaceMask other_gpu, HaloSync sync,
                                       const std::array<double*, 2>& fields) {
  if (gpu_comm_ == MPI_COMM_NULL) return "";
  // Every rank on the GPU joins the per-step rendezvous if any of them
  // pushes; if none does, nothing is shared.
  int any = faces != 0 ? 1 : 0, all_any = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_LOR, gpu_comm_));
  if (all_any == 0) return "";
  // Six faces: never more neighbours than a handshake waits for.
  ordering_ = agree_ordering(gpu_comm_, sync, can_wait_on_gpu(space_, kFaces));
  const bool signals_everywhere = ordering_ == HaloOrdering::GpuWaits;
  // Every buffer must hold its initial values before a neighbour may read it.
  std::string error;
  PeerRecord mine;
  try {
    memory::synchronize(space_);
    MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &mine.rank));
    for (int d = 0; d < 3; ++d) mine.cells[d] = layout_.n[d];
    for (int b = 0; b < 2; ++b) mine.field[b] = memory_.share(fields[static_cast<size_t>(b)]);
    if (signals_everywhere) {
      signals_ = std::make_unique<StreamSignals>(memory_);
      mine.signals = signals_->handle();
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  int group = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm_, &group));
  std::vector<PeerRecord> records(static_cast<size_t>(group));
  MPSFW_MPI_CHECK(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, records.data(), sizeof mine, MPI_BYTE,
                                gpu_comm_));
  // A failed export anywhere on the GPU leaves a record nobody may open.
  int ok = error.empty() ? 1 : 0, all_ok = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, gpu_comm_));
  if (!error.empty()) return "rank " + std::to_string(mine.rank) + ": " + error;
  if (!all_ok) return "";  // the failing rank says why

  // Map each neighbour once, however many faces it sits across.
  std::vector<std::pair<int, std::array<double*, 2>>> mapped_by_rank;
  try {
    for (int f = 0; f < kFaces; ++f) {
      if (!(faces & (1u << f))) continue;
      const int n = neighbors_[static_cast<size_t>(f)];
      std::array<double*, 2> theirs = fields;
      FieldLayout peer = layout_;
      if (n != mine.rank) {
        const auto rec = std::find_if(records.begin(), records.end(),
                                      [n](const PeerRecord& r) { return r.rank == n; });
        if (rec == records.end())
          throw Error("neighbour rank " + std::to_string(n) + " is not linked to this GPU");
        peer = FieldLayout({rec->cells[0], rec->cells[1], rec->cells[2]});
        const auto known = std::find_if(mapped_by_rank.begin(), mapped_by_rank.end(),
                                        [n](const auto& m) { return m.first == n; });
        if (known != mapped_by_rank.end()) {
          theirs = known->second;
        } else {
          for (int b = 0; b < 2; ++b) {
            mapped_.push_back(memory_.map(rec->field[b]));
            theirs[static_cast<size_t>(b)] = static_cast<double*>(mapped_.back());
          }
          if (signals_) signals_->add_neighbor(rec->signals, n);
          mapped_by_rank.emplace_back(n, theirs);
        }
      }
      first_fill_.add(face_pull(layout_, peer, theirs[0], f));
      for (int b = 0; b < 2; ++b) {
        double* buffer = theirs[static_cast<size_t>(b)];
        HaloPushes& push = pushes_[static_cast<size_t>(b)];
        push.face[f] = push_target(layout_, f, peer, buffer);
        push.faces |= 1u << f;
        push.other_gpu = push.other_gpu || ((other_gpu >> f) & 1u);
      }
    }
  } catch (const std::exception& e) {
    return "rank " + std::to_string(mine.rank) + " could not map a neighbour's field: " + e.what();
  }
  return "";
}

void DirectPeers::unmap_neighbors() noexcept {
  for (void* p : mapped_) memory_.unmap(p);
  mapped_.clear();
  signals_.reset();
}

int DirectPeers::buffer_index(const double* field) const {
  if (field == fields_[0]) return 0;
  if (field == fields_[1]) return 1;
  throw Error(
      "same-GPU halos: the field is neither of the two buffers given to "
      "connect_direct_peers");
}

const HaloPushes& DirectPeers::pushes(const double* next) const {
  if (faces_ == 0) return no_pushes_;
  return pushes_[static_cast<size_t>(buffer_index(next))];
}

StepHandshake DirectPeers::step_handshake() const {
  if (!signals_) return {};
  return signals_->handshake(steps_ + 1);
}

void DirectPeers::finish_step(Handshake handshake) {
  if (!active()) return;
  ++steps_;
  if (signals_) {
    if (handshake == Handshake::Enqueue) signals_->wait_for_neighbors(steps_);
    return;
  }
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

void DirectPeers::set_peer_wait(const PeerWait& wait) {
  if (signals_) signals_->set_peer_wait(wait, steps_);
}

void DirectPeers::quiesce() {
  if (!active()) return;
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

}  // namespace mpsfw
