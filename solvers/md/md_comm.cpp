#include "md_comm.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/mpi_check.hpp"

namespace mpsfw::md {
namespace {

// Receives the message with `tag` from rank `from`, whatever its length (the
// length is the count: one message, no count sent ahead): `buffer(n)` gives
// room for n items of `type`; returns n.
template <class Buffer>
long receive_sized(MPI_Comm comm, int from, int tag, MPI_Datatype type, Buffer buffer) {
  MPI_Message message;
  MPI_Status status;
  MPSFW_MPI_CHECK(MPI_Mprobe(from, tag, comm, &message, &status));
  int n = 0;
  MPSFW_MPI_CHECK(MPI_Get_count(&status, type, &n));
  MPSFW_MPI_CHECK(MPI_Mrecv(buffer(n), n, type, &message, MPI_STATUS_IGNORE));
  return n;
}

// The tag of ghost list `list`'s positions (at a rebuild and between them).
int ghost_tag(int list) { return 40 + list; }

int byte_count(std::size_t atoms) {
  const std::size_t bytes = atoms * sizeof(AtomRecord);
  if (bytes > INT_MAX)
    throw Error("MD: a message of more than 2 GiB between neighbours; use more ranks");
  return static_cast<int>(bytes);
}

std::array<int, 6> face_neighbors(const CartDecomposition& decomposition) {
  std::array<int, 6> n;
  for (int f = 0; f < 6; ++f) n[static_cast<size_t>(f)] = decomposition.neighbor(f);
  return n;
}

int position_count(long atoms) {
  if (3 * atoms > INT_MAX)
    throw Error("MD: a ghost message of more than 2^31 numbers; use more ranks");
  return static_cast<int>(3 * atoms);
}

}  // namespace

MdComm::MdComm(const CartDecomposition& decomposition, const Subdomain& domain, double ghost_width,
               HaloTransport halo, HaloSync sync, const DeviceLocation& where, PeerMemory* memory)
    : decomposition_(decomposition),
      domain_(domain),
      ghost_width_(ghost_width),
      same_gpu_(std::make_unique<SameGpuGhosts>(decomposition.comm(), face_neighbors(decomposition),
                                                halo, sync, where, memory)) {
  for (int d = 0; d < 3; ++d) {
    plan_[2 * d].to = plan_[2 * d + 1].from = decomposition_.neighbor(2 * d);
    plan_[2 * d].from = plan_[2 * d + 1].to = decomposition_.neighbor(2 * d + 1);
  }
}

void MdComm::migrate(MdStore& store, long step) const {
  MPI_Comm comm = decomposition_.comm();
  const Int3 coords = decomposition_.coords(), dims = decomposition_.rank_grid();
  // Atoms that moved too far in one step: counted here, agreed below, so
  // every rank stops with one message whatever the rank count.
  long lost = 0, far = 0;
  std::int64_t first_far = INT64_MAX;
  // Along a dimension with one rank, migrating is folding into the box, in place.
  bool alone[3];
  for (int d = 0; d < 3; ++d) alone[d] = dims[d] == 1;
  if (alone[0] || alone[1] || alone[2]) lost = store.fold_periodic(alone, domain_.box);
  for (int d = 0; d < 3; ++d) {
    if (alone[d]) continue;
    std::vector<AtomRecord> to_low, to_high;
    store.take_leaving(d, domain_.lo[d], domain_.hi[d], &to_low, &to_high);
    // Through the periodic edge an atom arrives as its image inside the box.
    if (coords[d] == 0) {
      for (AtomRecord& a : to_low) a.x[d] = across_periodic_edge(a.x[d], domain_.box[d]);
    }
    if (coords[d] == dims[d] - 1) {
      for (AtomRecord& a : to_high) a.x[d] = across_periodic_edge(a.x[d], domain_.box[d]);
    }
    // Both directions at once, one message each (its length is the count).
    const int low = decomposition_.neighbor(2 * d), high = decomposition_.neighbor(2 * d + 1);
    MPI_Request sent[2];
    MPSFW_MPI_CHECK(MPI_Isend(to_low.data(), byte_count(to_low.size()), MPI_BYTE, low, 10 + 2 * d,
                              comm, &sent[0]));
    MPSFW_MPI_CHECK(MPI_Isend(to_high.data(), byte_count(to_high.size()), MPI_BYTE, high,
                              11 + 2 * d, comm, &sent[1]));
    std::vector<AtomRecord> from_high, from_low;
    const auto into = [](std::vector<AtomRecord>& atoms) {
      return [&atoms](int bytes) {
        atoms.resize(static_cast<size_t>(bytes) / sizeof(AtomRecord));
        return static_cast<void*>(atoms.data());
      };
    };
    receive_sized(comm, high, 10 + 2 * d, MPI_BYTE, into(from_high));
    receive_sized(comm, low, 11 + 2 * d, MPI_BYTE, into(from_low));
    MPSFW_MPI_CHECK(MPI_Waitall(2, sent, MPI_STATUSES_IGNORE));
    from_high.insert(from_high.end(), from_low.begin(), from_low.end());
    for (const AtomRecord& a : from_high) {
      if (!(a.x[d] >= domain_.lo[d] && a.x[d] < domain_.hi[d])) {  // also NaN
        ++far;
        first_far = std::min(first_far, a.id);
      }
    }
    store.add_owned(from_high);
  }
  long counts[2] = {lost, far}, total[2];
  std::int64_t first = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&first_far, &first, 1, MPI_INT64_T, MPI_MIN, comm));
  if (total[0] + total[1] > 0) {
    const auto atoms = [](long n) { return std::to_string(n) + (n == 1 ? " atom" : " atoms"); };
    const std::string what = total[1] > 0 ? atoms(total[1]) + " (id " + std::to_string(first) +
                                                " first) moved farther than one subdomain"
                                          : atoms(total[0]) + " moved more than a box length";
    throw AgreedError("MD: " + what + " in one step (step " + std::to_string(step) +
                      "): the time step is too large or the system blew up");
  }
}

