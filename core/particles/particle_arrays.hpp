#pragma once
// A rank's particles in one backend's memory, with named per-particle fields,
// and all the particle layer does with them — migration, ghosts, sorting by
// link cell, neighbour lists with a skin and the displacement check — written
// once over a few primitives of the backend (Exec: host_exec.hpp on the host,
// cuda_exec.cuh on a GPU, kokkos_exec.hpp with Kokkos):
//   for_each(n, f)                 f(i) for every i < n, in parallel
//   for_each_walk(n, f)            for_each where f walks neighbour lists
//                                  (n < 2^31; launched as pair loops are tuned)
//   count(n, f), max_of(n, f)      the sum of integer f(i), the largest double
//                                  f(i) >= 0 (0 for none)
//   sum(n, f)                      the sum of double f(i), in an order fixed
//                                  for n (the same bits run after run)
//   scan(n, f, use)                use(i, before) for every i < n, before
//                                  the sum of integer f(j), j < i
//   max_later(n, f), later_max()   max_of in two halves: the pass, and
//                                  (later, waiting for it) its result; only
//                                  where kFusedMax (else a pass of its own)
//   for_each_then(n, f, handshake) for_each, then the step's handshake in the
//                                  same launch (false, nothing done, where
//                                  the backend cannot: the caller runs it)
//   sort_by_key(n, keys, key_of, key, order, start)  key[i] = key_of(i) in
//                                  [0, keys), then order sorted by key, stable
//   list_neighbours(build)         neighbour lists (neighbour_rows.hpp says
//                                  which: the order is the same everywhere)
//   synchronize()
// and says where its memory is (kSpace) and whether neighbour lists are
// stored transposed (kRowsTransposed: on a GPU).
// f is an MPSFW_LAMBDA over raw pointers, so one body serves every backend.
// Storage: positions 4 doubles a particle (x, y, z, unused: one 32-byte
// sector per neighbour gathered on a GPU, and the slots same-GPU neighbours
// push into), owned particles then ghosts; every other field component-major
// (component c of owned particle i at c * capacity() + i, and of ghost g at
// c * capacity() + owned() + g where some field reaches ghosts). Orders are the
// same on every backend: compaction keeps store order, sorting by cell is
// stable, send lists and neighbour lists follow store order — so a
// workload's sums over neighbours come out bit for bit.
//
// `Base` is ListedParticleStore or a workload's store interface derived from
// it (MD's MdStore), whose particle part this implements.
#include <algorithm>
#include <cassert>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "field_spec.hpp"
#include "link_cells.hpp"
#include "neighbour_rows.hpp"
#include "pair_shares.hpp"
#include "particle_store.hpp"
#include "periodic_edge.hpp"
#include "sorted_search.hpp"
#include "written_field.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/device/memory.hpp>

namespace mpsfw {

// A field of a ParticleArrays as a kernel indexes it: component c of
// particle p at (p, c), p an owned particle or, where the field reaches
// ghosts, a ghost (owned count + ghost slot). A debug build (no NDEBUG)
// checks every access: an index past the particles the field holds (a
// ghost's of a field that does not reach ghosts) stops the program there.
template <class T>
struct FieldView {
  T* data = nullptr;
  long capacity = 0;
  long particles = 0;  // the valid p: 0 .. particles - 1
  int components = 1;

  MPSFW_HD T& operator()(long p, int c = 0) const {
    assert(p >= 0 && p < particles && c >= 0 && c < components);
    return data[c * capacity + p];
  }
};

namespace particle_ops {

// Send lists walked back to back: run k is list list[k], its entries from
// from[k] on, at[k] .. at[k + 1] - 1 among the runs', written from to[k] on,
// shifted by shift[k]. An entry is list * particles + particle (particles:
// the owned count the lists were selected from): particle(e).
struct Runs {
  int count = 0;
  int particles = 1;
  MPSFW_HD long particle(int entry) const { return entry % particles; }
  int list[kNeighbours];
  long at[kNeighbours + 1];
  long from[kNeighbours];
  long to[kNeighbours];
  double shift[kNeighbours][3];
};

// Where push_all writes each list: the receiver's position array at the
// list's first slot, null for a list not pushed.
struct PushTargets {
  double* at[kNeighbours];
};

// Where push_ghost_fields writes each list: the receiver's buffer at the
// list's first ghost slot's words, null for a list not pushed.
struct WordTargets {
  std::uint64_t* at[kNeighbours];
};

// The run of entry p (at[0] <= p < at[count]): the last with at[k] <= p.
MPSFW_HD int run_of(const Runs& r, long p) {
  int lo = 0, hi = r.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (r.at[mid] <= p) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

MPSFW_HD int cell_of(const double* x, const CellGrid& g) {
  return (link_cell_along(x[2], g, 2) * g.count[1] + link_cell_along(x[1], g, 1)) * g.count[0] +
         link_cell_along(x[0], g, 0);
}

}  // namespace particle_ops

template <class Exec, class Base = ListedParticleStore>
class ParticleArrays : public Base {
 public:
  static constexpr Backend kSpace = Exec::kSpace;

  // The fields beyond the position, in record order; an Integer field named
  // "id" with one component is the records' id.
  explicit ParticleArrays(std::vector<FieldSpec> fields) {
    DeclaredRecord record = declared_record(fields);
    layout_ = record.layout;
    written_ = std::move(record.written);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      FieldSpec& spec = fields[f];
      if (spec.components < 1 || words_.count + spec.components > kMaxWords) {
        throw Error("particles: field " + spec.name + " has " + std::to_string(spec.components) +
                    " components; fields may have " + std::to_string(kMaxWords) +
                    " in all, at least one each");
      }
      for (int c = 0; c < spec.components; ++c) {
        if (spec.ghosts) ghost_words_.word[ghost_words_.count++] = words_.count;
        words_.record_word[words_.count++] =
            record.offset[f] >= 0 ? static_cast<int>(record.offset[f] / 8) + c : -1;
      }
      const int first = words_.count - spec.components;
      fields_.push_back(Field{std::move(spec), first});
    }
  }

  // ParticleStore.
  long owned() const override { return owned_; }
  long ghosts() const override { return ghosts_; }
  Backend space() const override { return kSpace; }
  RecordLayout record_layout() const override { return layout_; }

