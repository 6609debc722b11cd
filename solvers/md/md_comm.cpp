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

// Tags of list `list`'s atoms at a migration, its ghost positions (at a
// rebuild and between them) and its count at a rebuild: one tag per list,
// since several lists go to the same rank where an axis has one or two ranks.
int migrate_tag(int list) { return 100 + list; }
int ghost_tag(int list) { return 200 + list; }
int count_tag(int list) { return 400 + list; }

constexpr std::uint32_t kAllLists = (std::uint32_t{1} << kGhostLists) - 1;

int byte_count(std::size_t atoms) {
  return mpi_count(static_cast<std::int64_t>(atoms * sizeof(AtomRecord)),
                   "MD: atoms between neighbours (bytes)", "use more ranks");
}

int position_count(long atoms) {
  return mpi_count(3 * static_cast<std::int64_t>(atoms), "MD: ghost positions (numbers)",
                   "use more ranks");
}

// Whether moving by `step` along d from coordinate c crosses the periodic edge.
bool wraps(int c, int step, int ranks) { return c + step < 0 || c + step >= ranks; }

std::array<int, kGhostLists> list_neighbors(const CartDecomposition& decomposition) {
  std::array<int, kGhostLists> n;
  for (int list = 0; list < kGhostLists; ++list) {
    n[static_cast<size_t>(list)] =
        decomposition.rank_at({list_offset(list, 0), list_offset(list, 1), list_offset(list, 2)});
  }
  return n;
}

bool has(std::uint32_t lists, int list) { return (lists >> list & 1u) != 0; }

}  // namespace

