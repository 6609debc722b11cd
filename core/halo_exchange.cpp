#include "halo_exchange.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "box_copy.hpp"
#include "collective.hpp"
#include "error.hpp"
#include "mpi_check.hpp"
#include "peer_memory.hpp"

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

PeerBox face_pull(const FieldLayout& mine, const FieldLayout& peer, const double* theirs,
                  int face) {
  // The neighbour across my face f sends its plane of the opposite face.
  return {theirs, peer, face_send_plane(peer, opposite_face(face)), face_halo_plane(mine, face)};
}

HaloExchange::HaloExchange(const CartDecomposition& decomposition, FieldLayout layout,
                           Backend space, bool cuda_aware_mpi)
    : comm_(decomposition.comm()),
      layout_(layout),
      space_(space),
      staged_(space == Backend::Cuda && !cuda_aware_mpi) {
  requests_.fill(MPI_REQUEST_NULL);
  FaceMask all = 0;
  for (int f = 0; f < kFaces; ++f) {
    neighbors_[static_cast<size_t>(f)] = decomposition.neighbor(f);
    if (decomposition.neighbor(f) != MPI_PROC_NULL) all |= 1u << f;
  }
  use_mpi_for(all);
}

HaloExchange::~HaloExchange() {
  if (in_flight_) MPI_Waitall(2 * kFaces, requests_.data(), MPI_STATUSES_IGNORE);
  memory::release_pinned(space_, send_host_);
  memory::release_pinned(space_, recv_host_);
  unmap_neighbors();
  if (gpu_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gpu_comm_);
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

namespace {

// What a rank tells the other ranks on its GPU: who it is, its block, and
// handles for its two buffers.
struct PeerRecord {
  int rank = -1;
  int cells[3] = {};
  PeerMemoryHandle field[2];
  PeerMemoryHandle signals;  // its step counter (GPU-side waits)
};

// GPU-side waits under MPS, unless the user asked for the host barrier
// (MPSFW_HALO_SYNC=barrier, e.g. to compare the two).
bool want_stream_signals() {
  const char* env = std::getenv("MPSFW_HALO_SYNC");
  if (env != nullptr && std::string(env) == "barrier") return false;
  return StreamSignals::available();
}

std::vector<std::string> all_gpu_names(MPI_Comm comm, const std::string& mine) {
  constexpr size_t kWidth = 64;
  if (mine.size() >= kWidth) throw Error("GPU name too long to exchange: " + mine);
  int size = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &size));
  char padded[kWidth] = {};
  std::memcpy(padded, mine.data(), mine.size());
  std::vector<char> all(kWidth * static_cast<size_t>(size));
  MPSFW_MPI_CHECK(MPI_Allgather(padded, kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, comm));
  std::vector<std::string> names;
  for (int r = 0; r < size; ++r) names.emplace_back(&all[kWidth * static_cast<size_t>(r)]);
  return names;
}

}  // namespace

void HaloExchange::connect_same_gpu_peers(HaloTransport mode, const std::string& gpu,
                                          const std::array<const double*, 2>& fields) {
  if (connected_) throw Error("HaloExchange::connect_same_gpu_peers called twice");
  if (in_flight_) throw Error("HaloExchange::connect_same_gpu_peers during an exchange");
  connected_ = true;
  agree_on_error(comm_, mode == HaloTransport::Ipc && space_ != Backend::Cuda
                            ? "run.halo = ipc needs the CUDA backend (this rank computes on the host)"
                            : "");
  if (mode == HaloTransport::Mpi) return;
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &me));
  const std::vector<std::string> gpus =
      all_gpu_names(comm_, space_ == Backend::Cuda ? gpu : std::string());
  const FaceMask faces = same_gpu_faces(neighbors_, me, gpus);
  // One communicator per GPU, named by its lowest rank.
  const auto first = std::find(gpus.begin(), gpus.end(), gpus[static_cast<size_t>(me)]);
  const int color = gpus[static_cast<size_t>(me)].empty()
                        ? MPI_UNDEFINED
                        : static_cast<int>(first - gpus.begin());
  MPSFW_MPI_CHECK(MPI_Comm_split(comm_, color, me, &gpu_comm_));

  const std::string failed = first_error(comm_, map_neighbors(faces, fields));
  if (!failed.empty()) {
    unmap_neighbors();
    sync_each_step_ = false;
    pulls_ = {};
    if (mode == HaloTransport::Ipc) throw AgreedError("run.halo = ipc: " + failed);
    fallback_ = failed;
    return;
  }
  direct_faces_ = faces;
  fields_ = fields;
  FaceMask mpi = 0;
  for (int f = 0; f < kFaces; ++f) {
    if (neighbors_[static_cast<size_t>(f)] != MPI_PROC_NULL) mpi |= 1u << f;
  }
  use_mpi_for(mpi & ~faces);
}

