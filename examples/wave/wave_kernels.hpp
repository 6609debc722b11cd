#pragma once
// What a backend does for the wave example: the leapfrog update of a block's
// interior and the block's diagnostics. Each launcher only loops (OpenMP) or
// launches (CUDA) the per-cell physics of wave_physics.hpp.
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

#include "wave_physics.hpp"

namespace wave {

// Over this rank's interior cells (reduced over ranks by the caller).
struct LocalDiagnostics {
  double sum_u2 = 0;     // sum of u^2
  double max_abs_u = 0;  // max |u|
};

// u_prev = leapfrog_cell(u, u_prev) for every interior cell of `layout`: on
// entry u_prev holds u^{n-1}, on return u^{n+1}. Reads u's halo, never
// u_prev's. Host fields; returns when done.
void update_host(const double* u, double* u_prev, const mpsfw::FieldLayout& layout, Coefficients k);
LocalDiagnostics diagnostics_host(const double* u, const mpsfw::FieldLayout& layout);

#if WAVE_HAVE_CUDA
// The same on device fields, launched on the default stream (returns at
// once); the diagnostics wait for their result.
void update_cuda(const double* u, double* u_prev, const mpsfw::FieldLayout& layout, Coefficients k);
LocalDiagnostics diagnostics_cuda(const double* u, const mpsfw::FieldLayout& layout);
// Waits for everything launched so far.
void synchronize_cuda();
#endif

// One backend's launchers, chosen once per run.
struct Kernels {
  void (*update)(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
                 Coefficients k) = nullptr;
  LocalDiagnostics (*diagnostics)(const double* u, const mpsfw::FieldLayout& layout) = nullptr;
  void (*synchronize)() = nullptr;
};

// The launchers for a bound backend (Host or Cuda). Throws mpsfw::Error for
// Cuda when this example was built without its CUDA launcher.
Kernels kernels_for(mpsfw::Backend backend);

}  // namespace wave
