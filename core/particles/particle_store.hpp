#pragma once
// What the particle exchange (particle_exchange.hpp) asks of a rank's
// particles, wherever they live (host memory or a GPU): owned particles come
// first, then ghosts (copies of neighbours' particles within the ghost width:
// their positions, and the fields a store lets reach ghosts). The exchange
// moves what these functions hand out and
// takes in; the store keeps the per-particle fields and does the per-particle
// work. A particle solver's store (MD's md_store.hpp) implements this.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ghost_lists.hpp"
#include "link_cells.hpp"
#include "written_field.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>

namespace mpsfw {

// Particles in transit between ranks: records of record_bytes() bytes each,
// laid out as the store says (RecordLayout), every one starting with its
// position (x, y, z as doubles).
struct RecordLayout {
  std::size_t bytes = 24;         // a record's size, a multiple of 8
  std::ptrdiff_t id_offset = -1;  // where an int64 id lies in it (-1: none)
};

// How many records a transfer whose count is not known yet makes room for in
// its first go: twice the last count, at least 64 (more go in a second one).
inline long records_room(long last_count) { return std::max(64L, 2 * last_count); }

class ParticleRecords {
 public:
  explicit ParticleRecords(RecordLayout layout = {}) : layout_(layout) {}

  const RecordLayout& layout() const { return layout_; }
  std::size_t size() const { return bytes_.size() / layout_.bytes; }
  bool empty() const { return bytes_.empty(); }
  void clear() { bytes_.clear(); }
  void resize(std::size_t records) { bytes_.resize(records * layout_.bytes); }

  void* record(std::size_t i) { return bytes_.data() + i * layout_.bytes; }
  const void* record(std::size_t i) const { return bytes_.data() + i * layout_.bytes; }
  double* position(std::size_t i) { return static_cast<double*>(record(i)); }
  const double* position(std::size_t i) const { return static_cast<const double*>(record(i)); }
  // Appends a record at `x` with id `id` (the layout has one), its other
  // fields zero: a solver's fresh particle.
  void append_at(const double x[3], std::int64_t id) {
    assert(layout_.id_offset >= 0);
    bytes_.resize(bytes_.size() + layout_.bytes);
    unsigned char* r = bytes_.data() + bytes_.size() - layout_.bytes;
    std::memcpy(r, x, 3 * sizeof(double));
    std::memcpy(r + layout_.id_offset, &id, sizeof id);
  }
  // Sets `count` doubles of record i from `offset` bytes on (a field of it,
  // WrittenField::offset) to `values`.
  void set_reals(std::size_t i, std::size_t offset, const double* values, int count) {
    assert(offset + sizeof(double) * static_cast<std::size_t>(count) <= layout_.bytes);
    std::memcpy(bytes_.data() + i * layout_.bytes + offset, values,
                sizeof(double) * static_cast<std::size_t>(count));
  }
  // The record's id, or -1 where the layout has none.
  std::int64_t id(std::size_t i) const {
    if (layout_.id_offset < 0) return -1;
    std::int64_t id = 0;
    std::memcpy(&id, bytes_.data() + i * layout_.bytes + layout_.id_offset, sizeof id);
    return id;
  }

  // Every record's `components` values of type T from `offset` bytes on (a
  // field of it; positions: offset 0, 3 components), one record after another:
  // the rows of the field's dataset.
  template <class T>
  std::vector<T> column(std::size_t offset, int components) const {
    const std::size_t c = static_cast<std::size_t>(components);
    assert(offset + sizeof(T) * c <= layout_.bytes);
    std::vector<T> values(c * size());
    for (std::size_t i = 0; i < size(); ++i)
      std::memcpy(&values[c * i], bytes_.data() + i * layout_.bytes + offset, sizeof(T) * c);
    return values;
  }

  // Appends `count` records from `records` (laid out as this).
  void append(const void* records, std::size_t count = 1) {
    const auto* p = static_cast<const unsigned char*>(records);
    bytes_.insert(bytes_.end(), p, p + count * layout_.bytes);
  }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }

 private:
  RecordLayout layout_;
  std::vector<unsigned char> bytes_;
};

// The shape of a field's dataset over `rows` records: [rows] or [rows][components].
inline std::vector<std::uint64_t> field_dims(std::uint64_t rows, int components) {
  if (components == 1) return {rows};
  return {rows, static_cast<std::uint64_t>(components)};
}

// Calls `use` with field `f` of every record (ParticleRecords::column): a
// std::vector<std::int64_t> for an integer field, else a std::vector<double>.
template <class Use>
void with_field_column(const ParticleRecords& records, const WrittenField& f, Use&& use) {
  if (f.integer) {
    use(records.column<std::int64_t>(f.offset, f.components));
  } else {
    use(records.column<double>(f.offset, f.components));
  }
}