std::string HaloExchange::map_neighbors(FaceMask faces,
                                        const std::array<const double*, 2>& fields) {
  if (gpu_comm_ == MPI_COMM_NULL) return "";
  // Every rank on the GPU joins the per-step rendezvous if any of them pulls;
  // if none does, nothing is shared.
  int any = faces != 0 ? 1 : 0, all_any = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_LOR, gpu_comm_));
  sync_each_step_ = all_any != 0;
  if (!sync_each_step_) return "";
  // One ordering mode for the whole GPU.
  int signals_here = want_stream_signals() ? 1 : 0, signals_everywhere = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&signals_here, &signals_everywhere, 1, MPI_INT, MPI_LAND,
                                gpu_comm_));
  // Every buffer must hold its initial values before a neighbour may read it.
  std::string error;
  PeerRecord mine;
  try {
    memory::synchronize(space_);
    MPSFW_MPI_CHECK(MPI_Comm_rank(comm_, &mine.rank));
    for (int d = 0; d < 3; ++d) mine.cells[d] = layout_.n[d];
    for (int b = 0; b < 2; ++b) mine.field[b] = export_device_memory(fields[static_cast<size_t>(b)]);
    if (signals_everywhere) {
      signals_ = std::make_unique<StreamSignals>();
      mine.signals = signals_->handle();
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  int group = 0;
  MPSFW_MPI_CHECK(MPI_Comm_size(gpu_comm_, &group));
  std::vector<PeerRecord> records(static_cast<size_t>(group));
  MPSFW_MPI_CHECK(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, records.data(), sizeof mine,
                                MPI_BYTE, gpu_comm_));
  // A failed export anywhere on the GPU leaves a record nobody may open.
  int ok = error.empty() ? 1 : 0, all_ok = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, gpu_comm_));
  if (!error.empty()) return "rank " + std::to_string(mine.rank) + ": " + error;
  if (!all_ok) return "";  // the failing rank says why

  // Map each neighbour once, however many faces it sits across.
  std::vector<std::pair<int, std::array<const double*, 2>>> mapped_by_rank;
  try {
    for (int f = 0; f < kFaces; ++f) {
      if (!(faces & (1u << f))) continue;
      const int n = neighbors_[static_cast<size_t>(f)];
      std::array<const double*, 2> theirs = fields;
      FieldLayout peer = layout_;
      if (n != mine.rank) {
        const auto rec = std::find_if(records.begin(), records.end(),
                                      [n](const PeerRecord& r) { return r.rank == n; });
        if (rec == records.end()) throw Error("neighbour rank " + std::to_string(n) + " is not on this GPU");
        peer = FieldLayout({rec->cells[0], rec->cells[1], rec->cells[2]});
        const auto known = std::find_if(mapped_by_rank.begin(), mapped_by_rank.end(),
                                        [n](const auto& m) { return m.first == n; });
        if (known != mapped_by_rank.end()) {
          theirs = known->second;
        } else {
          for (int b = 0; b < 2; ++b) {
            mapped_.push_back(open_peer_memory(rec->field[b]));
            theirs[static_cast<size_t>(b)] = static_cast<const double*>(mapped_.back());
          }
          if (signals_) signals_->add_neighbor(rec->signals);
          mapped_by_rank.emplace_back(n, theirs);
        }
      }
      for (int b = 0; b < 2; ++b) {
        pulls_[static_cast<size_t>(b)].add(
            face_pull(layout_, peer, theirs[static_cast<size_t>(b)], f));
      }
    }
  } catch (const std::exception& e) {
    return "rank " + std::to_string(mine.rank) + " could not map a neighbour's field: " + e.what();
  }
  return "";
}

void HaloExchange::unmap_neighbors() noexcept {
  for (void* p : mapped_) close_peer_memory(p);
  mapped_.clear();
  signals_.reset();
}

const char* HaloExchange::direct_sync() const {
  if (!sync_each_step_) return "";
  return signals_ ? "GPU-side waits" : "a host barrier";
}

int HaloExchange::buffer_index(const double* field) const {
  if (field == fields_[0]) return 0;
  if (field == fields_[1]) return 1;
  throw Error("HaloExchange: the field is neither of the two buffers given to "
              "connect_same_gpu_peers");
}

FaceMask HaloExchange::mpi_faces() const {
  FaceMask mask = 0;
  for (int f = 0; f < kFaces; ++f) {
    if (slots_[static_cast<size_t>(f)].neighbor != MPI_PROC_NULL) mask |= 1u << f;
  }
  return mask;
}

std::int64_t HaloExchange::bytes_per_exchange() const {
  return send_boxes_.cells * static_cast<std::int64_t>(sizeof(double));
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
      memory::copy(send_host_, Backend::Host, send_.data(), space_,
                   send_.size() * sizeof(double));
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
  if (sync_each_step_) {
    PhaseTimers::Scope t(*timers_, "halo pull");
    const PeerBoxList& pulls = pulls_[static_cast<size_t>(buffer_index(field))];
    // Neighbours done with the previous step have written what this step
    // pulls and pulled what this step overwrites.
    const std::uint64_t finished = steps_++;
    if (signals_) signals_->wait_for_neighbors(finished);
    copy_from_peers(space_, field, layout_, pulls);
  }
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

void HaloExchange::finish_step() {
  if (!sync_each_step_) return;
  PhaseTimers::Scope t(*timers_, "halo sync");
  if (signals_) return;  // the next start() tells the neighbours
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

void HaloExchange::quiesce() {
  if (!sync_each_step_) return;
  PhaseTimers::Scope t(*timers_, "halo sync");
  memory::synchronize(space_);
  MPSFW_MPI_CHECK(MPI_Barrier(gpu_comm_));
}

void HaloExchange::exchange(double* field) {
  start(field);
  finish(field);
}

}  // namespace mpsfw
