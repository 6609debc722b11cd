#pragma once
// The heat solver: its state and its step, on core's time loop
// (core/driver/time_loop.hpp). A step is, in production:
//   every halo face pushed (same-GPU neighbours, CUDA IPC): one "boundary
//   first" launch computes the planes its neighbours need, writes them into
//   their halos too, then the rest of the block (HeatKernels::
//   update_boundary_first); under MPS its last block also runs the step's
//   handshake with those neighbours;
//   faces through MPI as well (several GPUs, or run.halo = mpi): start the
//   exchange, update the cells that read no MPI halo, finish it, update the
//   shell; the step's last launch pushes the same-GPU planes;
// which of the two the halo's routes say (FieldHalos with push delivery);
// then the step's end with same-GPU neighbours (FieldHalos::finish_step).
// Diagnostics are the total heat and the largest change of a step; a
// snapshot is the field u. Communication is FieldHalos' job; physics is heat_physics.hpp's; the
// cadence is the time loop's; this file only orders a step's phases.
// Phase times are host wall-clock times; on the CUDA backend launches return
// at once: device work shows up in the phase that waits for it (the halo copy
// to the host, diagnostics, output, the final "device sync").
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "heat_config.hpp"
#include "heat_kernels.hpp"
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/core/parallel/finite_agreement.hpp>

namespace mpsfw::heat {

struct Diagnostics {
  long step = 0;
  double time = 0;
  double total_heat = 0;  // sum of u * cell volume over the domain
  double max_change = 0;  // largest |u change| in the last step
};

// What a rank with this block allocates in `memory` (its preflight's need).
MemoryNeed heat_memory_need(const FieldLayout& layout, Backend memory);

class HeatSolver final : public Steppable {
 public:
  // Collective over `comm`. Allocates the fields in the device's memory and
  // sets the initial condition; if that fails on any rank, every rank throws
  // AgreedError with the first failing rank's message.
  HeatSolver(const HeatConfig& config, MPI_Comm comm, const DeviceBinding& device,
             bool cuda_aware_mpi);
  ~HeatSolver();

  // The input's parameters, which a checkpoint repeats.
  void set_params(const Params* params) { params_ = params; }

  // Steppable: run_time_loop(solver, progress) runs it to config.steps.
  LoopSetup loop_setup() override;
  long step() const override { return step_; }
  void advance() override;
  // Total heat and the largest change; throws AgreedError when the field is
  // no longer finite.
  void diagnose(std::FILE* out) override;
  void check() override;
  void open_output(const std::string& path) override;
  void write_output() override;
  void close_output() override;
  void write_checkpoint(const std::string& path) override;
  void settle() override;

  const HeatConfig& config() const { return config_; }
  const CartDecomposition& decomposition() const { return decomposition_; }
  const PhaseTimers& timers() const { return timers_; }
  const std::vector<Diagnostics>& diagnostics() const { return diagnostics_; }
  double loop_seconds() const { return loop().seconds; }
  const FieldHalos& halo() const { return *halo_; }
  // Whether a step computes the pushed planes first (see the top).
  bool boundary_first() const { return boundary_first_; }
  // How the backend ran its largest update without pushes (empty: one design).
  std::string update_design() const;

  // This rank's interior cells, x fastest, copied to the host.
  std::vector<double> local_interior() const;
  // Collective: the whole field on rank 0 as [nz][ny][nx]; empty elsewhere.
  std::vector<double> gather_global() const;

 private:
  Diagnostics measure(long step) const;
  [[noreturn]] void stop_non_finite(long step, const LocalDiagnostics& local) const;
  void prepare_updates();
  // A step's updates when it is not boundary first: the inner cells while
  // MPI halos travel, then the shell; same-GPU pushes from the last launch.
  void update_around_exchange(const HaloPushes& pushes);

  HeatConfig config_;
  DeviceBinding device_;
  CartDecomposition decomposition_;
  FieldLayout layout_;
  FiniteAgreement finite_;  // check()'s agreement, one round a guard
  Coefficients coefficients_;
  std::unique_ptr<HeatKernels> kernels_;
  Array<double> u_, next_;  // next_ holds the previous step after a swap
  std::unique_ptr<FieldHalos> halo_;
  FaceMask late_faces_ = 0;  // faces filled by MPI: their cells wait for finish()
  // A step computes the pushed planes first, then the rest, `inner`
  // (HeatKernels::update_boundary_first): worth it when other ranks wait for
  // those planes and no face waits for MPI, where the backend's kernels have
  // that launch.
  bool boundary_first_ = false;
  Box inner_;
  PhaseTimers timers_;
  std::vector<Diagnostics> diagnostics_;
  long step_ = 0;
  const Params* params_ = nullptr;
  std::unique_ptr<FieldOutput> output_;
};

}  // namespace mpsfw::heat
