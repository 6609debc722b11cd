#include "particle_exchange.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

// Tags of list `list`'s particles at a migration, its ghost positions (at a
// rebuild and between them) and its counts: one tag per list, since several
// lists go to the same rank where an axis has one or two ranks.
int migrate_tag(int list) { return 100 + list; }
int ghost_tag(int list) { return 200 + list; }
int ghost_field_tag(int list) { return 600 + list; }
int ghost_sum_tag(int list) { return 700 + list; }
int count_tag(int list) { return 400 + list; }
int overflow_tag(int list) { return 500 + list; }

using Message = NeighbourMessages::Message;

constexpr std::uint32_t kAllLists = (std::uint32_t{1} << kNeighbours) - 1;

constexpr std::int64_t kPositionBytes = 3 * sizeof(double);  // a ghost's x, y, z

// Whether moving by `step` along d from coordinate c crosses the periodic edge.
bool wraps(int c, int step, int ranks) { return c + step < 0 || c + step >= ranks; }

std::array<int, kNeighbours> list_neighbors(const CartDecomposition& decomposition) {
  std::array<int, kNeighbours> n;
  for (int list = 0; list < kNeighbours; ++list) {
    n[static_cast<size_t>(list)] = decomposition.neighbour(list);
  }
  return n;
}

bool has(std::uint32_t lists, int list) { return (lists >> list & 1u) != 0; }

}  // namespace

ParticleExchange::ParticleExchange(const CartDecomposition& decomposition, const Subdomain& domain,
                                   double ghost_width, HaloTransport halo, HaloSync sync,
                                   const DeviceLocation& where, PeerMemory* memory,
                                   bool cuda_aware_mpi, ParticleNames names)
    : decomposition_(decomposition),
      domain_(domain),
      ghost_width_(ghost_width),
      cuda_aware_mpi_(cuda_aware_mpi),
      names_(std::move(names)),
      counts_and_records_(decomposition.comm(), Backend::Host, false),
      same_gpu_(std::make_unique<SameGpuGhosts>(decomposition.comm(), list_neighbors(decomposition),
                                                halo, sync, where, memory)) {
  const std::array<int, kNeighbours> to = list_neighbors(decomposition);
  for (int list = 0; list < kNeighbours; ++list) {
    plan_[list].to = to[static_cast<size_t>(list)];
    // What arrives as list `list` comes from the neighbour the other way.
    plan_[list].from = to[static_cast<size_t>(opposite_neighbour(list))];
  }
}

void ParticleExchange::migrate(ParticleStore& store, long step) {
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
  // The lists that cross only dimensions with several ranks carry particles.
  const auto migrates = [&](int list) {
    for (int d = 0; d < 3; ++d) {
      if (alone_along[d] && neighbour_step(list, d) != 0) return false;
    }
    return true;
  };
  if (!alone()) {
    const RecordLayout layout = store.record_layout();
    ParticleRecords leaving(layout);
    std::vector<ParticleRecords> out(kNeighbours, ParticleRecords(layout));
    store.take_leaving(domain_.lo, domain_.hi, &leaving);
    for (std::size_t i = 0; i < leaving.size(); ++i) {
      double* x = leaving.position(i);
      int offset[3];
      for (int d = 0; d < 3; ++d) {
        offset[d] = x[d] < domain_.lo[d] ? -1 : x[d] >= domain_.hi[d] ? 1 : 0;
        // Through the periodic edge a particle arrives as its image inside the box.
        if (offset[d] != 0 && wraps(coords[d], offset[d], dims[d]))
          x[d] = across_periodic_edge(x[d], domain_.box[d]);
      }
      const int list = neighbour_index({offset[0], offset[1], offset[2]});
      // Else outside the box: `lost` counts it.
      if (migrates(list)) out[static_cast<size_t>(list)].append(leaving.record(i));
    }
    std::uint32_t lists = 0;
    for (int list = 0; list < kNeighbours; ++list) {
      if (migrates(list)) lists |= std::uint32_t{1} << list;
    }
    const ParticleRecords arrived = exchange_leaving(lists, out);
    for (std::size_t i = 0; i < arrived.size(); ++i) {
      if (!domain_.contains(arrived.position(i))) {
        ++far;
        if (arrived.layout().id_offset >= 0) first_far = std::min(first_far, arrived.id(i));
      }
    }
    store.add_owned(arrived);
  }
  long counts[2] = {lost, far}, total[2];
  MPSFW_MPI_CHECK(MPI_Allreduce(counts, total, 2, MPI_LONG, MPI_SUM, comm));
  if (total[0] + total[1] > 0) {
    // Every rank is here (the totals are agreed): which atom to name.
    std::int64_t first = 0;
    MPSFW_MPI_CHECK(MPI_Allreduce(&first_far, &first, 1, MPI_INT64_T, MPI_MIN, comm));
    const auto count = [&](long n) {
      return std::to_string(n) + " " + (n == 1 ? names_.one : names_.many);
    };
    const std::string id = first < INT64_MAX ? " (id " + std::to_string(first) + " first)" : "";
    const std::string what = total[1] > 0
                                 ? count(total[1]) + id + " moved farther than one subdomain"
                                 : count(total[0]) + " moved more than a box length";
    throw AgreedError(names_.solver + ": " + what + " in one step (step " + std::to_string(step) +
                      "): the time step is too large or the system blew up");
  }
}