  // Field `f` (declaration order) of the owned particles, component-major
  // (as its type: Real fields as real, Integer ones as integer), and of the
  // ghosts after them where the field reaches ghosts.
  double* real(int f) { return reinterpret_cast<double*>(field_words(f)); }
  const double* real(int f) const { return reinterpret_cast<const double*>(field_words(f)); }
  std::int64_t* integer(int f) { return reinterpret_cast<std::int64_t*>(field_words(f)); }
  const std::int64_t* integer(int f) const {
    return reinterpret_cast<const std::int64_t*>(field_words(f));
  }
  long capacity() const { return capacity_; }
  // The same fields as views that know their particles (checked in a debug build).
  FieldView<double> real_view(int f) { return view_of<double>(f); }
  FieldView<std::int64_t> integer_view(int f) { return view_of<std::int64_t>(f); }
  // The written fields (FieldSpec::dataset) as the trajectory, checkpoints
  // and input reading take them: where each lies in the record.
  std::vector<WrittenField> written_fields() const override { return written_; }
  // Positions, 4 doubles a particle: owned particles, then ghosts. A
  // workload that moves particles through it (rather than move_each) asks
  // anew each time: the asking tells max_displacement to measure afresh.
  double* positions() {
    measured_ = false;
    return x_.data();
  }
  const double* positions() const { return x_.data(); }
  const Exec& exec() const { return exec_; }
  // Bytes these arrays take for `owned` particles with `ghosts` ghosts and
  // `neighbours` list entries per owned particle (the memory preflight's).
  double bytes_for(double owned, double ghosts, double neighbours) const {
    double per_owned = 4 * 8.0 + (neighbours + neighbours / 8 + 9) * sizeof(int) + 3 * 8.0;
    per_owned += 2 * 8.0 * words_.count;  // and a spare
    const double per_particle = 2 * 4 * 8.0 + 2 * sizeof(int) + 2 * sizeof(long) + 3 * 8.0;
    // Every field has room for the ghosts too where one reaches them.
    const double per_ghost = ghost_words_.count > 0 ? 2 * 8.0 * words_.count : 0.0;
    return owned * per_owned + (owned + ghosts) * per_particle + ghosts * per_ghost;
  }

  // Replaces every particle by `records` (owned), no ghosts.
  void assign_records(const ParticleRecords& records) override {
    owned_ = 0;
    clear_ghosts();
    add_owned(records);
  }
  // The owned particles' records, in store order.
  ParticleRecords download_records() const override {
    ParticleRecords out(layout_);
    out.resize(static_cast<std::size_t>(owned_));
    if (owned_ == 0) return out;
    Array<unsigned char> packed(kSpace, static_cast<size_t>(owned_) * layout_.bytes);
    pack_records(nullptr, owned_, packed.data());
    memory::copy(out.data(), Backend::Host, packed.data(), kSpace, packed.size());
    return out;
  }

  void take_leaving(const double lo[3], const double hi[3], ParticleRecords* leaving) override {
    clear_ghosts();
    const long n = owned_;
    if (n == 0) return;
    const double* x = x_.data();
    const double l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
    const auto leaves = MPSFW_LAMBDA(long i) {
      const double* c = x + 4 * i;
      return c[0] < l0 || c[0] >= h0 || c[1] < l1 || c[1] >= h1 || c[2] < l2 || c[2] >= h2 ? 1L
                                                                                           : 0L;
    };
    // The leaving ones' indices in order, the staying ones' in order, and how
    // many leave: that count in the word ahead of their records, which are
    // packed at once, as many as twice the last call's (the pass packs those
    // that leave), so that one copy brings both where no more leave.
    const long guess = std::min(n, records_room(last_gone_));
    const long record_bytes = static_cast<long>(layout_.bytes);
    scratch(&order_, n);
    scratch(&flag_, n);
    scratch(&records_, kCountBytes + guess * record_bytes);
    long* leaving_index = order_.data();
    long* staying_index = flag_.data();
    unsigned char* counted = records_.data();
    auto* tally = reinterpret_cast<long*>(counted);
    exec_.scan(
        n, leaves, MPSFW_LAMBDA(long i, long before) {
          const long goes = leaves(i);
          if (goes != 0) {
            leaving_index[before] = i;
          } else {
            staying_index[i - before] = i;
          }
          if (i == n - 1) tally[0] = before + goes;
        });
    pack_records(leaving_index, guess, counted + kCountBytes, tally);
    std::vector<unsigned char> landed(static_cast<size_t>(kCountBytes + guess * record_bytes));
    memory::copy(landed.data(), Backend::Host, counted, kSpace, landed.size());
    long gone = 0;
    std::memcpy(&gone, landed.data(), sizeof gone);
    last_gone_ = gone;
    if (gone == 0) return;
    const std::size_t before = leaving->size();
    leaving->resize(before + static_cast<std::size_t>(gone));
    const long first = std::min(gone, guess);
    std::memcpy(leaving->record(before), landed.data() + kCountBytes,
                static_cast<size_t>(first * record_bytes));
    if (gone > first) {  // more than guessed: the rest in a pass and a copy of their own
      scratch(&records_, (gone - first) * record_bytes);
      pack_records(leaving_index + first, gone - first, records_.data());
      memory::copy(leaving->record(before + static_cast<std::size_t>(first)), Backend::Host,
                   records_.data(), kSpace, static_cast<size_t>((gone - first) * record_bytes));
    }
    fill_holes(leaving_index, staying_index, gone);
  }

  void add_owned(const ParticleRecords& records) override {
    clear_ghosts();
    const long m = static_cast<long>(records.size());
    if (m == 0) return;
    reserve_owned(owned_ + m);
    scratch(&records_, static_cast<long>(records.size() * layout_.bytes));
    memory::copy(records_.data(), kSpace, records.data(), Backend::Host,
                 records.size() * layout_.bytes);
    const unsigned char* in = records_.data();
    const long first = owned_, bytes = static_cast<long>(layout_.bytes), cap = capacity_;
    double* x = x_.data();
    std::uint64_t* w = words_data_.data();
    const Words words = words_;
    exec_.for_each(
        m, MPSFW_LAMBDA(long t) {
          const unsigned char* r = in + t * bytes;
          double* p = x + 4 * (first + t);
          memcpy(p, r, 3 * sizeof(double));
          p[3] = 0;
          for (int c = 0; c < words.count; ++c) {
            std::uint64_t* to = w + c * cap + first + t;
            if (words.record_word[c] < 0) {
              *to = 0;  // a field that does not travel arrives zeroed
            } else {
              memcpy(to, r + 8 * words.record_word[c], 8);
            }
          }
        });
    owned_ += m;
  }