void MdComm::exchange_ghosts(MdStore& store) {
  MPI_Comm comm = decomposition_.comm();
  store.clear_ghosts();
  const Int3 coords = decomposition_.coords(), dims = decomposition_.rank_grid();
  const int me = decomposition_.rank();
  long ghosts = 0;
  for (int d = 0; d < 3; ++d) {
    // Across the periodic edge an image is shifted by the box length.
    const double low_shift = coords[d] == 0 ? domain_.box[d] : 0;
    const double high_shift = coords[d] == dims[d] - 1 ? -domain_.box[d] : 0;
    long counts[2];
    store.select_sends(d, domain_.lo[d] + ghost_width_, domain_.hi[d] - ghost_width_, low_shift,
                       high_shift, counts);
    // Both sides' positions in flight at once, one message each (its length
    // is the count). What the high neighbour sends low lands first, then what
    // the low one sends high.
    MPI_Request sent[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    const double* packed[2] = {nullptr, nullptr};
    plan_[2 * d].send_count = counts[0];
    plan_[2 * d + 1].send_count = counts[1];
    if (plan_[2 * d].to != me) store.pack_both_sides(d, packed);  // else its own images, below
    for (int side = 0; side < 2; ++side) {
      const GhostTransfer& t = plan_[2 * d + side];
      if (t.to == me) continue;
      MPSFW_MPI_CHECK(MPI_Isend(packed[side], position_count(t.send_count), MPI_DOUBLE, t.to,
                                ghost_tag(2 * d + side), comm, &sent[side]));
    }
    for (int side = 0; side < 2; ++side) {
      GhostTransfer& t = plan_[2 * d + side];
      const int list = 2 * d + side;
      t.receive_first = ghosts;
      if (t.from == me) {
        t.receive_count = t.send_count;
        store.copy_sends_to_ghosts(list, t.receive_first);
      } else {
        t.receive_count = receive_sized(comm, t.from, ghost_tag(list), MPI_DOUBLE,
                                        [&](int n) { return store.receive_buffer(list, n / 3); }) /
                          3;
        store.unpack_ghosts(list, t.receive_first, t.receive_count);
      }
      ghosts += t.receive_count;
    }
    MPSFW_MPI_CHECK(MPI_Waitall(2, sent, MPI_STATUSES_IGNORE));
  }
  same_gpu_->connect(store, plan_);
}

bool MdComm::alone() const { return decomposition_.size() == 1; }

void MdComm::update_ghosts(MdStore& store) const {
  if (alone()) {  // all ghosts are own images
    store.refresh_own_images();
    return;
  }
  for (int d = 0; d < 3; ++d) {
    if (same_gpu_->push_stage(store, d)) continue;  // pushes and the rendezvous, one launch
    for (int side = 0; side < 2; ++side) transfer(store, 2 * d + side);
    same_gpu_->stage_done(store);  // the next stage sends ghosts this one wrote
  }
}

void MdComm::transfer(MdStore& store, int list) const {
  const int tag = ghost_tag(list);
  const GhostTransfer& t = plan_[list];
  const int me = decomposition_.rank();
  if (t.to == me && t.from == me) {  // one rank across: its own images
    store.copy_sends_to_ghosts(list, t.receive_first);
    return;
  }
  const bool push = same_gpu_->pushes(list);
  const bool pushed = same_gpu_->pushed_to_us(list);
  if (push) same_gpu_->push(store, list);
  if (push && pushed) return;
  const double* out = push ? nullptr : store.pack_sends(list);
  double* in = pushed ? nullptr : store.receive_buffer(list, t.receive_count);
  MPSFW_MPI_CHECK(MPI_Sendrecv(
      out, push ? 0 : position_count(t.send_count), MPI_DOUBLE, push ? MPI_PROC_NULL : t.to, tag,
      in, pushed ? 0 : position_count(t.receive_count), MPI_DOUBLE, pushed ? MPI_PROC_NULL : t.from,
      tag, decomposition_.comm(), MPI_STATUS_IGNORE));
  if (!pushed) store.unpack_ghosts(list, t.receive_first, t.receive_count);
}

std::string MdComm::ghost_path() const {
  if (alone()) return "copied within the rank (one rank: its own periodic images)";
  return same_gpu_->description();
}

CellGrid MdComm::cell_grid() const {
  CellGrid g;
  for (int d = 0; d < 3; ++d) {
    const double extent = domain_.hi[d] - domain_.lo[d] + 2 * ghost_width_;
    g.origin[d] = domain_.lo[d] - ghost_width_;
    g.count[d] = std::max(3, static_cast<int>(std::floor(extent / ghost_width_)));
    g.width[d] = extent / g.count[d];
  }
  return g;
}

}  // namespace mpsfw::md