// One of the 26 ghost transfers of a rank (ghost_lists.hpp): send list `list`
// goes to rank `to`, and what rank `from` sends the same way lands in ghost
// slots receive_first .. receive_first + receive_count - 1.
struct GhostTransfer {
  int to = 0, from = 0;
  long send_count = 0;
  long receive_first = 0;
  long receive_count = 0;
};

class ParticleStore {
 public:
  virtual ~ParticleStore() = default;

  virtual long owned() const = 0;
  virtual long ghosts() const = 0;
  // Where the particles live: Host or Cuda (device memory).
  virtual Backend space() const = 0;
  // How a particle travels (its record).
  virtual RecordLayout record_layout() const = 0;

  // Migration. Removes the owned particles with x[d] < lo[d] or x[d] >=
  // hi[d] along any dimension d (a NaN coordinate alone does not leave) and
  // appends their records to `leaving` in the store's order; drops all ghosts
  // first. Order of the rest may change.
  virtual void take_leaving(const double lo[3], const double hi[3], ParticleRecords* leaving) = 0;
  virtual void add_owned(const ParticleRecords& records) = 0;
  // For each dimension d with fold[d]: owned particles outside [0, box[d])
  // move to their periodic image inside (across_periodic_edge), in place: the
  // migration of a rank that is its own neighbour along d. Returns how many
  // are still outside (moved more than a box length). Drops all ghosts.
  virtual long fold_periodic(const bool fold[3], const double box[3]) = 0;

  // Ghosts. At a rebuild the exchange drops them, selects the 26 send lists
  // (ghost_lists.hpp) and places what arrives; between rebuilds it sends the
  // same particles again, in the same order, so only their positions move.
  virtual void clear_ghosts() = 0;
  // Remembers, for each list, the owned particles that ghost_list_mask puts
  // in it (in the store's order), each sent shifted by bands.shift[list];
  // one wait for the device where there is one. counts[list]: how many.
  virtual void select_sends(const GhostBands& bands, long counts[kNeighbours]) = 0;
  // The current positions of the lists in `lists` (bit `list`), shift
  // applied, x, y, z per particle, list after list in list order into `out`
  // (in space(), room for them all); one wait for the device.
  virtual void pack_sends(std::uint32_t lists, double* out) = 0;
  // Makes ghost slots 0 .. count - 1 exist (their positions unset until
  // written), before other ranks learn where to push them.
  virtual void reserve_ghosts(long count) = 0;
  // Writes slots first .. first + count - 1 of `in` (in space(), ghost slot k
  // at 3 k) into the same ghost slots (counted from the first ghost),
  // appending slots past the current ghosts. On a GPU the copy may still run
  // when this returns: the store's next device work follows it.
  virtual void unpack_ghosts(const double* in, long first, long count) = 0;
  // The lists in `lists` (sent to this rank itself: its periodic images)
  // straight into ghost slots from first[list] on, no buffer.
  virtual void copy_sends_to_ghosts(std::uint32_t lists, const long first[kNeighbours]) = 0;
  // A rank alone along every axis: all its ghosts are its own periodic
  // images, placed by copy_sends_to_ghosts since the last clear_ghosts.
  // Rewrites them all from the owned particles they image in one pass, the
  // same positions as repeating those copies.
  virtual void refresh_own_images() = 0;

  // Ghost fields: the per-particle fields that ghosts hold too (a velocity
  // or density a pair term reads of the neighbour, a force a half list adds
  // to it), as 8-byte words, the same words in the same order on every rank.
  // `fields` selects some of them (bit f: the store's field f; kAllGhostFields:
  // every one); the words of the selection, 0 where there are none (then the
  // calls below are never made).
  static constexpr std::uint32_t kAllGhostFields = ~std::uint32_t{0};
  virtual int ghost_field_words(std::uint32_t /*fields*/) const { return 0; }
  // As pack_sends: the selected fields' words of the lists' particles (as
  // they are, no shift), particle after particle.
  virtual void pack_ghost_fields(std::uint32_t /*lists*/, std::uint32_t /*fields*/,
                                 std::uint64_t* /*out*/) {
    throw Error("particles: this store has no ghost fields");
  }
  // As unpack_ghosts: ghost slot k's words at in[words * k].
  virtual void unpack_ghost_fields(std::uint32_t /*fields*/, const std::uint64_t* /*in*/,
                                   long /*first*/, long /*count*/) {
    throw Error("particles: this store has no ghost fields");
  }
  // Same-GPU ghost fields (same_gpu_ghosts.hpp): as pack_ghost_fields, each
  // list with a target (another rank's mapped receive buffer) written there,
  // the words of its ghost slot slots[list] + t at words * (slots[list] + t).
  virtual void push_ghost_fields(std::uint32_t /*fields*/, void* const /*targets*/[kNeighbours],
                                 const long /*slots*/[kNeighbours]) {
    throw Error("particles: this store has no ghost fields");
  }
  // As copy_sends_to_ghosts, the selected fields of a rank's own images.
  virtual void copy_ghost_fields_to_ghosts(std::uint32_t /*lists*/, std::uint32_t /*fields*/,
                                           const long /*first*/[kNeighbours]) {
    throw Error("particles: this store has no ghost fields");
  }
  // Reverse (ghosts to their owners): ghost slots 0 .. slots - 1, the
  // selection's words of each, slot after slot, into `out`.
  virtual void pack_ghost_slots(std::uint32_t /*fields*/, long /*slots*/, std::uint64_t* /*out*/) {
    throw Error("particles: this store has no ghost fields");
  }
  // Adds to every owned particle, for each send entry of it (list order),
  // what came back for that entry (as reals, or as integers for an Integer
  // field: fixed-point sums, exact in any order): from `in` (entry p of the
  // send lists back to back, words each) for the lists in `in_lists`, from
  // this store's own ghost slots own_first[list] on for the lists in `own`.
  virtual void add_to_owners(std::uint32_t /*fields*/, const std::uint64_t* /*in*/,
                             std::uint32_t /*in_lists*/, std::uint32_t /*own*/,
                             const long /*own_first*/[kNeighbours]) {
    throw Error("particles: this store has no ghost fields");
  }
  // Where entry 0 of list `list` sits among the send lists' entries back to
  // back (send_entry(kNeighbours): all of them).
  virtual long send_entry(int /*list*/) const { return 0; }