void ParticleExchange::exchange_ghosts(ParticleStore& store) {
  store.clear_ghosts();
  const Int3 coords = decomposition_.coords(), dims = decomposition_.rank_grid();
  GhostBands bands;
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = domain_.lo[d] + ghost_width_;
    bands.high[d] = domain_.hi[d] - ghost_width_;
  }
  // Across the periodic edge an image is shifted by the box length.
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) {
      const int s = neighbour_step(list, d);
      bands.shift[list][d] = s != 0 && wraps(coords[d], s, dims[d]) ? -s * domain_.box[d] : 0.0;
    }
  }
  long counts[kNeighbours];
  store.select_sends(bands, counts);
  // The counts first, so that every rank knows where each list lands before
  // any position moves.
  const std::uint32_t own = own_lists(), others = kAllLists & ~own;
  long arriving[kNeighbours] = {};
  exchange_counts(others, counts, arriving);
  long ghosts = 0;  // in list order
  for (int list = 0; list < kNeighbours; ++list) {
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
  plan_positions(store);
  move_positions(store, GhostReads::Over);  // migrate waited for every rank's device work
  fields_words_ = sums_words_ = 0;          // the ghost fields' messages follow the new plan
  update_ghost_fields(store);
}

bool ParticleExchange::alone() const { return decomposition_.size() == 1; }

std::uint32_t ParticleExchange::own_lists() const {
  const int me = decomposition_.rank();
  std::uint32_t own = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    if (plan_[list].to == me) own |= std::uint32_t{1} << list;
  }
  return own;
}

void ParticleExchange::update_ghosts(ParticleStore& store, GhostReads reads) const {
  if (alone()) {  // all ghosts are own images
    store.refresh_own_images();
    return;
  }
  move_positions(store, reads);
}

void ParticleExchange::exchange_counts(std::uint32_t lists, const long out[kNeighbours],
                                       long in[kNeighbours]) {
  std::vector<Message> receives, sends;
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    const std::int64_t at = list * static_cast<std::int64_t>(sizeof(long));
    receives.push_back({plan_[list].from, count_tag(list), at, sizeof(long)});
    sends.push_back({plan_[list].to, count_tag(list), at, sizeof(long)});
  }
  NeighbourMessages& m = counts_and_records_;
  m.plan(std::move(receives), std::move(sends));
  m.post_receives();
  long* sent = static_cast<long*>(m.send_buffer());
  for (int list = 0; list < kNeighbours; ++list) {
    if (has(lists, list)) sent[list] = out[list];
  }
  m.send();
  m.wait();
  const long* received = static_cast<const long*>(m.receive_buffer());
  for (int list = 0; list < kNeighbours; ++list) {
    if (has(lists, list)) in[list] = received[list];
  }
}

