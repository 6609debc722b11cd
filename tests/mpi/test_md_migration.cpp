// Migration and ghosts, targeted (ctest runs this at 1 to 8 ranks), on the
// default rank grid and with all ranks along x, y or z in turn (so 3 to 8
// ranks along one axis, uneven blocks at 3, 5, 6, 7): on every rank one atom
// next to each of its 6 faces, 12 edges and 8 corners moves out across it
// (through the periodic box edge where the rank touches it), and atoms land
// exactly on a face of their subdomain or of the box. After drift + migrate
// every atom lives on exactly one rank, the one whose subdomain holds it, at
// the position it drifted to, folded into the box. Then the ghosts of every
// rank are exactly the atoms and periodic images within the ghost width
// (cutoff + skin) of its
// subdomain (counted by brute force over all atoms and 27 images).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "support/md_runs.hpp"
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/core/particles/subdomain.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace mpsfw {
namespace {

using testing_support::md_config;

// 14^3 FCC cells: 8 link cells of cutoff + skin a side, room for 8 ranks along any axis.
const std::vector<std::string> kBox = {"md.cells_x=14", "md.cells_y=14", "md.cells_z=14"};

// An atom's id tells the rank that first held it.
constexpr std::int64_t kIdsPerRank = 100000;

md::AtomRecord atom_at(const double x[3], const double v[3], std::int64_t id) {
  md::AtomRecord a{};
  for (int d = 0; d < 3; ++d) {
    a.x[d] = x[d];
    a.v[d] = v[d];
  }
  a.id = id;
  return a;
}

// This rank's test atoms (drift by dt = 1 moves each by v):
//  - 26 atoms 0.01 inside a face, edge or corner, moving 0.02 out across it;
//  - per dimension, one landing exactly on the high face (it belongs to the
//    neighbour above, or at the box edge lands on L and folds to 0) and one
//    landing exactly on the low face (it stays);
//  - on ranks at the low box face, one at 0 moving out by 1e-300: its image
//    L - 1e-300 rounds to L, so it must become the largest double below L on
//    the rank at the top.
std::vector<md::AtomRecord> test_atoms(const Subdomain& dom, int rank, const Int3& coords) {
  std::vector<md::AtomRecord> mine;
  const auto id = [&] { return rank * kIdsPerRank + static_cast<std::int64_t>(mine.size()); };
  double mid[3];
  for (int d = 0; d < 3; ++d) mid[d] = 0.5 * (dom.lo[d] + dom.hi[d]);
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const int dir[3] = {dx, dy, dz};
        double x[3], v[3];
        for (int d = 0; d < 3; ++d) {
          x[d] = dir[d] < 0 ? dom.lo[d] + 0.01 : (dir[d] > 0 ? dom.hi[d] - 0.01 : mid[d]);
          v[d] = 0.02 * dir[d];
        }
        mine.push_back(atom_at(x, v, id()));
      }
    }
  }
  for (int d = 0; d < 3; ++d) {
    double x[3] = {mid[0], mid[1], mid[2]}, v[3] = {0, 0, 0};
    x[d] = dom.hi[d] - 0.25;
    v[d] = dom.hi[d] - x[d];  // exact: x + v == hi
    mine.push_back(atom_at(x, v, id()));
    x[d] = dom.lo[d] + 0.25;
    v[d] = dom.lo[d] - x[d];  // x + v == lo
    mine.push_back(atom_at(x, v, id()));
    if (coords[d] == 0) {
      x[d] = 0;
      v[d] = -1e-300;
      mine.push_back(atom_at(x, v, id()));
    }
  }
  return mine;
}

// Where an atom at x + v ends up inside the box [0, L), computed apart from
// the solver: one box length over, and L - tiny that rounds to L as the
// largest double below L.
double expected_position(double x, double v, double length) {
  double y = x + v;
  if (y < 0) {
    y += length;
    if (y == length) y = std::nextafter(length, 0.0);
  } else if (y >= length) {
    y -= length;
  }
  return y;
}

