#pragma once
// What a backend does for the wave example: the leapfrog update of a block's
// interior and the block's diagnostics, written once over the framework's
// grid loops (wave_kernels_exec.hpp) around the per-cell physics of
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

// The launchers for a bound backend (mpsfw::make_for_backend). Throws
// mpsfw::Error for a backend this example was built without.
std::unique_ptr<Kernels> kernels_for(mpsfw::Backend backend);

namespace detail {
std::unique_ptr<Kernels> make_host_kernels();
// wave_kernels_cuda.cu, or wave_kernels_cuda_off.cpp in a build without it.
std::unique_ptr<Kernels> make_cuda_kernels();
// wave_kernels_kokkos.cpp, or wave_kernels_kokkos_off.cpp.
std::unique_ptr<Kernels> make_kokkos_kernels();
}  // namespace detail

}  // namespace wave
