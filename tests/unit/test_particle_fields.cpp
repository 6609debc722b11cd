// The particle layer's fields on the host backend: a travelling field stays
// with its particle through migration (take_leaving, add_owned) and the sort
// by link cell, in the order particle_arrays.hpp promises; a scratch field
// (travels = false) arrives zeroed. The 26 send lists are each list's
// particles in store order (ghost_list_mask), shifted, also in a subdomain
// narrower than two ghost widths, where a particle is in up to 26 lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <mpsfw/core/particles/host_exec.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>

namespace mpsfw {
namespace {

// x, y, z, then q (2 components) and id: the record of the fields below.
struct Record {
  double x[3];
  double q[2];
  std::int64_t id;
};

using Arrays = ParticleArrays<HostExec>;
constexpr int kQ = 0, kId = 1, kScratch = 2;

Arrays make_arrays() {
  return Arrays({{"q", 2, FieldType::Real, true},
                 {"id", 1, FieldType::Integer, true},
                 {"s", 1, FieldType::Real, false}});
}

// q of particle `id`, a function of the id alone.
double q_of(std::int64_t id, int c) { return 1000.0 * c + 0.5 * static_cast<double>(id); }

// 60 particles on a scrambled lattice in [0, 10)^3.
ParticleRecords lattice(const Arrays& a) {
  ParticleRecords r(a.record_layout());
  for (std::int64_t id = 0; id < 60; ++id) {
    const std::int64_t k = (id * 37) % 60;
    Record rec{{0.5 + static_cast<double>(k % 4) * 2.4, 0.5 + static_cast<double>(k / 4 % 5) * 1.9,
                0.5 + static_cast<double>(k / 20) * 3.1},
               {q_of(id, 0), q_of(id, 1)},
               id};
    r.append(&rec);
  }
  return r;
}

// 1000 particles on a unit lattice in [0, 10)^3, in scrambled order: many
// times the particles a thread of select_sends takes.
ParticleRecords cube(const Arrays& a) {
  ParticleRecords r(a.record_layout());
  for (std::int64_t id = 0; id < 1000; ++id) {
    const std::int64_t k = (id * 37) % 1000;
    Record rec{{0.5 + static_cast<double>(k % 10), 0.5 + static_cast<double>(k / 10 % 10),
                0.5 + static_cast<double>(k / 100)},
               {q_of(id, 0), q_of(id, 1)},
               id};
    r.append(&rec);
  }
  return r;
}

// Every owned particle's q matches its id.
void expect_fields_follow(const Arrays& a) {
  const long cap = a.capacity();
  for (long i = 0; i < a.owned(); ++i) {
    const std::int64_t id = a.integer(kId)[i];
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(a.real(kQ)[c * cap + i], q_of(id, c)) << "particle " << i << ", id " << id;
  }
}

TEST(ParticleFields, TravelThroughMigrationAndSort) {
  Arrays a = make_arrays();
  a.assign_records(lattice(a));
  ASSERT_EQ(a.record_layout().bytes, sizeof(Record));
  for (long i = 0; i < a.owned(); ++i) a.real(kScratch)[i] = 7.0;

  const double lo[3] = {0, 0, 0}, hi[3] = {5, 10, 10};
  ParticleRecords leaving(a.record_layout());
  a.take_leaving(lo, hi, &leaving);
  ASSERT_GT(leaving.size(), 0u);
  EXPECT_EQ(a.owned() + static_cast<long>(leaving.size()), 60);
  for (std::size_t k = 0; k < leaving.size(); ++k) {
    const auto* rec = static_cast<const Record*>(leaving.record(k));
    EXPECT_GE(rec->x[0], 5.0);
    EXPECT_EQ(rec->q[1], q_of(rec->id, 1)) << "leaving id " << rec->id;
  }
  for (long i = 0; i < a.owned(); ++i) EXPECT_LT(a.positions()[4 * i], 5.0);
  expect_fields_follow(a);

  const CellGrid grid{{0, 0, 0}, {2.5, 2.5, 2.5}, {4, 4, 4}};
  a.sort_by_cell(grid);
  expect_fields_follow(a);
  int last = -1;
  for (long i = 0; i < a.owned(); ++i) {
    const double* x = a.positions() + 4 * i;
    const int cell = particle_ops::cell_of(x, grid);
    EXPECT_GE(cell, last) << "particle " << i << " out of cell order";
    last = cell;
  }

  const long stayed = a.owned();
  a.add_owned(leaving);
  EXPECT_EQ(a.owned(), 60);
  expect_fields_follow(a);
  for (long i = stayed; i < a.owned(); ++i)
    EXPECT_EQ(a.real(kScratch)[i], 0.0) << "an arriving particle's scratch field";
}

// take_leaving brings every leaving particle's record, however many leave
// against the last call (it packs as many as twice the last count before it
// knows: more leave, fewer, none), and keeps the others.
TEST(ParticleFields, EveryLeavingRecordArrivesWhateverTheCount) {
  Arrays a = make_arrays();
  a.assign_records(cube(a));
  // x >= 5: 500 leave (the first call packs 64 first); then y >= 9: 50 of
  // the 500 left; then none (the next guess: 64); then z >= 8: 90 of the 450.
  const double lo[3] = {0, 0, 0};
  const double his[4][3] = {{5, 10, 10}, {5, 9, 10}, {5, 9, 10}, {5, 9, 8}};
  const long leave[4] = {500, 50, 0, 90};
  long owned = 1000;
  for (int call = 0; call < 4; ++call) {
    ParticleRecords leaving(a.record_layout());
    a.take_leaving(lo, his[call], &leaving);
    EXPECT_EQ(static_cast<long>(leaving.size()), leave[call]) << "call " << call;
    owned -= leave[call];
    EXPECT_EQ(a.owned(), owned) << "call " << call;
    std::vector<int> seen(1000, 0);
    for (std::size_t k = 0; k < leaving.size(); ++k) {
      const auto* rec = static_cast<const Record*>(leaving.record(k));
      bool outside = false;
      for (int d = 0; d < 3; ++d) outside = outside || rec->x[d] >= his[call][d];
      EXPECT_TRUE(outside) << "call " << call << ": id " << rec->id << " inside left";
      EXPECT_EQ(rec->q[0], q_of(rec->id, 0)) << "call " << call << ", id " << rec->id;
      ASSERT_TRUE(rec->id >= 0 && rec->id < 1000);
      EXPECT_EQ(seen[static_cast<size_t>(rec->id)]++, 0) << "id " << rec->id << " twice";
    }
    for (long i = 0; i < a.owned(); ++i) {
      for (int d = 0; d < 3; ++d) EXPECT_LT(a.positions()[4 * i + d], his[call][d]);
    }
    expect_fields_follow(a);
  }
}

// select_sends then pack_sends against ghost_list_mask, particle by particle.
void expect_send_lists(Arrays& a, double low, double high) {
  GhostBands bands{};
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = low;
    bands.high[d] = high;
  }
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) bands.shift[list][d] = 100.0 * neighbour_step(list, d);
  }
  long counts[kNeighbours] = {}, total = 0;
  a.select_sends(bands, counts);
  for (int list = 0; list < kNeighbours; ++list) total += counts[list];
  std::vector<double> packed(static_cast<size_t>(3 * total));
  a.pack_sends((std::uint32_t{1} << kNeighbours) - 1, packed.data());
  std::vector<double> expected;
  for (int list = 0; list < kNeighbours; ++list) {
    long in_list = 0;
    for (long i = 0; i < a.owned(); ++i) {
      const double* x = a.positions() + 4 * i;
      if ((ghost_list_mask(x[0], x[1], x[2], bands) >> list & 1u) == 0) continue;
      ++in_list;
      for (int d = 0; d < 3; ++d) expected.push_back(x[d] + bands.shift[list][d]);
    }
    EXPECT_EQ(counts[list], in_list) << "list " << list;
  }
  EXPECT_EQ(packed, expected);
}

