#pragma once
// The ghost-field cases on any backend's particle arrays (Exec: HostExec in
// tests/mpi/test_ghost_fields.cpp, CudaExec in tests/gpu/
// test_ghost_fields_cuda.cu). Particles sit on a lattice of a periodic box,
// so a ghost's position alone names the particle it copies: after a rebuild
// and after the owners rewrite their velocities (update_ghost_fields) every
// ghost's id and velocity are that particle's, positions unmoved; a pair loop
// (for_each_row) reading the neighbours' ids, owned or ghost, sums exactly the
// 26 lattice neighbours'; shares scattered onto neighbours come home through
// add_ghosts_to_owners; half lists hold every pair of the system once, and
// fixed-point shares added atomically come home exact. Fields are read on
// the host through copies, wherever they live. The exchange takes the paths
// `halo`, `where` and `memory` allow (MPI by default; device to device
// between ranks of one GPU where the CUDA case asks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/neighbour_rows.hpp>
#include <mpsfw/core/particles/pair_shares.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>

namespace mpsfw::testing_support {

constexpr double kLatticeSpacing = 0.5;
constexpr double kLatticeGhostWidth = 0.9;  // under one link cell (1.0): neighbours are enough

struct LatticeRecord {
  double x[3];
  double v[3];
  std::int64_t id;
};

enum LatticeFields { kVelocity = 0, kId = 1, kForce = 2, kShare = 3, kTally = 4 };

inline std::vector<FieldSpec> lattice_fields() {
  return {{"v", 3, FieldType::Real, true, true},
          {"id", 1, FieldType::Integer, true, true},
          {"f", 3, FieldType::Real, false, false},
          {"share", 2, FieldType::Real, false, true},
          {"tally", 2, FieldType::Integer, false, true}};
}

// Velocity component c of particle `id` in `phase`: different everywhere.
inline double lattice_velocity(std::int64_t id, int c, int phase) {
  return static_cast<double>(id) + 0.125 * c + 1000.0 * phase;
}

struct Lattice {
  int n[3];  // sites a side: the box is n * kLatticeSpacing long
  double box(int d) const { return n[d] * kLatticeSpacing; }
  std::int64_t id(const int site[3]) const {
    return site[0] + static_cast<std::int64_t>(n[0]) * (site[1] + std::int64_t{n[1]} * site[2]);
  }
  // The site of a position, wrapped into the box (a ghost's periodic image).
  std::int64_t id_at(const double* x) const {
    int site[3];
    for (int d = 0; d < 3; ++d) {
      double w = std::fmod(x[d], box(d));
      if (w < 0) w += box(d);
      site[d] = static_cast<int>(std::floor(w / kLatticeSpacing));
    }
    return id(site);
  }
  // The sum of the ids of the 26 sites around the particle at `x`.
  double neighbour_ids(const double* x) const {
    double sum = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const double at[3] = {x[0] + dx * kLatticeSpacing, x[1] + dy * kLatticeSpacing,
                                x[2] + dz * kLatticeSpacing};
          sum += static_cast<double>(id_at(at));
        }
    return sum;
  }
};

// The lattice's particles that `domain` owns, with velocities of phase 0.
inline ParticleRecords owned_sites(const Lattice& l, const Subdomain& domain, RecordLayout layout) {
  ParticleRecords r(layout);
  int s[3];
  for (s[2] = 0; s[2] < l.n[2]; ++s[2])
    for (s[1] = 0; s[1] < l.n[1]; ++s[1])
      for (s[0] = 0; s[0] < l.n[0]; ++s[0]) {
        LatticeRecord p{};
        for (int d = 0; d < 3; ++d) p.x[d] = (s[d] + 0.25) * kLatticeSpacing;
        if (!domain.contains(p.x)) continue;
        p.id = l.id(s);
        for (int c = 0; c < 3; ++c) p.v[c] = lattice_velocity(p.id, c, 0);
        r.append(&p);
      }
  return r;
}

