// Migration and ghosts, targeted (ctest runs this at 1, 2, 4 and 8 ranks): on
// every rank one atom next to each of its 6 faces, 12 edges and 8 corners
// moves out across it (through the periodic box edge where the rank touches
// it). After drift + migrate every atom lives on exactly one rank, the one
// whose subdomain holds it, at the position it drifted to. Then the ghosts of
// every rank are exactly the atoms and periodic images within the cutoff of
// its subdomain (counted by brute force over all atoms and 27 images).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <map>
#include <vector>

#include "core/decomposition.hpp"
#include "solvers/md/md_comm.hpp"
#include "solvers/md/md_domain.hpp"
#include "solvers/md/md_store.hpp"
#include "support/md_runs.hpp"

namespace mpsfw {
namespace {

using testing_support::md_config;

TEST(MdMigration, AtomsCrossingEveryFaceEdgeAndCornerReachTheirOwner) {
  const md::MdConfig c = md_config({"md.cells_x=4", "md.cells_y=4", "md.cells_z=4"});
  CartDecomposition dec(MPI_COMM_WORLD, md::link_cells(c), {0, 0, 0}, {true, true, true});
  const md::Subdomain dom = md::subdomain_of(dec, c.box);
  // 0.01 inside the subdomain, moving 0.02 out along every non-zero direction.
  std::vector<md::AtomRecord> mine;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const int dir[3] = {dx, dy, dz};
        md::AtomRecord a{};
        for (int d = 0; d < 3; ++d) {
          a.x[d] = dir[d] < 0 ? dom.lo[d] + 0.01 : (dir[d] > 0 ? dom.hi[d] - 0.01 : 0.5 * (dom.lo[d] + dom.hi[d]));
          a.v[d] = 0.02 * dir[d];
        }
        a.id = dec.rank() * 100 + static_cast<std::int64_t>(mine.size());
        mine.push_back(a);
      }
    }
  }
  ASSERT_EQ(mine.size(), 26u);
  // Where every atom must end up, known on every rank.
  std::vector<md::AtomRecord> all(26 * static_cast<size_t>(dec.size()));
  MPI_Allgather(mine.data(), 26 * sizeof(md::AtomRecord), MPI_BYTE, all.data(), 26 * sizeof(md::AtomRecord),
                MPI_BYTE, MPI_COMM_WORLD);
  std::map<std::int64_t, md::AtomRecord> expected;
  for (md::AtomRecord a : all) {
    for (int d = 0; d < 3; ++d) a.x[d] = md::wrapped(a.x[d] + a.v[d], c.box[d]);
    expected[a.id] = a;
  }

  auto store = md::make_md_store(Backend::Host);
  store->assign(mine);
  store->drift(1.0, c.box);
  const md::MdComm comm(dec, dom, c.lj.cutoff);
  comm.migrate(*store);

  const std::vector<md::AtomRecord> held = store->download();
  for (const md::AtomRecord& a : held) {
    EXPECT_TRUE(dom.contains(a.x)) << "rank " << dec.rank() << " holds atom " << a.id << " outside its subdomain";
    const md::AtomRecord& e = expected.at(a.id);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(a.x[d], e.x[d]) << "atom " << a.id;
  }
  // Every atom exactly once over all ranks.
  std::vector<int> seen(all.size(), 0), total(all.size(), 0);
  std::map<std::int64_t, size_t> slot;
  for (size_t i = 0; i < all.size(); ++i) slot[all[i].id] = i;
  for (const md::AtomRecord& a : held) ++seen[slot.at(a.id)];
  MPI_Allreduce(seen.data(), total.data(), static_cast<int>(total.size()), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(total[i], 1) << "atom " << all[i].id;
  // With more than one rank, atoms really changed hands.
  if (dec.size() > 1) {
    int moved = 0;
    for (const md::AtomRecord& a : held) moved += a.id / 100 != dec.rank();
    int moved_total = 0;
    MPI_Allreduce(&moved, &moved_total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(moved_total, 0);
  }

  // Ghosts: every atom or periodic image within the cutoff of the subdomain
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
            near = near && p[d] >= dom.lo[d] - c.lj.cutoff && p[d] < dom.hi[d] + c.lj.cutoff;
            inside = inside && p[d] >= dom.lo[d] && p[d] < dom.hi[d];
          }
          want += near && !inside;
        }
      }
    }
  }
  EXPECT_EQ(store->ghosts(), want) << "rank " << dec.rank();
}

}  // namespace
}  // namespace mpsfw