TEST(ParticleFields, SendListsAreEachListsParticlesInOrder) {
  Arrays a = make_arrays();
  a.assign_records(lattice(a));
  expect_send_lists(a, 2.0, 8.0);  // a corner particle in 7 lists
  expect_send_lists(a, 6.0, 4.0);  // bands overlapping: in up to 26
  Arrays b = make_arrays();
  b.assign_records(cube(b));
  expect_send_lists(b, 2.0, 8.0);
  expect_send_lists(b, 6.0, 4.0);
}

// push_all's own images (lists sent to the rank itself, in the pushes'
// launch) land where copy_sends_to_ghosts puts them, bit for bit, while a
// pushed list lands in its target: one launch does both.
TEST(ParticleFields, PushAllCopiesOwnImagesAsCopySendsToGhostsDoes) {
  Arrays a = make_arrays(), b = make_arrays();
  a.assign_records(cube(a));
  b.assign_records(cube(b));
  GhostBands bands{};
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = 2.0;
    bands.high[d] = 8.0;
  }
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) bands.shift[list][d] = 100.0 * neighbour_step(list, d);
  }
  long counts[kNeighbours];
  a.select_sends(bands, counts);
  b.select_sends(bands, counts);
  // The even lists are this rank's own images, in reverse order of slots;
  // list 1 goes to another rank's array from its slot 3 on.
  std::uint32_t own = 0;
  long first[kNeighbours] = {}, ghosts = 0;
  for (int list = kNeighbours - 1; list >= 0; --list) {
    if (list % 2 != 0) continue;
    own |= std::uint32_t{1} << list;
    first[list] = ghosts;
    ghosts += counts[list];
  }
  ASSERT_GT(counts[1], 0);
  std::vector<double> target(static_cast<size_t>(4 * (3 + counts[1])), -1.0);
  void* targets[kNeighbours] = {};
  long slots[kNeighbours];
  std::copy(first, first + kNeighbours, slots);
  targets[1] = target.data();
  slots[1] = 3;
  a.reserve_ghosts(ghosts);
  b.reserve_ghosts(ghosts);
  a.copy_sends_to_ghosts(own, first);
  ASSERT_TRUE(b.push_all(targets, slots, own, StepHandshake{}));
  const long n = a.owned() + ghosts;
  EXPECT_EQ(std::vector<double>(b.positions(), b.positions() + 4 * n),
            std::vector<double>(a.positions(), a.positions() + 4 * n));
  std::vector<double> packed(static_cast<size_t>(3 * counts[1]));
  a.pack_sends(std::uint32_t{1} << 1, packed.data());
  for (long t = 0; t < counts[1]; ++t) {
    for (int d = 0; d < 3; ++d)
      EXPECT_EQ(target[static_cast<size_t>(4 * (3 + t) + d)],
                packed[static_cast<size_t>(3 * t + d)])
          << "list 1, entry " << t;
  }
  EXPECT_EQ(std::count(target.begin(), target.begin() + 12, -1.0), 12) << "before slot 3";
}

}  // namespace
}  // namespace mpsfw