  long fold_periodic(const bool fold[3], const double box[3]) override {
    clear_ghosts();
    double* x = x_.data();
    const bool f0 = fold[0], f1 = fold[1], f2 = fold[2];
    const double b0 = box[0], b1 = box[1], b2 = box[2];
    return exec_.count(
        owned_, MPSFW_LAMBDA(long i) {
          const bool f[3] = {f0, f1, f2};
          const double b[3] = {b0, b1, b2};
          long outside = 0;
          for (int d = 0; d < 3; ++d) {
            double& c = x[4 * i + d];
            if (!f[d] || (c >= 0 && c < b[d])) continue;
            c = across_periodic_edge(c, b[d]);
            outside += !(c >= 0 && c < b[d]);
          }
          return outside;
        });
  }

  // Reorders the owned particles by link cell of `grid` (x fastest, stable),
  // so that particles near in space are near in memory. Drops all ghosts.
  void sort_by_cell(const CellGrid& grid) override {
    clear_ghosts();
    const long n = owned_;
    if (n == 0) return;
    bin(grid, n);
    move_owned(order_.data(), n);
  }

  void clear_ghosts() override {
    ghosts_ = 0;
    built_ = -1;  // the lists no longer describe the particles
  }

  void select_sends(const GhostBands& bands, long counts[kNeighbours]) override {
    entries_indexed_ = false;
    for (int list = 0; list < kNeighbours; ++list) {
      for (int d = 0; d < 3; ++d) send_shift_[list][d] = bands.shift[list][d];
    }
    const long n = owned_;
    if (n > INT_MAX / kNeighbours) {
      throw Error("particles: " + std::to_string(n) +
                  " particles are more than one rank's ghost lists can index (" +
                  std::to_string(kNeighbours) + " entries a particle in 32 bits)");
    }
    send_particles_ = n > 0 ? static_cast<int>(n) : 1;
    std::vector<long> starts(kNeighbours + 1, 0L);
    if (n > 0) {
      // Each particle's lists, in a pass of its own; then, a thread a chunk
      // of particles (send_chunk; most particles are in no list, so a
      // thread walks the few lists of its few), each chunk's count in every list;
      // where each (list, chunk) starts, by a scan over them list after list;
      // and each chunk's entries (list, particle), list * n + particle,
      // written from there: every list's particles ascending, list after
      // list. The scan also gives where each list starts and (tally[
      // kNeighbours]) all lists' entries.
      const long chunk = send_chunk(n), chunks = (n + chunk - 1) / chunk;
      scratch(&mask_, n);
      scratch(&sends_, most_lists(bands) * n);
      scratch(&chunk_count_, kNeighbours * chunks);
      scratch(&chunk_start_, kNeighbours * chunks);
      scratch(&tally_, kNeighbours + 1);
      std::uint32_t* mask = mask_.data();
      int* send = sends_.data();
      int* count = chunk_count_.data();
      int* start = chunk_start_.data();
      long* tally = tally_.data();
      const double* x = x_.data();
      const GhostBands b = bands;
      exec_.for_each(
          n, MPSFW_LAMBDA(long i) {
            const double* c = x + 4 * i;
            mask[i] = ghost_list_mask(c[0], c[1], c[2], b);
          });
      // In 32 bits: the entries are fewer than 2^31 (checked above).
      const int particles = static_cast<int>(n), stride = static_cast<int>(chunks);
      exec_.for_each(
          chunks, MPSFW_LAMBDA(long c) {
            int in[kNeighbours] = {};  // unrolled: registers, not memory
            const int end = static_cast<int>((c + 1) * chunk < n ? (c + 1) * chunk : n);
            for (int i = static_cast<int>(c * chunk); i < end; ++i) {
              const std::uint32_t bits = mask[i];
              if (bits == 0u) continue;
              MPSFW_UNROLL
              for (int list = 0; list < kNeighbours; ++list) in[list] += (bits >> list) & 1u;
            }
            MPSFW_UNROLL
            for (int list = 0; list < kNeighbours; ++list) count[list * stride + c] = in[list];
          });
      exec_.scan(
          kNeighbours * chunks, MPSFW_LAMBDA(long e) { return static_cast<long>(count[e]); },
          MPSFW_LAMBDA(long e, long before) {
            const int entry = static_cast<int>(e);
            start[entry] = static_cast<int>(before);
            if (entry % stride == 0) tally[entry / stride] = before;
            if (entry == kNeighbours * stride - 1) tally[kNeighbours] = before + count[entry];
          });
      exec_.for_each(
          chunks, MPSFW_LAMBDA(long c) {
            int at[kNeighbours];
            MPSFW_UNROLL
            for (int list = 0; list < kNeighbours; ++list) at[list] = start[list * stride + c];
            const int end = static_cast<int>((c + 1) * chunk < n ? (c + 1) * chunk : n);
            for (int i = static_cast<int>(c * chunk); i < end; ++i) {
              const std::uint32_t bits = mask[i];
              if (bits == 0u) continue;
              MPSFW_UNROLL
              for (int list = 0; list < kNeighbours; ++list) {
                if ((bits >> list) & 1u) send[at[list]++] = list * particles + i;
              }
            }
          });
      memory::copy(starts.data(), Backend::Host, tally, kSpace, starts.size() * sizeof(long));
    }
    for (int list = 0; list <= kNeighbours; ++list) send_start_[list] = starts[list];
    for (int list = 0; list < kNeighbours; ++list)
      counts[list] = send_start_[list + 1] - send_start_[list];
  }

  void pack_sends(std::uint32_t lists, double* out) override {
    const particle_ops::Runs r = runs(lists, nullptr);
    const long total = r.at[r.count];
    if (total == 0) return;
    const int* send = sends_.data();
    const double* x = x_.data();
    exec_.for_each(
        total, MPSFW_LAMBDA(long p) {
          const int k = particle_ops::run_of(r, p);
          const long i = r.particle(send[r.from[k] + (p - r.at[k])]);
          for (int d = 0; d < 3; ++d) out[3 * p + d] = x[4 * i + d] + r.shift[k][d];
        });
    exec_.synchronize();
  }

  void reserve_ghosts(long count) override { ghost_slots(count); }

  void unpack_ghosts(const double* in, long first, long count) override {
    ghost_slots(first + count);
    if (count == 0) return;
    double* x = x_.data() + 4 * owned_;
    exec_.for_each(
        count, MPSFW_LAMBDA(long t) {
          const long g = first + t;
          for (int d = 0; d < 3; ++d) x[4 * g + d] = in[3 * g + d];
          x[4 * g + 3] = 0;
        });
  }

