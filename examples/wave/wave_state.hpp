#pragma once
// The wave example's state and step, on mpsfw's time loop
// (mpsfw::run_time_loop: cadence, stop signals, checkpoints, output). Two
// buffers A and B per rank hold the leapfrog's two levels: A is u^n (its
// halo exchanged), B is u^{n-1}. A step:
//   exchange A's halo -> B = u^{n+1} from A and B, cell by cell, in place
//   -> finish the step's exchange (ordering with same-GPU neighbours)
//   -> swap A and B
// Diagnostics are the sum of u^2 dV and max |u|; a snapshot and a checkpoint
// hold u and u_prev, a complete leapfrog state. Communication is FieldHalos'
// job, physics wave_physics.hpp's; this file orders a step's phases.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/grid/grid_fields.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

#include "wave_config.hpp"
#include "wave_kernels.hpp"

namespace wave {

struct Diagnostics {
  long step = 0;
  double time = 0;       // s
  double sum_u2 = 0;     // sum of u^2 times the cell volume over the box
  double max_abs_u = 0;  // max |u| over the box
};

class WaveSolver final : public mpsfw::Steppable {
 public:
  // Collective over `comm`: splits the box, allocates A and B in the device's
  // memory, sets u^0 and u^{-1} (from the input's /wave/u and /wave/u_prev
  // where it has them: a checkpoint), connects the halos. A failure on any
  // rank throws AgreedError on every rank. `params` (the input, which
  // checkpoints repeat; nullptr: a run without checkpoints) outlives it.
  WaveSolver(const WaveConfig& config, const mpsfw::Params* params, MPI_Comm comm,
             const mpsfw::DeviceBinding& device, bool cuda_aware_mpi);
  ~WaveSolver();
  WaveSolver(const WaveSolver&) = delete;
  WaveSolver& operator=(const WaveSolver&) = delete;

  // mpsfw::Steppable: mpsfw::run_time_loop(solver, progress) runs it.
  mpsfw::LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  // Throws AgreedError when u is no longer finite.
  void diagnose(std::FILE* out) override;
  void check() override { measure(); }
  void open_output(const std::string& path) override;
  void write_output() override;
  void close_output() override;
  void write_checkpoint(const std::string& path) override;
  void settle() override;

  const WaveConfig& config() const { return config_; }
  const mpsfw::CartDecomposition& decomposition() const { return decomposition_; }
  const mpsfw::PhaseTimers& timers() const { return timers_; }
  const std::vector<Diagnostics>& diagnostics() const { return diagnostics_; }
  double loop_seconds() const { return loop().seconds; }
  std::string halo_path() const { return fields_.halos().path(); }
  // This rank's interior cells of u^n, x fastest, on the host (a snapshot's u).
  std::vector<double> local_u() const;

 private:
  Diagnostics measure() const;  // collective
  double time() const { return config_.time_at(step_, config_.dt); }

  WaveConfig config_;
  const mpsfw::Params* params_;
  std::unique_ptr<Kernels> kernels_;
  mpsfw::Backend backend_;
  mpsfw::CartDecomposition decomposition_;
  mpsfw::FieldLayout layout_;
  Coefficients coefficients_;
  mpsfw::Array<double> a_, b_;  // u^n and u^{n-1}; swapped after every step
  // u in a_ (its halo exchanged), u_prev in b_; declared after the buffers:
  // destroyed (its halos too) before them.
  mpsfw::GridFields fields_;
  mpsfw::PhaseTimers timers_;
  std::vector<Diagnostics> diagnostics_;
  long step_ = 0;
};

}  // namespace wave