MdComm::MdComm(const CartDecomposition& decomposition, const Subdomain& domain, double ghost_width,
               HaloTransport halo, HaloSync sync, const DeviceLocation& where, PeerMemory* memory)
    : decomposition_(decomposition),
      domain_(domain),
      ghost_width_(ghost_width),
      same_gpu_(std::make_unique<SameGpuGhosts>(decomposition.comm(), list_neighbors(decomposition),
                                                halo, sync, where, memory)) {
  const std::array<int, kGhostLists> to = list_neighbors(decomposition);
  for (int list = 0; list < kGhostLists; ++list) {
    plan_[list].to = to[static_cast<size_t>(list)];
    // What arrives as list `list` comes from the neighbour the other way.
    plan_[list].from = to[static_cast<size_t>(opposite_list(list))];
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
  bool alone_along[3];
  for (int d = 0; d < 3; ++d) alone_along[d] = dims[d] == 1;
  if (alone_along[0] || alone_along[1] || alone_along[2])
    lost = store.fold_periodic(alone_along, domain_.box);
  // The lists that cross only dimensions with several ranks carry atoms.
  const auto migrates = [&](int list) {
    for (int d = 0; d < 3; ++d) {
      if (alone_along[d] && list_offset(list, d) != 0) return false;
    }
    return true;
  };
  if (!alone()) {
    std::vector<AtomRecord> leaving, out[kGhostLists];
    store.take_leaving(domain_.lo, domain_.hi, &leaving);
    for (AtomRecord& a : leaving) {
      int offset[3];
      for (int d = 0; d < 3; ++d) {
        offset[d] = a.x[d] < domain_.lo[d] ? -1 : a.x[d] >= domain_.hi[d] ? 1 : 0;
        // Through the periodic edge an atom arrives as its image inside the box.
        if (offset[d] != 0 && wraps(coords[d], offset[d], dims[d]))
          a.x[d] = across_periodic_edge(a.x[d], domain_.box[d]);
      }
      const int list = list_of_offset(offset[0], offset[1], offset[2]);
      if (migrates(list)) out[list].push_back(a);  // else outside the box: `lost` counts it
    }
    // Every list in flight at once, one message each (its length is the count).
    MPI_Request sent[kGhostLists];
    int sending = 0;
    for (int list = 0; list < kGhostLists; ++list) {
      if (!migrates(list)) continue;
      MPSFW_MPI_CHECK(MPI_Isend(out[list].data(), byte_count(out[list].size()), MPI_BYTE,
                                plan_[list].to, migrate_tag(list), comm, &sent[sending++]));
    }
    std::vector<AtomRecord> arrived, part;
    for (int list = 0; list < kGhostLists; ++list) {
      if (!migrates(list)) continue;
      receive_sized(comm, plan_[list].from, migrate_tag(list), MPI_BYTE, [&part](int bytes) {
        part.resize(static_cast<size_t>(bytes) / sizeof(AtomRecord));
        return static_cast<void*>(part.data());
      });
      arrived.insert(arrived.end(), part.begin(), part.end());
    }
    MPSFW_MPI_CHECK(MPI_Waitall(sending, sent, MPI_STATUSES_IGNORE));
    for (const AtomRecord& a : arrived) {
      if (!domain_.contains(a.x)) {
        ++far;
        first_far = std::min(first_far, a.id);
      }
    }
    store.add_owned(arrived);
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
  GhostBands bands;
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = domain_.lo[d] + ghost_width_;
    bands.high[d] = domain_.hi[d] - ghost_width_;
  }
  // Across the periodic edge an image is shifted by the box length.
  for (int list = 0; list < kGhostLists; ++list) {
    for (int d = 0; d < 3; ++d) {
      const int s = list_offset(list, d);
      bands.shift[list][d] = s != 0 && wraps(coords[d], s, dims[d]) ? -s * domain_.box[d] : 0.0;
    }
  }
  long counts[kGhostLists];
  store.select_sends(bands, counts);
  // The counts first (one small message per list), so that every rank knows
  // where each list lands before any position moves.
  const std::uint32_t own = own_lists(), others = kAllLists & ~own;
  long arriving[kGhostLists] = {};
  MPI_Request requests[2 * kGhostLists];
  int n = 0;
  for (int list = 0; list < kGhostLists; ++list) {
    if (!has(others, list)) continue;
    MPSFW_MPI_CHECK(MPI_Irecv(&arriving[list], 1, MPI_LONG, plan_[list].from, count_tag(list), comm,
                              &requests[n++]));
    MPSFW_MPI_CHECK(MPI_Isend(&counts[list], 1, MPI_LONG, plan_[list].to, count_tag(list), comm,
                              &requests[n++]));
  }
  MPSFW_MPI_CHECK(MPI_Waitall(n, requests, MPI_STATUSES_IGNORE));
  long ghosts = 0;  // in list order
  for (int list = 0; list < kGhostLists; ++list) {
    GhostTransfer& t = plan_[list];
    t.send_count = counts[list];
    t.receive_first = ghosts;
    t.receive_count = has(own, list) ? counts[list] : arriving[list];  // its own list comes back
    ghosts += t.receive_count;
  }
  store.reserve_ghosts(ghosts);
  // Ranks whose memory reaches each other push the positions (no host copy);
  // the rest go through MPI as between rebuilds.
  same_gpu_->connect(store, plan_);
  move_positions(store);
}

bool MdComm::alone() const { return decomposition_.size() == 1; }

std::uint32_t MdComm::own_lists() const {
  const int me = decomposition_.rank();
  std::uint32_t own = 0;
  for (int list = 0; list < kGhostLists; ++list) {
    if (plan_[list].to == me) own |= std::uint32_t{1} << list;
  }
  return own;
}

void MdComm::update_ghosts(MdStore& store) const {
  if (alone()) {  // all ghosts are own images
    store.refresh_own_images();
    return;
  }
  move_positions(store);
}

void MdComm::move_positions(MdStore& store) const {
  const std::uint32_t own = own_lists();
  std::uint32_t sends = 0, receives = 0;
  for (int list = 0; list < kGhostLists; ++list) {
    if (has(own, list)) continue;
    if (!same_gpu_->pushes(list)) sends |= std::uint32_t{1} << list;
    if (!same_gpu_->pushed_to_us(list)) receives |= std::uint32_t{1} << list;
  }
  // Pushes and the rendezvous with the ranks that push to us first: one launch.
  same_gpu_->push_all(store);
  if (sends != 0 || receives != 0) send_and_receive(store, sends, receives);
  if (own != 0) copy_own(store, own);
}

void MdComm::send_and_receive(MdStore& store, std::uint32_t sends, std::uint32_t receives) const {
  MPI_Comm comm = decomposition_.comm();
  const double* packed[kGhostLists] = {};
  if (sends != 0) store.pack_sends(sends, packed);
  double* in = receives != 0 ? store.ghost_receive_buffer(store.ghosts()) : nullptr;
  MPI_Request requests[2 * kGhostLists];
  int n = 0;
  for (int list = 0; list < kGhostLists; ++list) {
    const GhostTransfer& t = plan_[list];
    if (has(receives, list)) {
      MPSFW_MPI_CHECK(MPI_Irecv(in + 3 * t.receive_first, position_count(t.receive_count),
                                MPI_DOUBLE, t.from, ghost_tag(list), comm, &requests[n++]));
    }
    if (has(sends, list)) {
      MPSFW_MPI_CHECK(MPI_Isend(packed[list], position_count(t.send_count), MPI_DOUBLE, t.to,
                                ghost_tag(list), comm, &requests[n++]));
    }
  }
  MPSFW_MPI_CHECK(MPI_Waitall(n, requests, MPI_STATUSES_IGNORE));
  unpack(store, receives);
}

void MdComm::unpack(MdStore& store, std::uint32_t lists) const {
  // Adjacent lists' slots are adjacent: one copy per run of lists.
  for (int list = 0; list < kGhostLists;) {
    if (!has(lists, list)) {
      ++list;
      continue;
    }
    const long first = plan_[list].receive_first;
    long count = 0;
    for (; list < kGhostLists && has(lists, list); ++list) count += plan_[list].receive_count;
    if (count > 0) store.unpack_ghosts(first, count);
  }
}

void MdComm::copy_own(MdStore& store, std::uint32_t own) const {
  long first[kGhostLists];
  for (int list = 0; list < kGhostLists; ++list) first[list] = plan_[list].receive_first;
  store.copy_sends_to_ghosts(own, first);
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