ParticleRecords ParticleExchange::exchange_leaving(std::uint32_t lists,
                                                   const std::vector<ParticleRecords>& out) {
  const RecordLayout layout = out.front().layout();
  const auto record_bytes = static_cast<std::int64_t>(layout.bytes);
  constexpr std::int64_t kCountBytes = sizeof(std::int64_t);  // a message's first word
  const auto sent_count = [&](int list) {
    return static_cast<long>(out[static_cast<size_t>(list)].size());
  };
  // First round: the count and as many records as both ends make room for.
  long room_in[kNeighbours] = {}, room_out[kNeighbours] = {}, in_count[kNeighbours] = {};
  std::int64_t in_at[kNeighbours] = {}, out_at[kNeighbours] = {};
  std::vector<Message> receives, sends;
  std::int64_t in_end = 0, out_end = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    room_in[list] = records_room(received_last_[list]);
    room_out[list] = records_room(sent_last_[list]);
    const std::int64_t in_bytes = kCountBytes + room_in[list] * record_bytes;
    const std::int64_t out_bytes =
        kCountBytes + std::min(sent_count(list), room_out[list]) * record_bytes;
    receives.push_back({plan_[list].from, migrate_tag(list), in_end, in_bytes});
    sends.push_back({plan_[list].to, migrate_tag(list), out_end, out_bytes});
    in_at[list] = in_end;
    out_at[list] = out_end;
    in_end += in_bytes;
    out_end += out_bytes;
  }
  NeighbourMessages& m = counts_and_records_;
  m.plan(std::move(receives), std::move(sends));
  m.post_receives();
  char* sent = static_cast<char*>(m.send_buffer());
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    const std::int64_t n = sent_count(list);
    std::memcpy(sent + out_at[list], &n, kCountBytes);
    const std::int64_t first = std::min<std::int64_t>(n, room_out[list]);
    if (first > 0)
      std::memcpy(sent + out_at[list] + kCountBytes, out[static_cast<size_t>(list)].data(),
                  static_cast<size_t>(first * record_bytes));
  }
  m.send();
  m.wait();
  const char* got = static_cast<const char*>(m.receive_buffer());
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    std::int64_t n = 0;
    std::memcpy(&n, got + in_at[list], kCountBytes);
    in_count[list] = static_cast<long>(n);
  }
  // Second round, only between the pairs whose records did not fit (both
  // ends know which): the rest.
  std::vector<Message> more_in, more_out;
  std::int64_t more_in_at[kNeighbours] = {};
  std::int64_t more_in_end = 0, more_out_end = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    if (in_count[list] > room_in[list]) {
      const std::int64_t bytes = (in_count[list] - room_in[list]) * record_bytes;
      more_in.push_back({plan_[list].from, overflow_tag(list), more_in_end, bytes});
      more_in_at[list] = more_in_end;
      more_in_end += bytes;
    }
    if (sent_count(list) > room_out[list]) {
      const std::int64_t bytes = (sent_count(list) - room_out[list]) * record_bytes;
      more_out.push_back({plan_[list].to, overflow_tag(list), more_out_end, bytes});
      more_out_end += bytes;
    }
  }
  std::vector<char> first_round;  // the second round reuses the buffers
  const char* more = nullptr;
  if (!more_in.empty() || !more_out.empty()) {
    first_round.assign(got, got + in_end);
    got = first_round.data();
    m.plan(std::move(more_in), std::move(more_out));
    m.post_receives();
    sent = static_cast<char*>(m.send_buffer());
    for (int list = 0; list < kNeighbours; ++list) {
      if (!has(lists, list) || sent_count(list) <= room_out[list]) continue;
      const size_t rest = static_cast<size_t>((sent_count(list) - room_out[list]) * record_bytes);
      std::memcpy(sent, out[static_cast<size_t>(list)].record(static_cast<size_t>(room_out[list])),
                  rest);
      sent += rest;
    }
    m.send();
    m.wait();
    more = static_cast<const char*>(m.receive_buffer());
  }
  // In list order, each list as it was sent.
  ParticleRecords arrived(layout);
  for (int list = 0; list < kNeighbours; ++list) {
    if (!has(lists, list)) continue;
    const long first = std::min(in_count[list], room_in[list]);
    arrived.append(got + in_at[list] + kCountBytes, static_cast<size_t>(first));
    if (in_count[list] > first)
      arrived.append(more + more_in_at[list], static_cast<size_t>(in_count[list] - first));
    received_last_[list] = in_count[list];
    sent_last_[list] = sent_count(list);
  }
  return arrived;
}