  void copy_sends_to_ghosts(std::uint32_t lists, const long first[kNeighbours]) override {
    const particle_ops::Runs r = runs(lists, first);
    long end = ghosts_;
    for (int k = 0; k < r.count; ++k) end = std::max(end, r.to[k] + r.at[k + 1] - r.at[k]);
    ghost_slots(end);
    scratch(&image_root_, end);
    scratch(&image_list_, end);
    const long total = r.at[r.count];
    if (total == 0) return;
    const int* send = sends_.data();
    long* root = image_root_.data();
    long* list_of = image_list_.data();
    double* x = x_.data();
    const long base = owned_;
    exec_.for_each(
        total, MPSFW_LAMBDA(long p) {
          const int k = particle_ops::run_of(r, p);
          const long i = r.particle(send[r.from[k] + (p - r.at[k])]),
                     slot = r.to[k] + (p - r.at[k]);
          put_point(x, base + slot, shifted_point(x, i, r.shift[k]));
          root[slot] = i;
          list_of[slot] = r.list[k];
        });
  }

  void refresh_own_images() override {
    if (ghosts_ == 0) return;
    const long* root = image_root_.data();
    const long* list_of = image_list_.data();
    double* x = x_.data();
    const long base = owned_;
    const Shifts shifts = send_shifts();
    exec_.for_each(
        ghosts_, MPSFW_LAMBDA(long g) {
          put_point(x, base + g, shifted_point(x, root[g], shifts.shift[list_of[g]]));
        });
  }

  int ghost_field_words(std::uint32_t fields) const override { return selected(fields).count; }

  // The lists back to back: each pushed into `out` at its place among them.
  void pack_ghost_fields(std::uint32_t lists, std::uint32_t fields, std::uint64_t* out) override {
    const particle_ops::Runs r = runs(lists, nullptr);
    void* targets[kNeighbours] = {};
    long slots[kNeighbours] = {};
    for (int k = 0; k < r.count; ++k) {
      targets[r.list[k]] = out;
      slots[r.list[k]] = r.at[k];
    }
    push_ghost_fields(fields, targets, slots);
    exec_.synchronize();
  }

  void unpack_ghost_fields(std::uint32_t fields, const std::uint64_t* in, long first,
                           long count) override {
    ghost_slots(first + count);
    if (count == 0) return;
    std::uint64_t* w = words_data_.data();
    const long cap = capacity_, base = owned_;
    const GhostWords g = selected(fields);
    exec_.for_each(
        count, MPSFW_LAMBDA(long t) {
          const long slot = first + t;
          for (int c = 0; c < g.count; ++c)
            w[g.word[c] * cap + base + slot] = in[g.count * slot + c];
        });
  }

  void push_ghost_fields(std::uint32_t fields, void* const targets[kNeighbours],
                         const long slots[kNeighbours]) override {
    const GhostWords g = selected(fields);
    particle_ops::WordTargets to{};
    std::uint32_t lists = 0;
    for (int list = 0; list < kNeighbours; ++list) {
      if (targets[list] == nullptr) continue;
      to.at[list] = static_cast<std::uint64_t*>(targets[list]) + g.count * slots[list];
      lists |= std::uint32_t{1} << list;
    }
    const particle_ops::Runs r = runs(lists, nullptr);
    const long total = r.at[r.count];
    if (total == 0) return;
    const int* send = sends_.data();
    const std::uint64_t* w = words_data_.data();
    const long cap = capacity_;
    exec_.for_each(
        total, MPSFW_LAMBDA(long p) {
          const int k = particle_ops::run_of(r, p);
          const long t = p - r.at[k];
          const long i = r.particle(send[r.from[k] + t]);
          std::uint64_t* out = to.at[r.list[k]] + g.count * t;
          for (int c = 0; c < g.count; ++c) out[c] = w[g.word[c] * cap + i];
        });
  }

  void copy_ghost_fields_to_ghosts(std::uint32_t lists, std::uint32_t fields,
                                   const long first[kNeighbours]) override {
    const particle_ops::Runs r = runs(lists, first);
    long end = ghosts_;
    for (int k = 0; k < r.count; ++k) end = std::max(end, r.to[k] + r.at[k + 1] - r.at[k]);
    ghost_slots(end);
    const long total = r.at[r.count];
    if (total == 0) return;
    const int* send = sends_.data();
    std::uint64_t* w = words_data_.data();
    const long cap = capacity_, base = owned_;
    const GhostWords g = selected(fields);
    exec_.for_each(
        total, MPSFW_LAMBDA(long p) {
          const int k = particle_ops::run_of(r, p);
          const long i = r.particle(send[r.from[k] + (p - r.at[k])]),
                     slot = r.to[k] + (p - r.at[k]);
          for (int c = 0; c < g.count; ++c)
            w[g.word[c] * cap + base + slot] = w[g.word[c] * cap + i];
        });
  }

  void pack_ghost_slots(std::uint32_t fields, long slots, std::uint64_t* out) override {
    const long n = std::min(slots, ghosts_);
    if (n <= 0) return;
    const std::uint64_t* w = words_data_.data();
    const long cap = capacity_, base = owned_;
    const GhostWords g = selected(fields);
    exec_.for_each(
        n, MPSFW_LAMBDA(long slot) {
          for (int c = 0; c < g.count; ++c)
            out[g.count * slot + c] = w[g.word[c] * cap + base + slot];
        });
    exec_.synchronize();
  }

  void add_to_owners(std::uint32_t fields, const std::uint64_t* in, std::uint32_t in_lists,
                     std::uint32_t own, const long own_first[kNeighbours]) override {
    const long n = owned_;
    if (n == 0 || send_start_[kNeighbours] == 0) return;
    index_entries_by_particle();
    const GhostWords g = selected(fields);
    EntrySources from{};
    for (int list = 0; list < kNeighbours; ++list) {
      from.start[list] = send_start_[list];
      if (in_lists >> list & 1u) from.how[list] = EntrySources::kIn;
      if (own >> list & 1u) {
        from.how[list] = EntrySources::kOwnGhost;
        from.slot[list] = own_first[list];
      }
    }
    const long* order = entry_order_.data();
    const long* first_of = entry_start_.data();
    const int* send = sends_.data();
    const int particles = send_particles_;
    std::uint64_t* w = words_data_.data();
    const long cap = capacity_, base = owned_;
    exec_.for_each(
        n, MPSFW_LAMBDA(long i) {
          for (long s = first_of[i]; s < first_of[i + 1]; ++s) {
            const long p = order[s];
            const int list = send[p] / particles;
            const int how = from.how[list];
            if (how == EntrySources::kNone) continue;
            const long ghost = base + from.slot[list] + (p - from.start[list]);
            for (int c = 0; c < g.count; ++c) {
              std::uint64_t& to = w[g.word[c] * cap + i];
              const std::uint64_t share =
                  how == EntrySources::kIn ? in[g.count * p + c] : w[g.word[c] * cap + ghost];
              to = g.integer[c] ? to + share : add_as_reals(to, share);
            }
          }
        });
  }