// n values from `from` in `space`, on the host.
template <class T>
std::vector<T> on_host(const T* from, long n, Backend space) {
  std::vector<T> out(static_cast<size_t>(n));
  if (n > 0) memory::copy(out.data(), Backend::Host, from, space, out.size() * sizeof(T));
  return out;
}

// The arrays' particles and fields as the host sees them.
template <class Arrays>
struct HostCopy {
  long owned, all, cap;
  std::vector<double> x, v, f, share;
  std::vector<std::int64_t> id, tally;

  explicit HostCopy(Arrays& a) : owned(a.owned()), all(a.owned() + a.ghosts()), cap(a.capacity()) {
    a.synchronize();
    const Backend s = Arrays::kSpace;
    x = on_host(a.positions(), 4 * all, s);
    v = on_host(a.real(kVelocity), 3 * cap, s);
    f = on_host(a.real(kForce), 3 * cap, s);
    share = on_host(a.real(kShare), 2 * cap, s);
    id = on_host(a.integer(kId), cap, s);
    tally = on_host(a.integer(kTally), 2 * cap, s);
  }
};

// Every ghost's id and velocity against the particle its position names;
// returns how many ghosts were checked.
template <class Arrays>
long check_ghosts(Arrays& a, const Lattice& l, int phase) {
  const HostCopy<Arrays> h(a);
  for (long at = h.owned; at < h.all; ++at) {
    const std::int64_t want = l.id_at(&h.x[static_cast<size_t>(4 * at)]);
    EXPECT_EQ(h.id[static_cast<size_t>(at)], want) << "ghost " << at - h.owned;
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(h.v[static_cast<size_t>(c * h.cap + at)], lattice_velocity(want, c, phase))
          << "ghost " << at - h.owned << " component " << c;
    if (::testing::Test::HasFailure()) return at - h.owned;
  }
  return h.all - h.owned;
}

