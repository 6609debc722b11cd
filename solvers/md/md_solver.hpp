#pragma once
// The MD solver: its atoms and its step (velocity Verlet, NVE; optional
// velocity rescaling), on core's time loop (core/driver/time_loop.hpp). Each step:
//   integrate (kick half, drift) -> neighbour check -> ghost update or, at a
//   rebuild, migrate (and sort) -> ghost exchange -> neighbour build ->
//   force -> integrate (kick half) -> thermostat; its diagnostics are the
//   thermo lines, every diag_every steps.
// Neighbour lists reach cutoff + skin and are rebuilt when an atom has moved
// more than skin/2 since the last build (agreed over all ranks every step,
// so no pair inside the cutoff is ever missed) or after rebuild_every steps
// (core/particles/neighbour_schedule.hpp).
// Physics: md_physics.hpp; communication: core/particles/particle_exchange; per-atom work: the
// backend's MdStore.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "md_config.hpp"
#include "md_store.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>

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

class MdTrajectory;

// The atoms the input describes: its lattice's or its dataset's (or
// checkpoint's). Throws InputError for a dataset that cannot be read.
long input_atom_count(const MdConfig& config);

// What a rank owning `domain` allocates (its preflight's needs): the whole
// dataset on the host while reading one, and the store's atoms, ghosts and
// lists in `memory` (`store` gives the bytes per atom and list entry).
std::vector<MemoryNeed> md_memory_needs(const MdConfig& config, const Subdomain& domain,
                                        long atoms_in_box, const MdStore& store, Backend memory);

class MdSolver final : public Steppable {
 public:
  // Collective over `comm`: decomposition, initial atoms, first forces.
  // `cuda_aware_mpi`: ghost positions go to MPI from device memory.
  MdSolver(const MdConfig& config, MPI_Comm comm, const DeviceBinding& device,
           bool cuda_aware_mpi = false);

  ~MdSolver() override;
  // The run's input, which checkpoints repeat (needed when run.checkpoint_file is set).
  void set_params(const Params* params) { params_ = params; }

  const MdConfig& config() const { return config_; }
  const CartDecomposition& decomposition() const { return decomposition_; }
  const PhaseTimers& timers() const { return timers_; }
  const std::vector<Thermo>& thermo() const { return thermo_; }
  double loop_seconds() const { return loop().seconds; }

  // Steppable: run_time_loop(solver, out) runs it to config.steps; rank 0
  // prints thermo lines to `out`. Its diagnostics throw AgreedError when the
  // energies stop being finite; its guard checks the kinetic energy.
  LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  void begin(std::FILE* out) override;
  void diagnose(std::FILE* out) override;
  void check() override { check_motion_finite(); }
  void open_output(const std::string& path) override;
  void write_output() override;
  void close_output() override;
  void write_checkpoint(const std::string& path) override;
  long total_atoms() const { return total_atoms_; }
  // How ghost positions travel between rebuilds (run report).
  std::string ghost_path() const { return comm_.ghost_path(); }
  long local_atom_count() const { return store_->owned(); }
  // Neighbour-list rebuilds during run() (the set-up's first build not counted).
  long rebuilds() const { return lists_.rebuilds(); }
  // Steps taken on the current neighbour lists.
  long steps_on_lists() const { return lists_.steps_on_lists(); }
  // This rank's owned atoms (positions folded into the box) and their forces
  // (tests, output).
  std::vector<AtomRecord> local_atoms() const;
  std::vector<double> local_forces() const { return store_->download_forces(); }

  static void print_thermo_header(std::FILE* out);
  static void print_thermo(std::FILE* out, const Thermo& t);

 private:
  // Collective: refuses (AgreedError on every rank) a run whose atoms, lists
  // and ghosts would not fit in the memory its ranks share.
  void preflight(const DeviceBinding& device, long atoms_in_box) const;
  Thermo measure();
  // Throws AgreedError when the kinetic energy is no longer finite (collective).
  void check_motion_finite();
  std::string non_finite_message(const std::string& quantity) const;
  double time_now() const;

  MdConfig config_;
  const Params* params_ = nullptr;
  CartDecomposition decomposition_;
  Subdomain domain_;
  ParticleExchange comm_;
  std::unique_ptr<MdStore> store_;
  Backend backend_;
  PhaseTimers timers_;
  NeighbourSchedule lists_;
  std::vector<Thermo> thermo_;
  long total_atoms_ = 0;
  long step_ = 0;
  std::unique_ptr<MdTrajectory> trajectory_;
};

}  // namespace mpsfw::md
