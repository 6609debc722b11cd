// Ghost fields (FieldSpec::ghosts): after a rebuild every ghost holds, in
// each field that reaches ghosts, what the particle it copies holds; after
// the owners rewrite a field, update_ghost_fields brings the ghosts the new
// values over the same plan, while positions stay as they were; a pair loop
// (for_each_row) reads the neighbour's fields by its index, owned or ghost,
// and sums exactly the 26 lattice neighbours' ids; what a loop adds to its
// neighbours (a half list's share of a pair) reaches them through
// add_ghosts_to_owners wherever they are owned; half lists hold every pair of
// the system once, and their shares, added atomically in fixed point, come
// to the same. Particles sit
// on a lattice of a periodic box, so a ghost's position alone says which
// particle it copies: its id and velocity are checked against that, on every
// rank grid ctest runs (1 to 8 ranks; all ranks along x, where a rank is its
// own neighbour along y and z, or spread over the three axes), on the host
// backend's arrays.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/decomposition.hpp"
#include "core/particles/host_exec.hpp"
#include "core/particles/neighbour_rows.hpp"
#include "core/particles/pair_shares.hpp"
#include "core/particles/particle_arrays.hpp"
#include "core/particles/particle_exchange.hpp"

namespace mpsfw {
namespace {

constexpr double kSpacing = 0.5;     // of the lattice
constexpr double kGhostWidth = 0.9;  // under one link cell (1.0): neighbours are enough

struct Record {
  double x[3];
  double v[3];
  std::int64_t id;
};

enum Fields { kVelocity = 0, kId = 1, kForce = 2, kShare = 3, kTally = 4 };

using Arrays = ParticleArrays<HostExec>;

Arrays make_arrays() {
  return Arrays({{"v", 3, FieldType::Real, true, true},
                 {"id", 1, FieldType::Integer, true, true},
                 {"f", 3, FieldType::Real, false, false},
                 {"share", 2, FieldType::Real, false, true},
                 {"tally", 2, FieldType::Integer, false, true}});
}

// Velocity component c of particle `id` in `phase`: different everywhere.
double velocity(std::int64_t id, int c, int phase) {
  return static_cast<double>(id) + 0.125 * c + 1000.0 * phase;
}

struct Lattice {
  int n[3];  // sites a side: the box is n * kSpacing long
  double box(int d) const { return n[d] * kSpacing; }
  std::int64_t id(const int site[3]) const {
    return site[0] + static_cast<std::int64_t>(n[0]) * (site[1] + std::int64_t{n[1]} * site[2]);
  }
  // The site of a position, wrapped into the box (a ghost's periodic image).
  std::int64_t id_at(const double* x) const {
    int site[3];
    for (int d = 0; d < 3; ++d) {
      double w = std::fmod(x[d], box(d));
      if (w < 0) w += box(d);
      site[d] = static_cast<int>(std::floor(w / kSpacing));
    }
    return id(site);
  }
};

// The lattice's particles that `domain` owns, with velocities of phase 0.
ParticleRecords owned_sites(const Lattice& l, const Subdomain& domain, RecordLayout layout) {
  ParticleRecords r(layout);
  int s[3];
  for (s[2] = 0; s[2] < l.n[2]; ++s[2])
    for (s[1] = 0; s[1] < l.n[1]; ++s[1])
      for (s[0] = 0; s[0] < l.n[0]; ++s[0]) {
        Record p{};
        for (int d = 0; d < 3; ++d) p.x[d] = (s[d] + 0.25) * kSpacing;
        if (!domain.contains(p.x)) continue;
        p.id = l.id(s);
        for (int c = 0; c < 3; ++c) p.v[c] = velocity(p.id, c, 0);
        r.append(&p);
      }
  return r;
}

// Every ghost's id and velocity against the particle its position names;
// returns how many ghosts were checked.
long check_ghosts(const Arrays& a, const Lattice& l, int phase) {
  const long owned = a.owned(), cap = a.capacity();
  const double* x = a.positions();
  const double* v = a.real(kVelocity);
  const std::int64_t* id = a.integer(kId);
  for (long g = 0; g < a.ghosts(); ++g) {
    const long at = owned + g;
    const std::int64_t want = l.id_at(x + 4 * at);
    EXPECT_EQ(id[at], want) << "ghost " << g;
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(v[c * cap + at], velocity(want, c, phase)) << "ghost " << g << " component " << c;
    if (::testing::Test::HasFailure()) return g;
  }
  return a.ghosts();
}

void check_ghost_fields(const Lattice& l, Int3 hint) {
  CartDecomposition dec(
      MPI_COMM_WORLD,
      {static_cast<int>(l.box(0)), static_cast<int>(l.box(1)), static_cast<int>(l.box(2))}, hint,
      {true, true, true});
  const double box[3] = {l.box(0), l.box(1), l.box(2)};
  const Subdomain dom = subdomain_of(dec, box);
  Arrays a = make_arrays();
  EXPECT_EQ(a.ghost_field_words(ParticleStore::kAllGhostFields), 8);
  EXPECT_EQ(a.ghost_field_words(1u << kVelocity), 3);
  a.assign_records(owned_sites(l, dom, a.record_layout()));
  ParticleExchange ex(dec, dom, kGhostWidth);
  ex.exchange_ghosts(a);
  EXPECT_GT(a.ghosts(), 0);
  EXPECT_EQ(check_ghosts(a, l, 0), a.ghosts());

  // The owners' velocities change; the ghosts follow, positions do not move.
  const std::vector<double> before(a.positions(), a.positions() + 4 * (a.owned() + a.ghosts()));
  double* v = a.real(kVelocity);
  const std::int64_t* id = a.integer(kId);
  for (long i = 0; i < a.owned(); ++i) {
    for (int c = 0; c < 3; ++c) v[c * a.capacity() + i] = velocity(id[i], c, 1);
  }
  ex.update_ghost_fields(a);
  EXPECT_EQ(check_ghosts(a, l, 1), a.ghosts());
  const std::vector<double> after(a.positions(), a.positions() + before.size());
  EXPECT_EQ(after, before);

  // A pair loop over every particle's 26 lattice neighbours (all within the
  // reach), reading their ids: their sum, and how many.
  a.build_neighbors(ex.cell_grid(), kGhostWidth);
  const std::int64_t* ids = a.integer(kId);
  double* f = a.real(kForce);
  const long cap = a.capacity();
  a.for_each_row([=](const PairRow& row) {
    double sum = 0, count = 0;
    row.each([&](int j, const double*) {
      sum += static_cast<double>(ids[j]);
      count += 1;
    });
    f[row.i] = sum;
    f[cap + row.i] = count;
  });
  std::vector<double> neighbour_ids(static_cast<size_t>(a.owned()));
  for (long i = 0; i < a.owned(); ++i) {
    const double* xi = a.positions() + 4 * i;
    double& want = neighbour_ids[static_cast<size_t>(i)];
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const double at[3] = {xi[0] + dx * kSpacing, xi[1] + dy * kSpacing,
                                xi[2] + dz * kSpacing};
          want += static_cast<double>(l.id_at(at));
        }
    EXPECT_EQ(f[cap + i], 26) << "particle " << ids[i];
    EXPECT_EQ(f[i], want) << "particle " << ids[i];
    if (::testing::Test::HasFailure()) break;
  }

