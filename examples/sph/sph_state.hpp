#pragma once
// The SPH example's state and step, on mpsfw's time loop
// (mpsfw::run_time_loop: cadence, stop signals, checkpoints, output). A step:
//   move every owned particle (v += dt a, x += dt v)
//   -> the lists' upkeep (mpsfw::NeighbourSchedule: a rebuild when some
//      particle moved skin/2 since the build, else the ghosts' update)
//   -> densities; the ghosts' velocities and densities
//      (ParticleExchange::update_ghost_fields); accelerations.
// Diagnostics are the kinetic energy per particle against the Taylor-Green
// vortex's, the largest density error and speed. A trajectory frame and a
// checkpoint hold positions, ids, velocities and densities. Communication,
// migration and lists are mpsfw's; physics sph_physics.hpp's; this file orders
// a step's phases.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sph_config.hpp"
#include "sph_store.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>
#include <mpsfw/core/particles/particle_files.hpp>
#include <mpsfw/core/particles/particle_input.hpp>
#include <mpsfw/core/particles/subdomain.hpp>

namespace sph {

struct Diagnostics {
  long step = 0;
  double time = 0;
  double kinetic = 0;        // mean |v|^2 / 2 per particle
  double kinetic_exact = 0;  // the Taylor-Green vortex's: U^2 / 4 exp(-4 nu k^2 t)
  double density_error = 0;  // max |rho - rho0| / rho0
  double max_speed = 0;
};

class SphSolver final : public mpsfw::Steppable {
 public:
  // Collective over `comm`: splits the box's link cells, places the particles
  // (from the input's /sph datasets where it has them: a checkpoint; else the
  // lattice with the vortex's velocities), builds the lists and the first
  // densities and accelerations. A failure on any rank throws AgreedError on
  // every rank. `params` (the input, which checkpoints repeat) outlives it.
  SphSolver(const SphConfig& config, const mpsfw::Params* params, MPI_Comm comm,
            const mpsfw::DeviceBinding& device, bool cuda_aware_mpi);
  ~SphSolver();
  SphSolver(const SphSolver&) = delete;
  SphSolver& operator=(const SphSolver&) = delete;

  // mpsfw::Steppable.
  mpsfw::LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  void begin(std::FILE* out) override;
  // Throws AgreedError when a position or velocity is no longer finite.
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
  std::string ghost_path() const { return exchange_.ghost_path(); }

 private:
  // Assigns the particles; a checkpoint of this layout's exact-resume state
  // (its records assigned, the lists still to resume) where the input is one.
  std::optional<mpsfw::ResumeState> place_particles();
  // The step's work on fresh lists: both pair passes.
  void pair_passes();
  Diagnostics measure() const;  // collective
  double time() const;

  SphConfig config_;
  const mpsfw::Params* params_;
  mpsfw::CartDecomposition decomposition_;
  mpsfw::Subdomain domain_;
  mpsfw::ParticleExchange exchange_;
  std::unique_ptr<SphStore> store_;
  mpsfw::ParticleFiles files_;
  mpsfw::PhaseTimers timers_;
  mpsfw::NeighbourSchedule lists_;
  std::vector<Diagnostics> diagnostics_;
  long step_ = 0, total_ = 0;
};

// How the example's input is read: densities are recomputed, so optional.
mpsfw::ParticleInputFields input_fields(const std::vector<mpsfw::WrittenField>& written);

}  // namespace sph