void ParticleExchange::plan_positions(const ParticleStore& store) {
  const std::uint32_t own = own_lists();
  mpi_sends_ = mpi_receives_ = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    if (has(own, list)) continue;
    if (!same_gpu_->pushes(list)) mpi_sends_ |= std::uint32_t{1} << list;
    if (!same_gpu_->pushed_to_us(list)) mpi_receives_ |= std::uint32_t{1} << list;
  }
  plan_ghost_messages(store, &positions_, mpi_sends_, mpi_receives_, kPositionBytes, ghost_tag(0));
}

void ParticleExchange::plan_ghost_messages(const ParticleStore& store,
                                           std::unique_ptr<NeighbourMessages>* m,
                                           std::uint32_t sends, std::uint32_t receives,
                                           std::int64_t bytes, int first_tag) {
  std::vector<Message> in, out;
  std::int64_t out_at = 0;
  for (int list = 0; list < kNeighbours; ++list) {
    const GhostTransfer& t = plan_[list];
    if (has(sends, list)) {
      out.push_back({t.to, first_tag + list, out_at, t.send_count * bytes});
      out_at += t.send_count * bytes;
    }
    if (has(receives, list))
      in.push_back({t.from, first_tag + list, t.receive_first * bytes, t.receive_count * bytes});
  }
  messages_for(store, m).plan(std::move(in), std::move(out));
}

NeighbourMessages& ParticleExchange::messages_for(const ParticleStore& store,
                                                  std::unique_ptr<NeighbourMessages>* m) {
  if (messages_space_ != store.space()) {  // a store elsewhere: every buffer anew
    messages_space_ = store.space();
    positions_.reset();
    fields_.reset();
    sums_.reset();
  }
  if (*m == nullptr)
    *m = std::make_unique<NeighbourMessages>(decomposition_.comm(), messages_space_,
                                             cuda_aware_mpi_);
  return **m;
}

void ParticleExchange::first_slots(long first[kNeighbours]) const {
  for (int list = 0; list < kNeighbours; ++list) first[list] = plan_[list].receive_first;
}

void ParticleExchange::update_ghost_fields(ParticleStore& store, std::uint32_t fields) {
  const int words = store.ghost_field_words(fields);
  if (words == 0) return;
  // The lists positions take: through MPI, pushed device to device, copied
  // for a rank's own images.
  const std::uint32_t own = own_lists();
  if ((mpi_sends_ | mpi_receives_) != 0) {
    if (fields_ == nullptr ||
        fields_words_ != words) {  // planned anew after a rebuild, or for another size a ghost
      plan_ghost_messages(store, &fields_, mpi_sends_, mpi_receives_,
                          words * std::int64_t{sizeof(std::uint64_t)}, ghost_field_tag(0));
      fields_words_ = words;
    }
    send_and_receive(
        store, *fields_, mpi_sends_, mpi_receives_,
        {[&](void* out) {
           store.pack_ghost_fields(mpi_sends_, fields, static_cast<std::uint64_t*>(out));
         },
         [&](const void* in, long slot, long count) {
           store.unpack_ghost_fields(fields, static_cast<const std::uint64_t*>(in), slot, count);
         }});
  }
  same_gpu_->push_fields(store, fields);
  if (own != 0) {
    long first[kNeighbours];
    first_slots(first);
    store.copy_ghost_fields_to_ghosts(own, fields, first);
  }
}