  long send_entry(int list) const override { return send_start_[list]; }

  // Device memory only: host memory is not shared with other processes.
  const void* positions_base() const override {
    return kSpace == Backend::Cuda ? static_cast<const void*>(x_.data()) : nullptr;
  }
  long positions_generation() const override { return generation_; }
  bool carry_rendezvous(const StepHandshake& h) override {
    if (!Exec::kMaxLaterWaits) return false;
    run_carried();  // one at a time: an earlier one runs now
    carried_ = h;
    return true;
  }
  void run_carried_rendezvous() override { run_carried(); }
  // One list: push_all with that target alone.
  void push_sends(int list, void* target, long slot) override {
    void* targets[kNeighbours] = {};
    long slots[kNeighbours] = {};
    targets[list] = target;
    slots[list] = slot;
    push_all(targets, slots, 0, StepHandshake{});
  }
  // Every list with a target, and this store's own images, in one launch;
  // targets are in this store's space (another rank's mapped array on a
  // GPU). With a handshake asked for, it rides the same launch where the
  // backend can (for_each_then), else this declines and the caller pushes,
  // then waits, apart.
  bool push_all(void* const targets[kNeighbours], const long slots[kNeighbours], std::uint32_t own,
                const StepHandshake& handshake) override {
    run_carried();  // a store that carries none runs none
    particle_ops::PushTargets to{};
    std::uint32_t lists = 0;
    for (int list = 0; list < kNeighbours; ++list) {
      if (own >> list & 1u) {
        to.at[list] = x_.data() + 4 * (owned_ + slots[list]);
      } else if (targets[list] != nullptr) {
        to.at[list] = static_cast<double*>(targets[list]) + 4 * slots[list];
      } else {
        continue;
      }
      lists |= std::uint32_t{1} << list;
    }
    const particle_ops::Runs r = runs(lists, nullptr);
    const long total = r.at[r.count];
    const int* send = sends_.data();
    const double* x = x_.data();
    return exec_.for_each_then(
        total,
        MPSFW_LAMBDA(long p) {
          const int k = particle_ops::run_of(r, p);
          const long t = p - r.at[k];
          put_point(to.at[r.list[k]], t,
                    shifted_point(x, r.particle(send[r.from[k] + t]), r.shift[k]));
        },
        handshake);
  }
  void synchronize() override { exec_.synchronize(); }

  // Full lists (the default) or half lists (NeighbourLists::Half: each pair
  // once) from the next build_neighbors on.
  void set_neighbour_lists(NeighbourLists kind) { lists_ = kind; }
  NeighbourLists neighbour_lists() const { return lists_; }

  // Bins every particle (owned and ghosts) into the link cells of `grid` and
  // lists for every owned particle the others within `reach`, visiting the
  // 27 cells around it z, y slowest and the three along x as one range;
  // particles outside the grid count in its edge cells (half lists: then
  // keeps each pair once, half_list_keeps). Remembers the owned positions
  // for max_displacement.
  void build_neighbors(const CellGrid& grid, double reach) override {
    const long n = owned_ + ghosts_;
    bin(grid, n);
    if (n > INT_MAX) {
      throw Error("particles: " + std::to_string(n) +
                  " particles are more than one rank's neighbour lists can index");
    }
    scratch(&row_count_, owned_);
    for (;;) {
      if (owned_ * width_ > INT_MAX) {
        throw Error("particles: " + std::to_string(owned_) + " owned particles with lists of " +
                    std::to_string(width_) +
                    " are more list entries than one rank can index (2^31); use more ranks or "
                    "a shorter reach");
      }
      scratch(&rows_, owned_ * width_);
      // Entry k of row i (NeighbourRows): rows transposed where the backend asks.
      const NeighbourBuild b{grid,
                             x_.data(),
                             order_.data(),
                             start_.data(),
                             n,
                             owned_,
                             reach * reach,
                             rows_.data(),
                             Exec::kRowsTransposed ? 1 : width_,
                             Exec::kRowsTransposed ? owned_ : 1,
                             width_,
                             row_count_.data()};
      const long longest = exec_.list_neighbours(b);
      if (longest <= width_) break;
      width_ = longest + longest / 8 + 8;
    }
    scratch(&built_x_, 4 * owned_);
    memory::copy(built_x_.data(), kSpace, x_.data(), kSpace,
                 static_cast<size_t>(4 * owned_) * sizeof(double));
    built_ = n;
    built_owned_ = owned_;
    measured_ = false;
    if (lists_ == NeighbourLists::Half) halve_lists();
  }
  // Each row keeps, in order, the neighbours a half list keeps.
  void halve_lists() {
    int* index = rows_.data();
    int* count = row_count_.data();
    const long row_step = Exec::kRowsTransposed ? 1 : width_;
    const long entry_step = Exec::kRowsTransposed ? owned_ : 1;
    const double* x = x_.data();
    const long owned = owned_;
    exec_.for_each(
        owned_, MPSFW_LAMBDA(long l) {
          const int i = static_cast<int>(l);
          int kept = 0;
          for (int k = 0; k < count[i]; ++k) {
            const int j = index[i * row_step + k * entry_step];
            if (half_list_keeps(i, j, owned, x)) index[i * row_step + kept++ * entry_step] = j;
          }
          count[i] = kept;
        });
  }
  // The lists of the last build_neighbors; throws Error when particles were
  // added or removed since.
  NeighbourRows neighbours() const {
    if (built_ != owned_ + ghosts_) throw Error("particles: lists without a current build");
    if (Exec::kRowsTransposed)
      return {row_count_.data(), rows_.data(), 1, static_cast<int>(built_owned_)};
    return {row_count_.data(), rows_.data(), static_cast<int>(width_), 1};
  }
  // Real field `field` (3 components) of every owned particle set to the sum
  // over its listed neighbours j of pair(x_i, x_j, acc), which adds the
  // pair's force on i to acc[3]; in list order, so bit for bit on every
  // backend. A workload's pair force loop (an MPSFW_LAMBDA).
  template <class Pair>
  void sum_pairs_into(int field, const Pair& pair) {
    const NeighbourRows rows = neighbours();
    const double* x = x_.data();
    double* out = real(field);
    const long cap = capacity_;
    exec_.for_each_walk(
        owned_, MPSFW_LAMBDA(long l) {
          const int i = static_cast<int>(l);
          const ParticlePoint xi = fixed_point_of(x, i);
          double acc[3] = {0, 0, 0};
          rows.walk(i, x, [&](const double* xj) { pair(xi.c, xj, acc); });
          for (int d = 0; d < 3; ++d) out[d * cap + i] = acc[d];
        });
  }
  // row(r) for every owned particle's PairRow r (neighbour_rows.hpp), the
  // rows in parallel, each walked in list order: a pair loop that reads any
  // field of the neighbour (r.each(visit): visit(j, xj)) and writes what it
  // likes of particle r.i (an MPSFW_LAMBDA).
  template <class Row>
  void for_each_row(const Row& row) {
    const NeighbourRows rows = neighbours();
    const double* x = x_.data();
    exec_.for_each_walk(
        owned_, MPSFW_LAMBDA(long l) {
          const int i = static_cast<int>(l);
          row(PairRow{i, fixed_point_of(x, i), rows, x});
        });
  }
  // The sum over owned particles i and their listed neighbours j of
  // pair(x_i, x_j) (a double): sum() over particles of list-order sums.
  template <class Pair>
  double pair_sum(const Pair& pair) const {
    const NeighbourRows rows = neighbours();
    const double* x = x_.data();
    return exec_.sum(
        owned_, MPSFW_LAMBDA(long l) {
          const int i = static_cast<int>(l);
          const ParticlePoint xi = fixed_point_of(x, i);
          double s = 0;
          rows.walk(i, x, [&](const double* xj) { s += pair(xi.c, xj); });
          return s;
        });
  }
  // move(i, xi) for every owned particle i, which moves it: xi its position
  // (3 doubles, changed in place; loaded and stored as one 32-byte point),
  // any other field by index. The distance each moved since build_neighbors
  // is measured in the same pass, so that max_displacement then reads a
  // value instead of making a pass.
  template <class Move>
  void move_each(const Move& move) {
    move_each(move, StepHandshake{});
  }
  // move_each, vouching that this rank's reads of its ghosts are over: the
  // rendezvous carried (carry_rendezvous) runs in the pass's last block.
  template <class Move>
  void move_each_ending_ghost_reads(const Move& move) {
    const StepHandshake h = carried_;
    carried_ = StepHandshake{};
    move_each(move, h);
  }
  // The largest distance an owned particle moved since build_neighbors
  // (HUGE_VAL without one since the last change).
  double max_displacement() const override {
    if (built_owned_ != owned_ || built_ < 0) return HUGE_VAL;
    if constexpr (Exec::kFusedMax) {
      if (measured_) return std::sqrt(exec_.later_max());
    }
    const double* x = x_.data();
    const double* b = built_x_.data();
    return std::sqrt(exec_.max_of(
        owned_, MPSFW_LAMBDA(long i) { return squared_distance(point_of(x, i), point_of(b, i)); }));
  }
  // Owned positions at the last build, [3 * i + d].
  std::vector<double> download_build_positions() const override {
    return host_xyz(built_x_.data());
  }
  // Owned positions now, [3 * i + d] (the workload's records carry them too).
  std::vector<double> download_positions() const { return host_xyz(x_.data()); }
  // Resuming exactly: the owned particles moved to `x` ([3 * i + d]), lists
  // and ghost plan kept.
  void restore_owned_positions(const std::vector<double>& x) override {
    if (x.size() != static_cast<size_t>(3 * owned_))
      throw Error("particles: restore_positions of a different particle count");
    std::vector<double> rows(static_cast<size_t>(4 * owned_), 0.0);
    for (long i = 0; i < owned_; ++i) {
      for (int d = 0; d < 3; ++d)
        rows[static_cast<size_t>(4 * i + d)] = x[static_cast<size_t>(3 * i + d)];
    }
    memory::copy(x_.data(), kSpace, rows.data(), Backend::Host, rows.size() * sizeof(double));
    measured_ = false;
  }