  // Same-GPU ghosts (same_gpu_ghosts.hpp): the position array (owned
  // particles, then ghosts, 32 bytes each: x, y, z, unused) that other
  // processes on the GPU may map, nullptr where particles live in host
  // memory; a number that changes whenever that array is reallocated; and
  // send list `list` (shift applied) written into another rank's mapped
  // array from slot `slot` on.
  virtual const void* positions_base() const = 0;
  virtual long positions_generation() const = 0;
  virtual void push_sends(int list, void* target, long slot) = 0;
  // Every list with a target (targets[list], from slot slots[list]) pushed
  // in one launch, and every list in `own` (a rank's own periodic images)
  // copied into this store's ghost slots from ghost slots[list] on (their
  // positions, as copy_sends_to_ghosts writes them; refresh_own_images
  // knows only copy_sends_to_ghosts' images); with a handshake, the step's
  // GPU-side handshake runs in the same launch after them. False, nothing
  // done, where the store cannot (then the caller pushes list by list,
  // copies and waits as separate steps).
  virtual bool push_all(void* const /*targets*/[kNeighbours], const long /*slots*/[kNeighbours],
                        std::uint32_t /*own*/, const StepHandshake& /*handshake*/) {
    return false;
  }
  // Holds `h`, a rendezvous with the ranks this one pushes to (same_gpu_ghosts.hpp),
  // for the store's next pass that vouches this rank's reads of its ghosts are
  // over (MD's kick-drift) to run in its last block; else push_all or
  // push_sends runs it first, in a launch of its own. False where the store
  // cannot (the caller runs it apart).
  virtual bool carry_rendezvous(const StepHandshake& /*h*/) { return false; }
  // Runs the rendezvous carry_rendezvous took, if it has not run yet: before
  // another rendezvous of the same links.
  virtual void run_carried_rendezvous() {}
  // Waits until the store's device work is done (nothing to wait for on the host).
  virtual void synchronize() = 0;
};

// A ParticleStore that keeps neighbour lists with a skin (ParticleArrays,
// MD's stores): what a rebuild and the displacement check ask of it
// (neighbour_schedule.hpp).
class ListedParticleStore : public ParticleStore {
 public:
  // Replaces every particle by `records` (owned), no ghosts.
  virtual void assign_records(const ParticleRecords& records) = 0;
  // The owned particles' records, in store order.
  virtual ParticleRecords download_records() const = 0;
  // The fields written with the positions (trajectory frames, checkpoints)
  // and read back from inputs: where each lies in the record.
  virtual std::vector<WrittenField> written_fields() const = 0;
  // The owned particles' positions at the last list build, [3 * i + d]
  // (store order); and, resuming exactly, the owned particles moved to `x`
  // ([3 * i + d]) with lists and ghost plan kept.
  virtual std::vector<double> download_build_positions() const = 0;
  virtual void restore_owned_positions(const std::vector<double>& x) = 0;
  // Reorders the owned particles by link cell of `grid` (x fastest, stable),
  // so that particles near in space are near in memory. Drops all ghosts.
  virtual void sort_by_cell(const CellGrid& grid) = 0;
  // Bins all particles (owned and ghosts) into the link cells of `grid` and
  // lists for every owned particle the others within `reach`; particles
  // outside the grid count in its edge cells. Remembers the owned positions
  // for max_displacement.
  virtual void build_neighbors(const CellGrid& grid, double reach) = 0;
  // The largest distance an owned particle moved since build_neighbors
  // (HUGE_VAL without one since particles were added or removed; NaN
  // positions count as HUGE_VAL).
  virtual double max_displacement() const = 0;
};

}  // namespace mpsfw
