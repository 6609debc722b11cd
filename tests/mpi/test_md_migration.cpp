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

#include "core/decomposition.hpp"
#include "core/particles/particle_exchange.hpp"
#include "core/particles/subdomain.hpp"
#include "solvers/md/md_store.hpp"
#include "support/md_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::md_config;

// 14^3 FCC cells: 8 link cells of cutoff + skin a side, room for 8 ranks along any axis.
const std::vector<std::string> kBox = {"md.cells_x=14", "md.cells_y=14", "md.cells_z=14"};

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
  const auto id = [&] { return rank * 100 + static_cast<std::int64_t>(mine.size()); };
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

void migrate_and_check(const Int3& hint) {
  const md::MdConfig c = md_config(kBox);
  CartDecomposition dec(MPI_COMM_WORLD, md::link_cells(c), hint, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  const std::string where =
      "rank grid " + std::to_string(dec.rank_grid()[0]) + "x" + std::to_string(dec.rank_grid()[1]) +
      "x" + std::to_string(dec.rank_grid()[2]) + ", rank " + std::to_string(dec.rank());
  const std::vector<md::AtomRecord> mine = test_atoms(dom, dec.rank(), dec.coords());
  // Where every atom must end up, known on every rank.
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(dec.size())),
      offsets(static_cast<size_t>(dec.size()));
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total_count = 0;
  for (int r = 0; r < dec.size(); ++r) {
    counts[static_cast<size_t>(r)] *= static_cast<int>(sizeof(md::AtomRecord));
    offsets[static_cast<size_t>(r)] = total_count;
    total_count += counts[static_cast<size_t>(r)];
  }
  std::vector<md::AtomRecord> all(static_cast<size_t>(total_count) / sizeof(md::AtomRecord));
  MPI_Allgatherv(mine.data(), count * static_cast<int>(sizeof(md::AtomRecord)), MPI_BYTE,
                 all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::map<std::int64_t, md::AtomRecord> expected;
  for (md::AtomRecord a : all) {
    for (int d = 0; d < 3; ++d) a.x[d] = expected_position(a.x[d], a.v[d], c.box[d]);
    expected[a.id] = a;
  }

  auto store = md::make_md_store(Backend::Host);
  store->assign(mine);
  store->kick_drift(0.5, 1.0, c.lj);  // no forces yet: x += v
  const double width = md::ghost_width(c);
  ParticleExchange comm(dec, dom, width);
  comm.migrate(*store);

  const std::vector<md::AtomRecord> held = store->download();
  for (const md::AtomRecord& a : held) {
    EXPECT_TRUE(dom.contains(a.x)) << where << " holds atom " << a.id << " outside its subdomain";
    const md::AtomRecord& e = expected.at(a.id);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(a.x[d], e.x[d]) << where << ", atom " << a.id;
  }
  // Every atom exactly once over all ranks.
  std::vector<int> seen(all.size(), 0), total(all.size(), 0);
  std::map<std::int64_t, size_t> slot;
  for (size_t i = 0; i < all.size(); ++i) slot[all[i].id] = i;
  for (const md::AtomRecord& a : held) ++seen[slot.at(a.id)];
  MPI_Allreduce(seen.data(), total.data(), static_cast<int>(total.size()), MPI_INT, MPI_SUM,
                MPI_COMM_WORLD);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(total[i], 1) << where << ", atom " << all[i].id;
  // With more than one rank, atoms really changed hands.
  if (dec.size() > 1) {
    int moved = 0;
    for (const md::AtomRecord& a : held) moved += a.id / 100 != dec.rank();
    int moved_total = 0;
    MPI_Allreduce(&moved, &moved_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(moved_total, 0) << where;
  }

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

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

TEST(MdMigration, AtomsCrossingEveryFaceEdgeAndCornerReachTheirOwner) {
  migrate_and_check({0, 0, 0});
}

TEST(MdMigration, AllRanksAlongX) { migrate_and_check({world_size(), 1, 1}); }
TEST(MdMigration, AllRanksAlongY) { migrate_and_check({1, world_size(), 1}); }
TEST(MdMigration, AllRanksAlongZ) { migrate_and_check({1, 1, world_size()}); }

}  // namespace
}  // namespace mpsfw
