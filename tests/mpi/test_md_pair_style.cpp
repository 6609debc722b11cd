// The pair-style seam (solvers/md/pair_style.hpp): a style this test defines,
// a soft repulsion, runs through MD's host store with nothing of MD changed —
// every atom's force and the pair energy equal a sum over all pairs of the
// box (minimum image) under the same style — and md.pair_style names the
// style a run uses, an unknown name refused.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/md_runs.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/solvers/md/md_arrays_store.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_initial.hpp>

namespace mpsfw {
namespace {

using testing_support::md_config;
using testing_support::periodic_delta;

// U(r) = k/2 (r_c - r)^2 within r_c: soft spheres.
struct SoftSpheres {
  static constexpr const char* kName = "soft";
  double k = 50;
  double cutoff = 1.3;
  MPSFW_HD md::PairTerm operator()(double r2) const {
    md::PairTerm t;
    if (r2 >= cutoff * cutoff || r2 <= 0) return t;
    const double r = std::sqrt(r2);
    t.f_over_r = k * (cutoff - r) / r;
    t.energy = 0.5 * k * (cutoff - r) * (cutoff - r);
    return t;
  }
};

TEST(MdPairStyle, AStyleOfOnesOwnGivesTheForcesOfEveryPair) {
  const md::MdConfig c = md_config({"md.cells_x=4", "md.cells_y=4", "md.cells_z=4"});
  const CartDecomposition dec(MPI_COMM_SELF, md::link_cells(c), {0, 0, 0}, {true, true, true});
  const Subdomain dom = subdomain_of(dec, c.box);
  std::vector<md::AtomRecord> atoms = md::fcc_atoms(c, dom, MPI_COMM_SELF);
  // Off the lattice, where forces no longer cancel.
  for (md::AtomRecord& a : atoms) {
    for (int d = 0; d < 3; ++d) {
      const double x = a.x[d] + 0.2 * std::sin(1.7 * static_cast<double>(a.id) + 2.3 * d);
      a.x[d] = std::fmod(x + c.box[d], c.box[d]);
    }
  }
  const SoftSpheres style;
  md::MdArraysStore<HostExec, SoftSpheres> store(style);
  ParticleExchange ex(dec, dom, md::ghost_width(c));
  store.assign(atoms);
  PhaseTimers timers;
  NeighbourSchedule({md::ghost_width(c), c.skin, 0}, timers).rebuild(ex, store, 0);
  store.compute_forces();
  const std::vector<md::AtomRecord> held = store.download();
  const std::vector<double> f = store.download_forces();
  ASSERT_EQ(held.size(), atoms.size());

  double energy = 0, largest = 0, worst = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    double want[3] = {0, 0, 0};
    for (size_t j = 0; j < held.size(); ++j) {
      if (j == i) continue;
      double r[3], r2 = 0;
      for (int d = 0; d < 3; ++d) {
        r[d] = periodic_delta(held[i].x[d], held[j].x[d], c.box[d]);
        r2 += r[d] * r[d];
      }
      const md::PairTerm t = style(r2);
      for (int d = 0; d < 3; ++d) want[d] += t.f_over_r * r[d];
      energy += 0.5 * t.energy;
    }
    for (int d = 0; d < 3; ++d) {
      largest = std::max(largest, std::abs(want[d]));
      worst = std::max(worst, std::abs(f[3 * i + d] - want[d]));
    }
  }
  EXPECT_GT(largest, 1.0) << "the atoms are off the lattice: forces that do not cancel";
  EXPECT_LT(worst, 1e-10 * largest);
  EXPECT_NEAR(store.pair_sums().potential, energy, 1e-10 * energy);
}

TEST(MdPairStyle, TheInputNamesTheStyle) {
  const md::MdConfig c = md_config({"md.cutoff=2"});
  EXPECT_EQ(md::name_of(c.pair), "lj");
  EXPECT_EQ(md::cutoff_of(c.pair), 2.0);
  EXPECT_THROW(md_config({"md.pair_style=soft"}), InputError);
}

}  // namespace
}  // namespace mpsfw
