// The particle layer written once (core/particles/particle_arrays.hpp) gives
// the same particles on the GPU as on the host: MD's store on the arrays with
// the CUDA primitives against the host primitives, one rank, driven through
// the particle exchange (folds, sorts by cell, own periodic images, list
// builds every 5 steps) for 42 steps of velocity Verlet: positions,
// velocities, ids and forces bit for bit, the same displacement, sums within
// round-off (CUB's reduction order is not the host's); leaving particles and
// their records, and the ghost positions packed for sending, bit for bit;
// pairs a hair inside the reach listed as the host lists them (the CUDA build
// tests in single precision first). Skips without a GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "support/gpu_skip.hpp"
#include "support/md_runs.hpp"
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace mpsfw {
namespace {

struct System {
  md::MdConfig c = testing_support::md_config({"md.cells_x=5", "md.cells_y=5", "md.cells_z=6"});
  CartDecomposition dec{MPI_COMM_SELF, md::link_cells(c), {0, 0, 0}, {true, true, true}};
  Subdomain dom = subdomain_of(dec, c.box);
  std::vector<md::AtomRecord> atoms = md::fcc_atoms(c, dom, MPI_COMM_SELF);
  double width = md::ghost_width(c);
};

void rebuild(md::MdStore& s, ParticleExchange& ex, double reach, long step) {
  ex.migrate(s, step);
  s.sort_by_cell(ex.cell_grid());
  ex.exchange_ghosts(s);
  s.build_neighbors(ex.cell_grid(), reach);
}

void run(const System& sys, md::MdStore& s, long steps) {
  ParticleExchange ex(sys.dec, sys.dom, sys.width);
  const double mass = sys.c.mass;
  const double dt = sys.c.dt;
  s.assign(sys.atoms);
  rebuild(s, ex, sys.width, 0);
  s.compute_forces();
  for (long step = 1; step <= steps; ++step) {
    s.kick_drift(0.5 * dt, dt, mass);
    if (step % 5 == 0) {
      rebuild(s, ex, sys.width, step);
    } else {
      ex.update_ghosts(s);
    }
    s.compute_forces();
    s.kick(0.5 * dt, mass);
  }
}

long differing_bits(const void* a, const void* b, std::size_t bytes) {
  return std::memcmp(a, b, bytes) == 0 ? 0 : 1;
}

TEST(ParticleArraysCuda, MdStepsEqualTheHostsBitForBit) {
  MPSFW_REQUIRE_GPU();
  const System sys;
  auto host = md::make_md_store(Backend::Host, sys.c.pair);
  auto cuda = md::make_md_store(Backend::Cuda, sys.c.pair);
  // 42: two steps past a rebuild, so atoms have moved since.
  run(sys, *host, 42);
  run(sys, *cuda, 42);
  const auto h = host->download(), g = cuda->download();
  ASSERT_EQ(h.size(), g.size());
  ASSERT_EQ(h.size(), sys.atoms.size());
  EXPECT_EQ(differing_bits(h.data(), g.data(), h.size() * sizeof(md::AtomRecord)), 0)
      << "positions, velocities or ids differ";
  const auto hf = host->download_forces(), gf = cuda->download_forces();
  ASSERT_EQ(hf.size(), gf.size());
  EXPECT_EQ(differing_bits(hf.data(), gf.data(), hf.size() * sizeof(double)), 0);
  EXPECT_EQ(host->max_displacement(), cuda->max_displacement());
  EXPECT_GT(host->max_displacement(), 0.0);
  EXPECT_EQ(host->ghosts(), cuda->ghosts());
  const md::ForceSums hs = host->pair_sums(), gs = cuda->pair_sums();
  EXPECT_NEAR(hs.potential, gs.potential, 1e-12 * std::abs(hs.potential));
  EXPECT_NEAR(hs.virial, gs.virial, 1e-12 * std::abs(hs.virial));
  const md::MotionSums hm = host->motion(sys.c.mass), gm = cuda->motion(sys.c.mass);
  EXPECT_NEAR(hm.kinetic, gm.kinetic, 1e-12 * hm.kinetic);
}

TEST(ParticleArraysCuda, LeavingRecordsAndPackedSendsEqualTheHosts) {
  MPSFW_REQUIRE_GPU();
  const System sys;
  auto host = md::make_md_store(Backend::Host, sys.c.pair);
  auto cuda = md::make_md_store(Backend::Cuda, sys.c.pair);
  // A band of the box leaves; what stays and what left, in store order.
  const double lo[3] = {0, 0, 0}, hi[3] = {sys.c.box[0], sys.c.box[1], 0.6 * sys.c.box[2]};
  std::vector<md::AtomRecord> left[2];
  md::MdStore* stores[2] = {host.get(), cuda.get()};
  for (int k = 0; k < 2; ++k) {
    stores[k]->assign(sys.atoms);
    stores[k]->take_leaving_atoms(lo, hi, &left[k]);
  }
  ASSERT_GT(left[0].size(), 0u);
  ASSERT_EQ(left[0].size(), left[1].size());
  EXPECT_EQ(differing_bits(left[0].data(), left[1].data(), left[0].size() * sizeof(md::AtomRecord)),
            0);
  const auto h = host->download(), g = cuda->download();
  ASSERT_EQ(h.size(), g.size());
  EXPECT_EQ(h.size() + left[0].size(), sys.atoms.size());
  EXPECT_EQ(differing_bits(h.data(), g.data(), h.size() * sizeof(md::AtomRecord)), 0);
  // They come back, after the others.
  for (int k = 0; k < 2; ++k) stores[k]->add_owned_atoms(left[k]);
  const auto h2 = host->download(), g2 = cuda->download();
  ASSERT_EQ(h2.size(), sys.atoms.size());
  EXPECT_EQ(differing_bits(h2.data(), g2.data(), h2.size() * sizeof(md::AtomRecord)), 0);
  // The 26 send lists of a subdomain one band narrower, shifted, packed.
  GhostBands bands{};
  for (int d = 0; d < 3; ++d) {
    bands.low[d] = sys.width;
    bands.high[d] = sys.c.box[d] - sys.width;
  }
  for (int list = 0; list < kNeighbours; ++list) {
    for (int d = 0; d < 3; ++d) bands.shift[list][d] = 0.5 * neighbour_step(list, d);
  }
  long counts[2][kNeighbours] = {};
  std::vector<double> packed[2];
  const std::uint32_t all = (std::uint32_t{1} << kNeighbours) - 1;
  for (int k = 0; k < 2; ++k) {
    stores[k]->select_sends(bands, counts[k]);
    long total = 0;
    for (int list = 0; list < kNeighbours; ++list) total += counts[k][list];
    Array<double> out(stores[k]->space(), static_cast<size_t>(3 * total));
    stores[k]->pack_sends(all, out.data());
    packed[k].resize(out.size());
    out.copy_to_host(packed[k].data());
  }
  EXPECT_EQ(differing_bits(counts[0], counts[1], sizeof counts[0]), 0);
  ASSERT_GT(packed[0].size(), 0u);
  ASSERT_EQ(packed[0].size(), packed[1].size());
  EXPECT_EQ(differing_bits(packed[0].data(), packed[1].data(), packed[0].size() * sizeof(double)),
            0);
}

// The CUDA list build decides in single precision away from the reach and in
// double near it: pairs whose distance is the reach less 1e-3 ... 1e-16 of it,
// along an axis or a diagonal, at spots all over their cells, are listed as
// the host lists them. Lists built with the cutoff as their reach, so a pair
// left out shows as a missing force.
TEST(ParticleArraysCuda, PairsAHairInsideTheReachAreListedAsOnTheHost) {
  MPSFW_REQUIRE_GPU();
  const md::MdConfig cfg =
      testing_support::md_config({"md.cells_x=10", "md.cells_y=10", "md.cells_z=10"});
  const CartDecomposition dec{MPI_COMM_SELF, md::link_cells(cfg), {0, 0, 0}, {true, true, true}};
  const Subdomain dom = subdomain_of(dec, cfg.box);
  const double rc = md::cutoff_of(cfg.pair);
  const double hairs[] = {1e-3, 1e-5, 1e-7, 1e-8, 1e-9, 1e-10, 1e-12, 1e-14, 1e-16, 0.0};
  const double spacing = cfg.box[0] / 3;  // 3 x 3 x 3 pairs, each > 2 reach from the others
  std::vector<md::AtomRecord> atoms;
  int k = 0;
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 3; ++c, ++k) {
        const double r = rc * (1 - hairs[k % 10]);
        const double base[3] = {a * spacing + 0.37 * k / 27, b * spacing + 0.11 * (k % 5),
                                c * spacing + 0.05 * (k % 7)};
        double dir[3] = {1, 0, 0};
        if (k % 3 == 1) dir[0] = dir[1] = dir[2] = 1 / std::sqrt(3.0);
        if (k % 3 == 2) dir[0] = 0, dir[1] = dir[2] = 1 / std::sqrt(2.0);
        md::AtomRecord p{}, q{};
        for (int d = 0; d < 3; ++d) {
          p.x[d] = base[d];
          q.x[d] = base[d] + r * dir[d];
        }
        p.id = 2 * k;
        q.id = 2 * k + 1;
        atoms.push_back(p);
        atoms.push_back(q);
      }
    }
  }
  std::vector<double> forces[2];
  auto host = md::make_md_store(Backend::Host, cfg.pair);
  auto cuda = md::make_md_store(Backend::Cuda, cfg.pair);
  md::MdStore* stores[2] = {host.get(), cuda.get()};
  for (int s = 0; s < 2; ++s) {
    ParticleExchange ex(dec, dom, md::ghost_width(cfg));
    stores[s]->assign(atoms);
    ex.migrate(*stores[s], 0);
    stores[s]->sort_by_cell(ex.cell_grid());
    ex.exchange_ghosts(*stores[s]);
    stores[s]->build_neighbors(ex.cell_grid(), rc);
    stores[s]->compute_forces();
    forces[s] = stores[s]->download_forces();
  }
  ASSERT_EQ(forces[0].size(), 3 * atoms.size());
  ASSERT_EQ(forces[1].size(), forces[0].size());
  long felt = 0;  // atoms the host gives a force (pairs 1e-12 or more inside: 21)
  for (size_t i = 0; i < atoms.size(); ++i)
    felt += forces[0][3 * i] != 0 || forces[0][3 * i + 1] != 0;
  EXPECT_GE(felt, 2 * 21) << "the host left out pairs inside the cutoff";
  EXPECT_EQ(differing_bits(forces[0].data(), forces[1].data(), forces[0].size() * sizeof(double)),
            0)
      << "the CUDA lists differ from the host's near the reach";
}

}  // namespace
}  // namespace mpsfw