template <class Exec>
void ghost_field_case(const Lattice& l, Int3 hint, HaloTransport halo = HaloTransport::Mpi,
                      const DeviceLocation& where = {}, PeerMemory* memory = nullptr) {
  using Arrays = ParticleArrays<Exec>;
  CartDecomposition dec(
      MPI_COMM_WORLD,
      {static_cast<int>(l.box(0)), static_cast<int>(l.box(1)), static_cast<int>(l.box(2))}, hint,
      {true, true, true});
  const double box[3] = {l.box(0), l.box(1), l.box(2)};
  const Subdomain dom = subdomain_of(dec, box);
  Arrays a(lattice_fields());
  EXPECT_EQ(a.ghost_field_words(ParticleStore::kAllGhostFields), 8);
  EXPECT_EQ(a.ghost_field_words(1u << kVelocity), 3);
  a.assign_records(owned_sites(l, dom, a.record_layout()));
  ParticleExchange ex(dec, dom, kLatticeGhostWidth, halo, HaloSync::Auto, where, memory);
  ex.exchange_ghosts(a);
  EXPECT_GT(a.ghosts(), 0);
  EXPECT_EQ(check_ghosts(a, l, 0), a.ghosts());

  // The owners' velocities change; the ghosts follow, positions do not move.
  const HostCopy<Arrays> before(a);
  std::vector<double> v = before.v;
  for (long i = 0; i < before.owned; ++i) {
    for (int c = 0; c < 3; ++c)
      v[static_cast<size_t>(c * before.cap + i)] =
          lattice_velocity(before.id[static_cast<size_t>(i)], c, 1);
  }
  memory::copy(a.real(kVelocity), Arrays::kSpace, v.data(), Backend::Host,
               v.size() * sizeof(double));
  ex.update_ghost_fields(a);
  EXPECT_EQ(check_ghosts(a, l, 1), a.ghosts());
  EXPECT_EQ(HostCopy<Arrays>(a).x, before.x);

  // A pair loop over every particle's 26 lattice neighbours (all within the
  // reach) reads their ids: their sum, and how many; and gives each
  // neighbour, owned or ghost, 1 and its own id (real atomic adds of whole
  // numbers: exact in any order). The ghosts' shares then go home: every
  // particle is listed by its 26 lattice neighbours, on whichever ranks.
  a.build_neighbors(ex.cell_grid(), kLatticeGhostWidth);
  const long cap = a.capacity();
  const std::int64_t* ids = a.integer(kId);
  double* f = a.real(kForce);
  double* share = a.real(kShare);
  std::int64_t* tally = a.integer(kTally);
  const std::vector<std::uint64_t> zeros(static_cast<size_t>(2 * cap), 0);
  memory::copy(share, Arrays::kSpace, zeros.data(), Backend::Host, zeros.size() * 8);
  memory::copy(tally, Arrays::kSpace, zeros.data(), Backend::Host, zeros.size() * 8);
  a.for_each_row(MPSFW_LAMBDA(const PairRow& row) {
    double sum = 0, count = 0;
    row.each([&](int j, const double*) {
      sum += static_cast<double>(ids[j]);
      count += 1;
      atomic_add(&share[j], 1.0);
      atomic_add(&share[cap + j], static_cast<double>(ids[row.i]));
    });
    f[row.i] = sum;
    f[cap + row.i] = count;
  });
  ex.add_ghosts_to_owners(a, 1u << kShare);
  {
    const HostCopy<Arrays> h(a);
    for (long i = 0; i < h.owned; ++i) {
      const auto at = static_cast<size_t>(i);
      const double want = l.neighbour_ids(&h.x[4 * at]);
      EXPECT_EQ(h.f[static_cast<size_t>(cap) + at], 26) << "particle " << h.id[at];
      EXPECT_EQ(h.f[at], want) << "particle " << h.id[at];
      EXPECT_EQ(h.share[at], 26) << "particle " << h.id[at];
      EXPECT_EQ(h.share[static_cast<size_t>(cap) + at], want) << "particle " << h.id[at];
      if (::testing::Test::HasFailure()) break;
    }
  }
  // Only fields that reach ghosts come home.
  EXPECT_THROW(ex.add_ghosts_to_owners(a, 1u << kForce), Error);

  // Half lists: every pair listed once in the whole system; a pair loop
  // gives both particles their shares atomically, in fixed point, and home
  // again every particle has all 26, exactly.
  a.set_neighbour_lists(NeighbourLists::Half);
  a.build_neighbors(ex.cell_grid(), kLatticeGhostWidth);
  const std::vector<int> counts = on_host(a.neighbours().count, a.owned(), Arrays::kSpace);
  long pairs = 0, all_pairs = 0, particles = 0;
  for (int c : counts) pairs += c;
  const long owned = a.owned();
  MPI_Allreduce(&pairs, &all_pairs, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&owned, &particles, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all_pairs, 13 * particles);
  const FixedPoint fixed;
  a.for_each_row(MPSFW_LAMBDA(const PairRow& row) {
    row.each([&](int j, const double*) {
      atomic_add(&tally[row.i], fixed.of(1.0));
      atomic_add(&tally[j], fixed.of(1.0));
      atomic_add(&tally[cap + row.i], fixed.of(0.5 * static_cast<double>(ids[j])));
      atomic_add(&tally[cap + j], fixed.of(0.5 * static_cast<double>(ids[row.i])));
    });
  });
  ex.add_ghosts_to_owners(a, 1u << kTally);
  const HostCopy<Arrays> h(a);
  for (long i = 0; i < h.owned; ++i) {
    const auto at = static_cast<size_t>(i);
    EXPECT_EQ(fixed.value(h.tally[at]), 26) << "particle " << h.id[at];
    EXPECT_EQ(fixed.value(h.tally[static_cast<size_t>(cap) + at]),
              0.5 * l.neighbour_ids(&h.x[4 * at]))
        << "particle " << h.id[at];
    if (::testing::Test::HasFailure()) break;
  }
}

inline int world_ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

}  // namespace mpsfw::testing_support
