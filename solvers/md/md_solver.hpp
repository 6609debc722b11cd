#pragma once
// The MD solver's time loop (velocity Verlet, NVE; optional velocity
// rescaling). Each step:
//   integrate (kick half, drift) -> communicate (migrate, ghosts)
//   -> neighbour build (bin into link cells) -> force -> integrate (kick half)
//   -> thermostat, thermo every thermo_every steps.
// Ghosts and link cells are rebuilt every step: no skin, no neighbour list to
// go stale (costs a binning pass and a ghost exchange per step; see
// docs/md.md). Physics: md_physics.hpp; MPI: md_comm.cpp; per-atom work: the
// backend's MdStore.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "core/decomposition.hpp"
#include "core/device.hpp"
#include "core/timers.hpp"
#include "md_comm.hpp"
#include "md_config.hpp"
#include "md_store.hpp"

namespace mpsfw::md {

struct Thermo {
  long step = 0;
  double time = 0;
  double temperature = 0;
  double potential = 0;  // per atom
  double kinetic = 0;    // per atom
  double total = 0;      // per atom
  double pressure = 0;
  double momentum[3] = {0, 0, 0};  // total
};

class MdSolver {
 public:
  // Collective over `comm`: decomposition, initial atoms, first forces.
  MdSolver(const MdConfig& config, MPI_Comm comm, const DeviceBinding& device);

  // Collective: config.steps steps; rank 0 prints thermo lines to `out`.
  void run(std::FILE* out);

  const MdConfig& config() const { return config_; }
  const CartDecomposition& decomposition() const { return decomposition_; }
  const PhaseTimers& timers() const { return timers_; }
  const std::vector<Thermo>& thermo() const { return thermo_; }
  double loop_seconds() const { return loop_seconds_; }
  long total_atoms() const { return total_atoms_; }
  long local_atom_count() const { return store_->owned(); }
  // This rank's owned atoms and their forces (tests, output).
  std::vector<AtomRecord> local_atoms() const { return store_->download(); }
  std::vector<double> local_forces() const { return store_->download_forces(); }

  static void print_thermo_header(std::FILE* out);
  static void print_thermo(std::FILE* out, const Thermo& t);

 private:
  Thermo measure();
  double time_now() const;
  void compute_forces();
  void step_once();

  MdConfig config_;
  CartDecomposition decomposition_;
  Subdomain domain_;
  MdComm comm_;
  std::unique_ptr<MdStore> store_;
  PhaseTimers timers_;
  std::vector<Thermo> thermo_;
  ForceSums last_forces_;
  long total_atoms_ = 0;
  long step_ = 0;
  double loop_seconds_ = 0;
};

}  // namespace mpsfw::md