  // The steps below are public only because nvcc's device lambdas may not
  // live in private member functions.
  struct Field {
    FieldSpec spec;
    int first;  // its first component among all fields' (words_data_)
  };
  // Every field's components in one table: component c's word in a record
  // (-1: the field does not travel).
  static constexpr int kMaxWords = 32;
  struct Words {
    int count = 0;
    int record_word[kMaxWords];
  };
  // The words of the fields that reach ghosts, in declaration order.
  struct GhostWords {
    int count = 0;
    int word[kMaxWords];
    bool integer[kMaxWords];  // an Integer field's (summed as int64)
  };
  // The words of the fields in `fields` (bit f: field f) that reach ghosts;
  // a field selected by name that does not reach ghosts is an Error.
  GhostWords selected(std::uint32_t fields) const {
    GhostWords g;
    for (size_t f = 0; f < fields_.size(); ++f) {
      if (!(fields >> f & 1u)) continue;
      const FieldSpec& spec = fields_[f].spec;
      if (!spec.ghosts) {
        if (fields == ParticleStore::kAllGhostFields) continue;
        throw Error("particles: field " + spec.name + " does not reach ghosts (FieldSpec::ghosts)");
      }
      for (int c = 0; c < spec.components; ++c) {
        g.integer[g.count] = spec.type == FieldType::Integer;
        g.word[g.count++] = fields_[f].first + c;
      }
    }
    return g;
  }
  // a + b for words holding doubles.
  static MPSFW_HD std::uint64_t add_as_reals(std::uint64_t a, std::uint64_t b) {
    double x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    x += y;
    memcpy(&a, &x, sizeof a);
    return a;
  }
  // Where add_to_owners finds each list's values: in the buffer, in this
  // store's own ghost slots from slot[list] on, or nowhere.
  struct EntrySources {
    static constexpr int kNone = 0, kIn = 1, kOwnGhost = 2;
    int how[kNeighbours];
    long slot[kNeighbours];
    long start[kNeighbours];  // the list's first entry
  };
  // Every send entry's index, grouped by particle (owned particle i's from
  // entry_start_[i] to entry_start_[i + 1] - 1, in list order): made once
  // per plan, for add_to_owners.
  void index_entries_by_particle() {
    if (entries_indexed_) return;
    const int* send = sends_.data();
    const int particles = send_particles_;
    sort_into(
        send_start_[kNeighbours], static_cast<int>(owned_),
        MPSFW_LAMBDA(long p) { return send[p] % particles; }, &entry_key_, &entry_order_,
        &entry_start_);
    entries_indexed_ = true;
  }
  std::uint64_t* field_words(int f) {
    return words_data_.data() + fields_[static_cast<size_t>(f)].first * capacity_;
  }
  template <class T>
  FieldView<T> view_of(int f) {
    const FieldSpec& spec = fields_[static_cast<size_t>(f)].spec;
    return {reinterpret_cast<T*>(field_words(f)), capacity_, owned_ + (spec.ghosts ? ghosts_ : 0),
            spec.components};
  }
  const std::uint64_t* field_words(int f) const {
    return words_data_.data() + fields_[static_cast<size_t>(f)].first * capacity_;
  }
  struct Shifts {
    double shift[kNeighbours][3];
  };
  // Grows only; the contents are not kept.
  template <class T>
  class Scratch {
   public:
    void reserve_for(long n) {
      if (static_cast<long>(a_.size()) < n)
        a_ = Array<T>(kSpace, static_cast<size_t>(n + n / 4 + 16));
    }
    T* data() { return a_.data(); }
    const T* data() const { return a_.data(); }
    long size() const { return static_cast<long>(a_.size()); }

