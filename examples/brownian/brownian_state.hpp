#pragma once
// The Brownian example's state and step, on mpsfw's time loop
// (mpsfw::run_time_loop: cadence, stop signals, checkpoints, output). A step:
//   move every owned particle (forces of the last step, noise of this one)
//   -> the lists' upkeep (mpsfw::NeighbourSchedule: a rebuild when some
//      particle moved skin/2 since the build, else the ghosts' update)
//   -> forces from the lists.
// Diagnostics are the mean potential energy per particle and max |F|. A
// trajectory frame and a checkpoint hold positions and ids. Communication,
// migration and lists are mpsfw's (ParticleExchange, ParticleArrays,
// NeighbourSchedule);
// physics brownian_physics.hpp's; this file orders a step's phases.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "brownian_config.hpp"
#include "brownian_store.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/core/particles/particle_files.hpp>
#include <mpsfw/core/particles/subdomain.hpp>

namespace brownian {

struct Diagnostics {
  long step = 0;
  double time = 0;
  double potential = 0;  // mean potential energy per particle, epsilon
  double max_force = 0;  // max |F| over all particles
};

class BrownianSolver final : public mpsfw::Steppable {
 public:
  // Collective over `comm`: splits the box's link cells, places the particles
  // (from the input's /brownian/positions and /brownian/ids where it has
  // them: a checkpoint; else the jittered lattice), builds the lists and the
  // first forces. A failure on any rank throws AgreedError on every rank.
  // `params` (the input, which checkpoints repeat) outlives it.
  BrownianSolver(const BrownianConfig& config, const mpsfw::Params* params, MPI_Comm comm,
                 const mpsfw::DeviceBinding& device, bool cuda_aware_mpi);
  ~BrownianSolver();
  BrownianSolver(const BrownianSolver&) = delete;
  BrownianSolver& operator=(const BrownianSolver&) = delete;

  // mpsfw::Steppable.
  mpsfw::LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  void begin(std::FILE* out) override;
  // Throws AgreedError when a position or force is no longer finite.
  void diagnose(std::FILE* out) override;
  void check() override { measure(); }
  void open_output(const std::string& path) override;
  void write_output() override;
  void close_output() override;
  void write_checkpoint(const std::string& path) override;
  void settle() override;

  const mpsfw::CartDecomposition& decomposition() const { return decomposition_; }
  const mpsfw::PhaseTimers& timers() const { return timers_; }
  const std::vector<Diagnostics>& diagnostics() const { return diagnostics_; }
  long total_particles() const { return total_; }
  long rebuilds() const { return lists_.rebuilds(); }
  std::string ghost_path() const { return exchange_.ghost_path(); }

 private:
  // Assigns the particles; a checkpoint of this layout's exact-resume state
  // (its records assigned, the lists still to resume) where the input is one.
  std::optional<mpsfw::ResumeState> place_particles();
  Diagnostics measure() const;  // collective
  double time() const;

  BrownianConfig config_;
  const mpsfw::Params* params_;
  mpsfw::Backend backend_;
  mpsfw::CartDecomposition decomposition_;
  mpsfw::Subdomain domain_;
  mpsfw::ParticleExchange exchange_;
  std::unique_ptr<BrownianStore> store_;
  mpsfw::ParticleFiles files_;
  mpsfw::PhaseTimers timers_;
  mpsfw::NeighbourSchedule lists_;
  std::vector<Diagnostics> diagnostics_;
  long step_ = 0, total_ = 0;
};

}  // namespace brownian
