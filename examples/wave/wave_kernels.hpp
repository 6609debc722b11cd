#pragma once
// What a backend does for the wave example: the leapfrog update of a block's
// interior and the block's diagnostics, written once over the framework's
// grid loops (wave_kernels.cpp) around the per-cell physics of
// wave_physics.hpp.
#include <memory>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

#include "wave_physics.hpp"

namespace wave {

// Over this rank's interior cells (reduced over ranks by the caller).
struct LocalDiagnostics {
  double sum_u2 = 0;     // sum of u^2
  double max_abs_u = 0;  // max |u|
};

// One backend's launchers, chosen once per run (kernels_for).
class Kernels {
 public:
  virtual ~Kernels() = default;
  // u_prev = leapfrog_cell(u, u_prev) for every interior cell of `layout`: on
  // entry u_prev holds u^{n-1}, on return u^{n+1}. Reads u's halo, never
  // u_prev's. Fields in the backend's memory; on a GPU it returns at once.
  virtual void update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
                      Coefficients k) = 0;
  // Waits for its result.
  virtual LocalDiagnostics diagnostics(const double* u, const mpsfw::FieldLayout& layout) = 0;
  // Waits for everything launched so far.
  virtual void synchronize() = 0;
};

// The launchers, written once over a backend's primitives (wave_kernels.cpp).
template <class Exec>
class ExecKernels;

// The launchers for a bound backend (wave_state.cpp). Throws mpsfw::Error
// for a backend this example was built without.
std::unique_ptr<Kernels> kernels_for(mpsfw::Backend backend);

}  // namespace wave
