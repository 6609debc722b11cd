#pragma once
// Helpers for tests that run the MD solver: a config from overrides, a solver
// on a communicator and backend, every atom gathered on rank 0 by id, and the
// forces checked against brute force.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heat_runs.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_solver.hpp>

namespace mpsfw::testing_support {

inline md::MdConfig md_config(const std::vector<std::string>& overrides) {
  return md::md_config_from(md::md_params_from_overrides(overrides));
}

inline std::unique_ptr<md::MdSolver> make_md_solver(const md::MdConfig& config, MPI_Comm comm,
                                                    Backend backend) {
  int node_size = 1;
  const int node_rank = node_rank_and_size(comm, &node_size);
  const DeviceBinding device = bind_device(backend, node_rank, node_size, CudaGate::without_mps());
  return std::make_unique<md::MdSolver>(config, comm, device);
}

struct GatheredAtom {
  md::AtomRecord atom;
  double force[3];
};

// Collective: every rank's atoms and forces on rank 0 of `comm`, by id.
inline std::map<std::int64_t, GatheredAtom> gather_atoms(const md::MdSolver& solver,
                                                         MPI_Comm comm) {
  const std::vector<md::AtomRecord> atoms = solver.local_atoms();
  const std::vector<double> forces = solver.local_forces();
  std::vector<GatheredAtom> mine(atoms.size());
  for (size_t i = 0; i < atoms.size(); ++i) {
    mine[i].atom = atoms[i];
    for (int d = 0; d < 3; ++d) mine[i].force[d] = forces[3 * i + static_cast<size_t>(d)];
  }
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  int bytes = static_cast<int>(mine.size() * sizeof(GatheredAtom));
  std::vector<int> counts(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<GatheredAtom> all(static_cast<size_t>(total) / sizeof(GatheredAtom));
  MPI_Gatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              comm);
  std::map<std::int64_t, GatheredAtom> by_id;
  if (rank == 0) {
    for (const GatheredAtom& a : all) by_id[a.atom.id] = a;
  }
  return by_id;
}

// Minimum-image difference along one dimension of a periodic box.
inline double periodic_delta(double a, double b, double box) {
  const double d = a - b;
  return d - box * std::round(d / box);
}

// Largest difference between the solver's forces and a brute-force O(N^2)
// minimum-image sum over all pairs within the cutoff, and the largest force.
struct ForceCheck {
  double worst = 0, largest = 0;
};
inline ForceCheck brute_force_check(const md::MdSolver& solver, const md::MdConfig& config) {
  const auto atoms = gather_atoms(solver, MPI_COMM_WORLD);
  ForceCheck check;
  if (world_rank() != 0) return check;
  EXPECT_EQ(static_cast<long>(atoms.size()), solver.total_atoms());
  for (const auto& [id, a] : atoms) {
    double f[3] = {0, 0, 0};
    for (const auto& [other_id, b] : atoms) {
      if (other_id == id) continue;
      double r[3], r2 = 0;
      for (int d = 0; d < 3; ++d) {
        r[d] = periodic_delta(a.atom.x[d], b.atom.x[d], config.box[d]);
        r2 += r[d] * r[d];
      }
      const md::PairTerm t = std::get<md::LennardJones>(config.pair)(r2);
      for (int d = 0; d < 3; ++d) f[d] += t.f_over_r * r[d];
    }
    for (int d = 0; d < 3; ++d) {
      check.worst = std::max(check.worst, std::abs(f[d] - a.force[d]));
      check.largest = std::max(check.largest, std::abs(f[d]));
    }
  }
  return check;
}

// What no trajectory comparison can see (a bug both runs share): the total
// energy of `solver`'s thermo rows stays within `drift` (relative) of the
// first row's, and the total momentum, zero at the start, stays zero to
// round-off (pair forces cancel). Zeroing or losing one atom's velocity
// breaks both.
inline void expect_energy_and_momentum_kept(const md::MdSolver& solver, double drift,
                                            const char* what) {
  const std::vector<md::Thermo>& thermo = solver.thermo();
  ASSERT_GE(thermo.size(), 2u) << what << ": wants thermo rows at the start and later";
  const double e0 = thermo.front().total;
  double worst = 0;
  for (const md::Thermo& t : thermo) worst = std::max(worst, std::abs((t.total - e0) / e0));
  EXPECT_LT(worst, drift) << what << ": E0 " << e0 << ", E_end " << thermo.back().total;
  const double scale =
      std::sqrt(thermo.front().kinetic * 2) * static_cast<double>(solver.total_atoms());
  for (const md::Thermo& t : thermo) {
    for (int d = 0; d < 3; ++d)
      EXPECT_LT(std::abs(t.momentum[d]), 1e-12 * scale) << what << ", step " << t.step;
  }
}

// in.lj's liquid run by `solver` (thermo rows at least every 100 steps): the
// total energy drifts less than 1e-4 relative, momentum stays zero, and the
// liquid really moved (the kinetic energy changed a lot from the lattice start).
inline void expect_energy_kept_and_momentum_zero(const md::MdSolver& solver) {
  expect_energy_and_momentum_kept(solver, 1e-4, "NVE run");
  const std::vector<md::Thermo>& thermo = solver.thermo();
  ASSERT_FALSE(thermo.empty());
  EXPECT_LT(thermo.back().temperature, 0.9 * thermo.front().temperature);
}

// Bound on the total-energy change from the first step to the last of
// in.lj's liquid over 100 steps at dt = 0.005: ten times what it measures
// (docs/md.md). The Verlet fluctuation in between is larger, so only rows
// 100 steps apart are compared.
constexpr double kShortRunDrift = 5e-5;

// `config` on every rank of MPI_COMM_WORLD against one rank, on `backend`:
// after 100 steps (t = 0.5) positions within 1e-12 and the total energy
// within 1e-13 relative (the bound test_md_ranks derives from round-off
// growth; docs/md.md). Both runs also keep energy and momentum, since a bug
// they share would pass the comparison.
inline void expect_ranks_match_one_rank(const md::MdConfig& config, Backend backend) {
  auto many = make_md_solver(config, MPI_COMM_WORLD, backend);
  mpsfw::run_time_loop(*many, nullptr);
  const auto many_atoms = gather_atoms(*many, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  auto one = make_md_solver(config, MPI_COMM_SELF, backend);
  mpsfw::run_time_loop(*one, nullptr);
  const auto one_atoms = gather_atoms(*one, MPI_COMM_SELF);
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  ASSERT_EQ(many_atoms.size(), one_atoms.size());
  double worst = 0;
  for (const auto& [id, a] : one_atoms) {
    const auto it = many_atoms.find(id);
    ASSERT_NE(it, many_atoms.end()) << "atom " << id << " lost on " << ranks << " ranks";
    for (int d = 0; d < 3; ++d) {
      worst = std::max(worst,
                       std::abs(periodic_delta(a.atom.x[d], it->second.atom.x[d], config.box[d])));
    }
  }
  std::printf("%s, %d ranks vs 1: largest position difference %.3g, total energy %.17g vs %.17g\n",
              to_string(backend), ranks, worst, many->thermo().back().total,
              one->thermo().back().total);
  EXPECT_LT(worst, 1e-12) << "largest position difference after 100 steps";
  const double e1 = one->thermo().back().total, en = many->thermo().back().total;
  EXPECT_LT(std::abs(e1 - en), 1e-13 * std::abs(e1));
  const auto drift = [](const md::MdSolver& s) {
    return std::abs(s.thermo().back().total / s.thermo().front().total - 1);
  };
  std::printf("total energy drift over the run: %.3g on %d ranks, %.3g on 1\n", drift(*many), ranks,
              drift(*one));
  expect_energy_and_momentum_kept(*many, kShortRunDrift, "N ranks");
  expect_energy_and_momentum_kept(*one, kShortRunDrift, "1 rank");
}

}  // namespace mpsfw::testing_support