   private:
    Array<T> a_;
  };
  template <class T>
  static void scratch(Scratch<T>* s, long n) {
    s->reserve_for(n);
  }

  // Particle i's position and travelling fields (words of capacity `cap`)
  // into slot t of xt and wt.
  static MPSFW_HD void copy_particle(const Words& words, long cap, const double* x,
                                     const std::uint64_t* w, long i, double* xt, std::uint64_t* wt,
                                     long t) {
    put_point(xt, t, point_of(x, i));
    for (int c = 0; c < words.count; ++c) {
      if (words.record_word[c] >= 0) wt[c * cap + t] = w[c * cap + i];
    }
  }
  // Particle i's point in x after move(i, coordinates), stored back.
  template <class Move>
  static MPSFW_HD ParticlePoint move_point(double* x, long i, const Move& move) {
    ParticlePoint p = point_of(x, i);
    move(i, p.c);
    put_point(x, i, p);
    return p;
  }
  // The squared distance between two points; NaN, a rebuild's to report, as
  // HUGE_VAL.
  static MPSFW_HD double squared_distance(const ParticlePoint& now, const ParticlePoint& then) {
    double r2 = 0;
    for (int d = 0; d < 3; ++d) {
      const double delta = now.c[d] - then.c[d];
      r2 += delta * delta;
    }
    return r2 >= 0 ? r2 : HUGE_VAL;
  }

  Shifts send_shifts() const {
    Shifts s;
    for (int list = 0; list < kNeighbours; ++list) {
      for (int d = 0; d < 3; ++d) s.shift[list][d] = send_shift_[list][d];
    }
    return s;
  }

  // The masked lists' runs; written from first[list] (a ghost slot) if
  // given, else back to back.
  // The most lists a particle can be in: 7 (a corner's), up to 26 where a
  // subdomain is narrower than two ghost widths (a particle near both faces).
  static long most_lists(const GhostBands& b) {
    long choices = 1;
    for (int d = 0; d < 3; ++d) choices *= b.high[d] <= b.low[d] ? 3 : 2;
    return choices - 1;
  }
  // The pass of move_each, with `then` in its last block (or in a launch of
  // its own after it where the pass measures nothing).
  template <class Move>
  void move_each(const Move& move, const StepHandshake& then) {
    double* x = x_.data();
    measured_ = false;
    if (!Exec::kFusedMax || built_owned_ != owned_ || built_ < 0) {
      exec_.for_each(
          owned_, MPSFW_LAMBDA(long i) { (void)move_point(x, i, move); });
      if (!then.empty()) exec_.for_each_then(0, MPSFW_LAMBDA(long){}, then);
      return;
    }
    if constexpr (Exec::kFusedMax) {
      const double* b = built_x_.data();
      const auto moved = MPSFW_LAMBDA(long i) {
        return squared_distance(move_point(x, i, move), point_of(b, i));
      };
      if constexpr (Exec::kMaxLaterWaits) {
        exec_.max_later(owned_, moved, then);
      } else {
        exec_.max_later(owned_, moved);  // carries none (carry_rendezvous)
      }
      measured_ = true;
    }
  }
  // A carried rendezvous not run by a pass yet, in a launch of its own.
  void run_carried() {
    if (carried_.empty()) return;
    exec_.for_each_then(0, MPSFW_LAMBDA(long){}, carried_);
    carried_ = StepHandshake{};
  }

  particle_ops::Runs runs(std::uint32_t lists, const long* first) const {
    particle_ops::Runs r;
    r.particles = send_particles_;
    r.at[0] = 0;
    for (int list = 0; list < kNeighbours; ++list) {
      if (!(lists >> list & 1u)) continue;
      const int k = r.count++;
      r.list[k] = list;
      r.from[k] = send_start_[list];
      r.to[k] = first != nullptr ? first[list] : r.at[k];
      for (int d = 0; d < 3; ++d) r.shift[k][d] = send_shift_[list][d];
      r.at[k + 1] = r.at[k] + send_start_[list + 1] - send_start_[list];
    }
    return r;
  }

  // key_of(i) in [0, keys) of items 0 .. n - 1 into `key`, the items sorted
  // by it stably into `order`, where each key's start into `start`.
  template <class KeyOf>
  void sort_into(long n, int keys, const KeyOf& key_of, Scratch<int>* key, Scratch<long>* order,
                 Scratch<long>* start) {
    scratch(key, n);
    scratch(order, n);
    scratch(start, keys + 1);
    exec_.sort_by_key(n, keys, key_of, key->data(), order->data(), start->data());
  }

  // Cell keys of particles 0 .. n - 1, sorted stably: order_ and start_.
  void bin(const CellGrid& grid, long n) {
    const int cells = grid.count[0] * grid.count[1] * grid.count[2];
    const double* x = x_.data();
    const CellGrid g = grid;
    sort_into(
        n, cells, MPSFW_LAMBDA(long i) { return particle_ops::cell_of(x + 4 * i, g); }, &key_,
        &order_, &start_);
  }

  // Keeps `kept` owned particles, particle t the one that was from[t], its
  // position and travelling fields, through the spares (gathers: writes in
  // order).
  void move_owned(const long* from, long kept) {
    scratch(&x_spare_, 4 * kept);
    double* xs = x_spare_.data();
    const double* x = x_.data();
    const std::uint64_t* w = words_data_.data();
    std::uint64_t* ws = words_spare_.data();
    const long cap = capacity_;
    const Words words = words_;
    exec_.for_each(
        kept, MPSFW_LAMBDA(long t) { copy_particle(words, cap, x, w, from[t], xs, ws, t); });
    memory::copy(x_.data(), kSpace, xs, kSpace, static_cast<size_t>(4 * kept) * sizeof(double));
    words_data_.swap(words_spare_);
    owned_ = kept;
  }