void ParticleExchange::add_ghosts_to_owners(ParticleStore& store, std::uint32_t fields) {
  const int words = store.ghost_field_words(fields);
  if (words == 0) return;
  const std::uint32_t own = own_lists(), lists = kAllLists & ~own;
  const std::int64_t bytes = words * std::int64_t{sizeof(std::uint64_t)};
  long slots = 0;  // the ghost slots sent back
  for (int list = 0; list < kNeighbours; ++list) {
    if (has(lists, list))
      slots = std::max(slots, plan_[list].receive_first + plan_[list].receive_count);
  }
  // The receive buffer is free once the last add has read it.
  if (store.space() != Backend::Host) store.synchronize();
  if (sums_ == nullptr ||
      sums_words_ != words) {  // planned anew after a rebuild, or for another size a ghost
    // The plan backwards: each list's ghost slots go back to the rank that
    // sent them, landing at that list's send entries.
    std::vector<Message> in, out;
    for (int list = 0; list < kNeighbours; ++list) {
      if (!has(lists, list)) continue;
      const GhostTransfer& t = plan_[list];
      out.push_back(
          {t.from, ghost_sum_tag(list), t.receive_first * bytes, t.receive_count * bytes});
      in.push_back(
          {t.to, ghost_sum_tag(list), store.send_entry(list) * bytes, t.send_count * bytes});
    }
    messages_for(store, &sums_).plan(std::move(in), std::move(out));
    sums_words_ = words;
  }
  NeighbourMessages& m = *sums_;
  m.post_receives();
  if (slots > 0)
    store.pack_ghost_slots(fields, slots, static_cast<std::uint64_t*>(m.send_buffer()));
  m.send();
  m.wait();
  long first[kNeighbours];
  first_slots(first);
  store.add_to_owners(fields, static_cast<const std::uint64_t*>(m.receive_buffer()), lists, own,
                      first);
}

void ParticleExchange::move_positions(ParticleStore& store, GhostReads reads) const {
  // Pushes, this rank's own images and the rendezvous with the ranks that
  // push to us first: one launch where the store can. (MPI messages land in
  // a buffer of their own, unpacked in stream order.)
  const std::uint32_t own = own_lists();
  long first[kNeighbours];
  first_slots(first);
  const bool own_copied = same_gpu_->push_all(store, reads, own, first);
  if (!positions_->empty()) {
    send_and_receive(store, *positions_, mpi_sends_, mpi_receives_,
                     {[&](void* out) { store.pack_sends(mpi_sends_, static_cast<double*>(out)); },
                      [&](const void* in, long slot, long count) {
                        store.unpack_ghosts(static_cast<const double*>(in), slot, count);
                      }});
  }
  if (own != 0 && !own_copied) store.copy_sends_to_ghosts(own, first);
}

void ParticleExchange::send_and_receive(ParticleStore& store, NeighbourMessages& m,
                                        std::uint32_t sends, std::uint32_t receives,
                                        const GhostPayload& payload) const {
  // The receive buffer is free once the last unpack has read it: before MPI
  // writes into it (device memory) or the staged copy does (in wait).
  if (store.space() != Backend::Host && (!m.staged() || sends == 0)) store.synchronize();
  m.post_receives();
  if (sends != 0) payload.pack(m.send_buffer());
  m.send();
  m.wait();
  // Adjacent lists' slots are adjacent: one unpack per run of lists.
  for (int list = 0; list < kNeighbours;) {
    if (!has(receives, list)) {
      ++list;
      continue;
    }
    const long first = plan_[list].receive_first;
    long count = 0;
    for (; list < kNeighbours && has(receives, list); ++list) count += plan_[list].receive_count;
    if (count > 0) payload.unpack(m.receive_buffer(), first, count);
  }
}

std::string ParticleExchange::ghost_path() const {
  if (alone()) return "copied within the rank (one rank: its own periodic images)";
  std::string path = same_gpu_->description();
  // Where the MPI messages of device-resident particles start from.
  if (positions_ != nullptr && messages_space_ == Backend::Cuda)
    path += " (" + positions_->path() + ")";
  return path;
}

CellGrid ParticleExchange::cell_grid() const {
  CellGrid g;
  for (int d = 0; d < 3; ++d) {
    const double extent = domain_.hi[d] - domain_.lo[d] + 2 * ghost_width_;
    g.origin[d] = domain_.lo[d] - ghost_width_;
    g.count[d] = std::max(3, static_cast<int>(std::floor(extent / ghost_width_)));
    g.width[d] = extent / g.count[d];
  }
  return g;
}

}  // namespace mpsfw