  // Each owned particle gives every listed neighbour, owned or ghost, 1 and
  // its id (serially: a test of where shares go, not of a parallel scatter);
  // the ghosts' shares then go home. Every particle is listed by its 26
  // lattice neighbours, on whichever ranks they are.
  double* share = a.real(kShare);
  for (long j = 0; j < a.owned() + a.ghosts(); ++j) share[j] = share[cap + j] = 0;
  const NeighbourRows rows = a.neighbours();
  for (int i = 0; i < static_cast<int>(a.owned()); ++i) {
    for (int k = 0; k < rows.count[i]; ++k) {
      const int j = rows.at(i, k);
      share[j] += 1;
      share[cap + j] += static_cast<double>(ids[i]);
    }
  }
  ex.add_ghosts_to_owners(a, 1u << kShare);
  for (long i = 0; i < a.owned(); ++i) {
    EXPECT_EQ(share[i], 26) << "particle " << ids[i];
    EXPECT_EQ(share[cap + i], neighbour_ids[static_cast<size_t>(i)]) << "particle " << ids[i];
    if (::testing::Test::HasFailure()) break;
  }
  // Only fields that reach ghosts come home.
  EXPECT_THROW(ex.add_ghosts_to_owners(a, 1u << kForce), Error);

  // Half lists: every pair listed once in the whole system; a parallel pair
  // loop gives both particles their shares atomically, in fixed point, and
  // home again every particle has all 26, exactly.
  a.set_neighbour_lists(NeighbourLists::Half);
  a.build_neighbors(ex.cell_grid(), kGhostWidth);
  const NeighbourRows half = a.neighbours();
  long pairs = 0, all_pairs = 0, particles = 0;
  for (int i = 0; i < static_cast<int>(a.owned()); ++i) pairs += half.count[i];
  const long owned = a.owned();
  MPI_Allreduce(&pairs, &all_pairs, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&owned, &particles, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all_pairs, 13 * particles);
  std::int64_t* tally = a.integer(kTally);
  for (long j = 0; j < a.owned() + a.ghosts(); ++j) tally[j] = tally[cap + j] = 0;
  const FixedPoint fixed;
  a.for_each_row([=](const PairRow& row) {
    row.each([&](int j, const double*) {
      atomic_add(&tally[row.i], fixed.of(1.0));
      atomic_add(&tally[j], fixed.of(1.0));
      atomic_add(&tally[cap + row.i], fixed.of(0.5 * static_cast<double>(ids[j])));
      atomic_add(&tally[cap + j], fixed.of(0.5 * static_cast<double>(ids[row.i])));
    });
  });
  ex.add_ghosts_to_owners(a, 1u << kTally);
  for (long i = 0; i < a.owned(); ++i) {
    EXPECT_EQ(fixed.value(tally[i]), 26) << "particle " << ids[i];
    EXPECT_EQ(fixed.value(tally[cap + i]), 0.5 * neighbour_ids[static_cast<size_t>(i)])
        << "particle " << ids[i];
    if (::testing::Test::HasFailure()) break;
  }
}

int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

TEST(GhostFields, FollowTheirOwnersOnAnyRankGrid) { check_ghost_fields({{12, 10, 8}}, {0, 0, 0}); }

TEST(GhostFields, FollowTheirOwnersWhereARankIsItsOwnNeighbour) {
  check_ghost_fields({{2 * 2 * ranks(), 6, 6}}, {ranks(), 1, 1});
}

// A store without ghost fields: nothing to move, nothing planned.
TEST(GhostFields, AStoreWithoutThemHasNone) {
  CartDecomposition dec(MPI_COMM_WORLD, {6, 5, 4}, {0, 0, 0}, {true, true, true});
  const double box[3] = {6, 5, 4};
  const Subdomain dom = subdomain_of(dec, box);
  ParticleArrays<HostExec> a({{"v", 3, FieldType::Real, true, false}});
  EXPECT_EQ(a.ghost_field_words(ParticleStore::kAllGhostFields), 0);
  ParticleExchange ex(dec, dom, kGhostWidth);
  ex.exchange_ghosts(a);
  ex.update_ghost_fields(a);
  std::uint64_t word = 0;
  EXPECT_THROW(a.ParticleStore::pack_ghost_fields(1u, ParticleStore::kAllGhostFields, &word),
               Error);
  ex.add_ghosts_to_owners(a, ParticleStore::kAllGhostFields);  // nothing to add
}

}  // namespace
}  // namespace mpsfw
