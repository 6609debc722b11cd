#pragma once
// The wave example as mpsfw steps it: its grid model (fields, halo, the swap
// that ends a step, diagnostics, initial values) and its workload. The
// framework's GridSolver owns the step's order, the halos, the time loop's
// diagnostics, output and checkpoints; the kernels are wave_kernels.cpp's,
// the physics wave_physics.hpp's.
#include <memory>

#include <mpsfw/core/driver/grid_solver.hpp>
#include <mpsfw/core/driver/workload.hpp>

#include "wave_config.hpp"
#include "wave_physics.hpp"

namespace wave {

// The fields in the order the model declares them: u^n (its halo exchanged)
// and u^{n-1} (overwritten in place by u^{n+1}, then the two swap).
enum Field { kU, kUPrev };

// The kernels on a bound backend, the leapfrog's update weighted by `k`.
// Throws mpsfw::Error for a backend this example was built without.
std::unique_ptr<mpsfw::GridKernels> kernels_for(mpsfw::Backend backend, const Coefficients& k);

mpsfw::GridModel wave_model(const WaveConfig& config);

// The workload "wave" (groups /run, /wave).
mpsfw::WorkloadSpec wave_spec();

}  // namespace wave