  // After `gone` of the owned particles left (their indices `leaving`, the
  // others' `staying`, both ascending): the holes they leave below the new
  // owned count are filled with the staying particles above it, in order, so
  // that only O(gone) particles move.
  void fill_holes(const long* leaving, const long* staying, long gone) {
    const long kept = owned_ - gone;
    double* x = x_.data();
    std::uint64_t* w = words_data_.data();
    const long cap = capacity_;
    const Words words = words_;
    exec_.for_each(
        gone, MPSFW_LAMBDA(long t) {
          const long hole = leaving[t];
          if (hole >= kept) return;
          // The staying particles above kept are the last `holes` staying.
          const long holes = first_at_least(leaving, gone, kept);
          copy_particle(words, cap, x, w, staying[kept - holes + t], x, w, hole);
        });
    owned_ = kept;
  }

  // Records of the owned particles index[t] (t when index is null), t < m
  // (and t < *limit, read on the device, where given), into `out` (in kSpace).
  void pack_records(const long* index, long m, unsigned char* out,
                    const long* limit = nullptr) const {
    const double* x = x_.data();
    const std::uint64_t* w = words_data_.data();
    const Words words = words_;
    const long bytes = static_cast<long>(layout_.bytes), cap = capacity_;
    exec_.for_each(
        m, MPSFW_LAMBDA(long t) {
          if (limit != nullptr && t >= *limit) return;
          const long i = index != nullptr ? index[t] : t;
          unsigned char* r = out + t * bytes;
          memcpy(r, x + 4 * i, 3 * sizeof(double));
          for (int c = 0; c < words.count; ++c) {
            if (words.record_word[c] >= 0) memcpy(r + 8 * words.record_word[c], w + c * cap + i, 8);
          }
        });
  }

  // Room for `n` owned particles in every field (and the positions).
  void reserve_owned(long n) {
    ghost_slots_for(n, 0);
    grow_words(n, owned_);
  }
  // Room for `n` particles in every field, the first `keep` of each kept.
  void grow_words(long n, long keep) {
    if (n <= capacity_) return;
    const long cap = n + n / 4 + 16;
    Array<std::uint64_t> grown(kSpace, static_cast<size_t>(words_.count * cap));
    for (long c = 0; c < words_.count && keep > 0; ++c) {
      memory::copy(grown.data() + c * cap, kSpace, words_data_.data() + c * capacity_, kSpace,
                   static_cast<size_t>(keep) * sizeof(std::uint64_t));
    }
    words_data_.swap(grown);
    words_spare_ = Array<std::uint64_t>(kSpace, static_cast<size_t>(words_.count * cap));
    capacity_ = cap;
  }

  // Makes ghost slots 0 .. count - 1 exist (in the fields that reach ghosts too).
  void ghost_slots(long count) {
    ghost_slots_for(owned_, count);
    if (ghost_words_.count > 0) grow_words(owned_ + count, owned_ + ghosts_);
    ghosts_ = std::max(ghosts_, count);
  }
  void ghost_slots_for(long owned, long ghosts) {
    const long need = 4 * (owned + ghosts);
    if (need <= static_cast<long>(x_.size())) return;
    Array<double> grown(kSpace, static_cast<size_t>(need + need / 4 + 64));
    memory::copy(grown.data(), kSpace, x_.data(), kSpace,
                 static_cast<size_t>(4 * (owned_ + ghosts_)) * sizeof(double));
    x_.swap(grown);
    ++generation_;  // same-GPU neighbours map it again
  }

  std::vector<double> host_xyz(const double* rows) const {
    std::vector<double> four(static_cast<size_t>(4 * owned_)), out(static_cast<size_t>(3 * owned_));
    memory::copy(four.data(), Backend::Host, rows, kSpace, four.size() * sizeof(double));
    for (long i = 0; i < owned_; ++i) {
      for (int d = 0; d < 3; ++d)
        out[static_cast<size_t>(3 * i + d)] = four[static_cast<size_t>(4 * i + d)];
    }
    return out;
  }

 private:
  Exec exec_;
  std::vector<Field> fields_;
  Words words_;
  GhostWords ghost_words_;
  // Every field's components, 8 bytes each, component-major: component c of
  // owned particle i at c * capacity_ + i (ghost g at c * capacity_ + owned_
  // + g); the spare that moves gather into.
  Array<std::uint64_t> words_data_, words_spare_;
  RecordLayout layout_;
  std::vector<WrittenField> written_;  // the declaration's written fields
  long owned_ = 0, ghosts_ = 0, capacity_ = 0;
  Array<double> x_;  // 4 per particle, owned then ghosts
  long generation_ = 0;
  Scratch<double> x_spare_;
  // select_sends's particles a thread, 4 to 64: at least 16384 threads where
  // there are particles for them (a thread's walk is serial), and few
  // (list, chunk) counts to scan.
  static long send_chunk(long n) {
    long chunk = 4;
    while (chunk < 64 && n / (2 * chunk) >= 16384) chunk *= 2;
    return chunk;
  }
  // Scans, sorts and their results.
  Scratch<long> flag_, order_, start_, tally_;
  Scratch<int> key_;
  Scratch<std::uint32_t> mask_;             // each owned particle's ghost lists
  Scratch<int> chunk_count_, chunk_start_;  // select_sends's (list, chunk) counts and starts
  Scratch<unsigned char> records_;          // migrating particles' records
  // take_leaving: the count ahead of the records (a word of 8 bytes keeps
  // them aligned), and how many left last time.
  static constexpr long kCountBytes = 8;
  long last_gone_ = 0;
  // The ghost plan: the 26 send lists' entries back to back (Runs::particle
  // reads them), where each list begins, and what is added to the positions
  // it sends.
  Scratch<int> sends_;
  int send_particles_ = 1;  // the owned count at select_sends (entries' stride)
  long send_start_[kNeighbours + 1] = {};
  double send_shift_[kNeighbours][3] = {};
  // The send entries grouped by particle (index_entries_by_particle).
  Scratch<int> entry_key_;
  Scratch<long> entry_order_, entry_start_;
  bool entries_indexed_ = false;
  // Per ghost slot placed by copy_sends_to_ghosts: its owned particle and list.
  Scratch<long> image_root_, image_list_;
  // Neighbour lists in rows of width_, their counts, and the build.
  Scratch<int> rows_, row_count_;
  long width_ = 64;
  long built_ = -1, built_owned_ = -1;  // particles listed by the last build; -1: none since
  Scratch<double> built_x_;             // owned positions at the last build, 4 a particle
  bool measured_ = false;               // the last move_each measured the current positions
  NeighbourLists lists_ = NeighbourLists::Full;
  StepHandshake carried_;  // carry_rendezvous's, not run yet
};

}  // namespace mpsfw
