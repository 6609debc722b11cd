#pragma once
// What a backend must do for the heat solver; each backend only launches the
// per-cell physics of heat_physics.hpp.
#include <memory>
#include <string>

#include "heat_physics.hpp"
#include "heat_update_choice.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/comm/step_handshake.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {

// Sums over this rank's interior cells (reduced over ranks by the caller).
struct LocalDiagnostics {
  double total = 0;       // sum of u
  double max_change = 0;  // max |u - previous|
};

class HeatKernels {
 public:
  virtual ~HeatKernels() = default;
  // next = one FTCS step of u, for the cells in `box` (may run asynchronously).
  // With `pushes`, the same launch also computes the new values of every
  // pushed face's plane (from u, so identical to next's) and writes them where
  // `pushes` says (same-GPU neighbours' halos): give them to the step's last
  // update only, once every halo of u is current.
  virtual void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                      Coefficients k, const HaloPushes& pushes) = 0;
  // A whole step of a block whose exchanged faces are all pushed (every
  // neighbour on this GPU), boundary first, in one launch (CUDA, Kokkos on a
  // CUDA GPU or the host): its first blocks compute the pushed planes and store them into next and
  // the neighbours' halos, the block that finishes them last runs `handshake` (unless empty; then
  // `pushes` must not be), the others update `inner` (the rest: inner_box of the pushed faces,
  // core/grid/overlap_boxes.hpp). The neighbours so get this step's planes early, and the next
  // step waits for their planes, not their whole step.
  virtual void update_boundary_first(const double* u, double* next, const FieldLayout& layout,
                                     const Box& inner, Coefficients k, const HaloPushes& pushes,
                                     const StepHandshake& handshake) = 0;
  // Whether this backend has that launch (the halo plan asks once).
  virtual bool has_boundary_first() const { return true; }
  virtual LocalDiagnostics diagnostics(const double* u, const double* previous,
                                       const FieldLayout& layout) = 0;
  // Waits for all launched work.
  virtual void synchronize() = 0;
  // Before the timed loop: settles how `box` will update without pushes, so
  // that the first step does not (CUDA times its designs here, writing next
  // over `box` with the values an update writes there).
  virtual void prepare_update(const double* /*u*/, double* /*next*/, const FieldLayout& /*layout*/,
                              const Box& /*box*/, Coefficients /*k*/) {}
  // How the largest box updated without pushes ran, where a backend has
  // several designs ("one-cell 64x4 z8", ...; empty where it has one).
  virtual std::string update_design() const { return {}; }
};

// The kernels of a bound backend (Host, Cuda or Kokkos; Auto throws:
// bind_device resolves it).
std::unique_ptr<HeatKernels> make_heat_kernels(Backend backend);

namespace detail {
std::unique_ptr<HeatKernels> make_host_heat_kernels();
// heat_kernels_cuda.cu; heat_kernels_cuda_off.cpp without CUDA. `design`
// fixes how boxes without pushes update (tests run each).
std::unique_ptr<HeatKernels> make_cuda_heat_kernels(
    CudaUpdateDesign design = CudaUpdateDesign::Fastest);
// heat_kernels_kokkos.cpp; heat_kernels_kokkos_off.cpp without Kokkos.
std::unique_ptr<HeatKernels> make_kokkos_heat_kernels();
}  // namespace detail

}  // namespace mpsfw::heat