// Every rank's atoms, as every rank will hold them after a drift by v: at
// x + v, folded into the box.
std::map<std::int64_t, md::AtomRecord> drifted_everywhere(const std::vector<md::AtomRecord>& mine,
                                                          const double box[3]) {
  int count = static_cast<int>(mine.size());
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total_count = 0;
  for (int r = 0; r < ranks; ++r) {
    counts[static_cast<size_t>(r)] *= static_cast<int>(sizeof(md::AtomRecord));
    offsets[static_cast<size_t>(r)] = total_count;
    total_count += counts[static_cast<size_t>(r)];
  }
  std::vector<md::AtomRecord> all(static_cast<size_t>(total_count) / sizeof(md::AtomRecord));
  MPI_Allgatherv(mine.data(), count * static_cast<int>(sizeof(md::AtomRecord)), MPI_BYTE,
                 all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::map<std::int64_t, md::AtomRecord> expected;
  for (md::AtomRecord a : all) {
    for (int d = 0; d < 3; ++d) a.x[d] = expected_position(a.x[d], a.v[d], box[d]);
    expected[a.id] = a;
  }
  return expected;
}

// After the migration: every atom of `expected` is held by exactly one rank,
// the one whose subdomain holds it, where it drifted to; with several ranks,
// some changed hands.
void expect_each_atom_once_on_its_owner(const std::vector<md::AtomRecord>& held,
                                        const std::map<std::int64_t, md::AtomRecord>& expected,
                                        const CartDecomposition& dec, const Subdomain& dom,
                                        const std::string& where) {
  for (const md::AtomRecord& a : held) {
    EXPECT_TRUE(dom.contains(a.x)) << where << " holds atom " << a.id << " outside its subdomain";
    const md::AtomRecord& e = expected.at(a.id);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(a.x[d], e.x[d]) << where << ", atom " << a.id;
  }
  std::map<std::int64_t, size_t> slot;
  for (const auto& [id, a] : expected) slot.emplace(id, slot.size());
  std::vector<int> seen(expected.size(), 0), total(expected.size(), 0);
  for (const md::AtomRecord& a : held) ++seen[slot.at(a.id)];
  MPI_Allreduce(seen.data(), total.data(), static_cast<int>(total.size()), MPI_INT, MPI_SUM,
                MPI_COMM_WORLD);
  for (const auto& [id, i] : slot) EXPECT_EQ(total[i], 1) << where << ", atom " << id;
  if (dec.size() > 1 && !expected.empty()) {
    int moved = 0;
    for (const md::AtomRecord& a : held) moved += a.id / kIdsPerRank != dec.rank();
    int moved_total = 0;
    MPI_Allreduce(&moved, &moved_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(moved_total, 0) << where;
  }
}

std::string where_of(const CartDecomposition& dec) {
  return "rank grid " + std::to_string(dec.rank_grid()[0]) + "x" +
         std::to_string(dec.rank_grid()[1]) + "x" + std::to_string(dec.rank_grid()[2]) + ", rank " +
         std::to_string(dec.rank());
}

void migrate_and_check(const Int3& hint) {
  const md::MdConfig c = md_config(kBox);
  CartDecomposition dec(MPI_COMM_WORLD, md::link_cells(c), hint, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  const std::string where = where_of(dec);
  const std::vector<md::AtomRecord> mine = test_atoms(dom, dec.rank(), dec.coords());
  const std::map<std::int64_t, md::AtomRecord> expected = drifted_everywhere(mine, c.box);

  auto store = md::make_md_store(Backend::Host, c.pair);
  store->assign(mine);
  store->kick_drift(0.5, 1.0, c.mass);  // no forces yet: x += v
  const double width = md::ghost_width(c);
  ParticleExchange comm(dec, dom, width);
  comm.migrate(*store);
  expect_each_atom_once_on_its_owner(store->download(), expected, dec, dom, where);

  // Ghosts: every atom or periodic image within the ghost width of the subdomain
  // (and not owned here), by brute force over all atoms and 27 images.
  comm.exchange_ghosts(*store);
  long want = 0;
  for (const auto& [id, a] : expected) {
    for (int iz = -1; iz <= 1; ++iz) {
      for (int iy = -1; iy <= 1; ++iy) {
        for (int ix = -1; ix <= 1; ++ix) {
          const int image[3] = {ix, iy, iz};
          double p[3];
          bool near = true, inside = true;
          for (int d = 0; d < 3; ++d) {
            p[d] = a.x[d] + image[d] * c.box[d];
            near = near && p[d] >= dom.lo[d] - width && p[d] < dom.hi[d] + width;
            inside = inside && p[d] >= dom.lo[d] && p[d] < dom.hi[d];
          }
          want += near && !inside;
        }
      }
    }
  }
  EXPECT_EQ(store->ghosts(), want) << where;
}

// `per_face` atoms 0.01 inside each of this rank's 6 faces, spread over the
// face, each moving 0.02 out across it.
std::vector<md::AtomRecord> crowd_at_faces(const Subdomain& dom, int rank, int per_face) {
  std::vector<md::AtomRecord> mine;
  for (int d = 0; d < 3; ++d) {
    for (int side = -1; side <= 1; side += 2) {
      for (int i = 0; i < per_face; ++i) {
        double x[3], v[3] = {0, 0, 0};
        const int across = (d + 1) % 3, up = (d + 2) % 3;  // the face's two directions
        x[across] = dom.lo[across] + (i + 0.5) / per_face * (dom.hi[across] - dom.lo[across]);
        x[up] = dom.lo[up] + (0.3 + 0.4 * (i % 2)) * (dom.hi[up] - dom.lo[up]);
        x[d] = side < 0 ? dom.lo[d] + 0.01 : dom.hi[d] - 0.01;
        v[d] = 0.02 * side;
        mine.push_back(atom_at(x, v, rank * kIdsPerRank + static_cast<std::int64_t>(mine.size())));
      }
    }
  }
  return mine;
}

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

TEST(MdMigration, AtomsCrossingEveryFaceEdgeAndCornerReachTheirOwner) {
  migrate_and_check({0, 0, 0});
}

// A migration's first round carries as many records as the last count on
// each channel promises (at least 64); crowds larger than that, then within
// it, then over it again, in migrations in a row on one exchange.
TEST(MdMigration, CrowdsCrossingEveryFaceArriveWhateverTheirCount) {
  const md::MdConfig c = md_config(kBox);
  CartDecomposition dec(MPI_COMM_WORLD, md::link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  ParticleExchange comm(dec, dom, md::ghost_width(c));
  for (const int per_face : {0, 300, 20, 130, 700}) {
    const std::string where = where_of(dec) + ", " + std::to_string(per_face) + " atoms a face";
    const std::vector<md::AtomRecord> mine = crowd_at_faces(dom, dec.rank(), per_face);
    const std::map<std::int64_t, md::AtomRecord> expected = drifted_everywhere(mine, c.box);
    auto store = md::make_md_store(Backend::Host, c.pair);
    store->assign(mine);
    store->kick_drift(0.5, 1.0, c.mass);  // no forces: x += v
    comm.migrate(*store);
    const std::vector<md::AtomRecord> held = store->download();
    long count = static_cast<long>(held.size()), total = 0;
    MPI_Allreduce(&count, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    ASSERT_EQ(total, static_cast<long>(expected.size())) << where;
    expect_each_atom_once_on_its_owner(held, expected, dec, dom, where);
  }
}

TEST(MdMigration, AllRanksAlongX) { migrate_and_check({world_size(), 1, 1}); }
TEST(MdMigration, AllRanksAlongY) { migrate_and_check({1, world_size(), 1}); }
TEST(MdMigration, AllRanksAlongZ) { migrate_and_check({1, 1, world_size()}); }

}  // namespace
}  // namespace mpsfw
