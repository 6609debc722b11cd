// Host backend: OpenMP loops over the shared per-cell physics, and the one
// place that picks a backend's launchers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <mpsfw/core/base/error.hpp>

#include "wave_kernels.hpp"

namespace wave {
namespace {

void synchronize_host() {}

}  // namespace

void update_host(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
                 Coefficients k) {
  const mpsfw::Box b = layout.interior();
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
#pragma omp parallel for collapse(2) schedule(static)
  for (int kz = b.lo.z; kz < b.hi.z; ++kz) {
    for (int j = b.lo.y; j < b.hi.y; ++j) {
      const std::int64_t row = layout.index(0, j, kz);
      for (int i = b.lo.x; i < b.hi.x; ++i) {
        u_prev[row + i] = leapfrog_cell(u, u_prev, row + i, sy, sz, k);
      }
    }
  }
}

LocalDiagnostics diagnostics_host(const double* u, const mpsfw::FieldLayout& layout) {
  double sum_u2 = 0, max_abs_u = 0;
  const mpsfw::Box b = layout.interior();
#pragma omp parallel for collapse(2) reduction(+ : sum_u2) reduction(max : max_abs_u)
  for (int kz = b.lo.z; kz < b.hi.z; ++kz) {
    for (int j = b.lo.y; j < b.hi.y; ++j) {
      const std::int64_t row = layout.index(0, j, kz);
      for (int i = b.lo.x; i < b.hi.x; ++i) {
        const double v = u[row + i];
        sum_u2 += v * v;
        max_abs_u = std::max(max_abs_u, std::fabs(v));
      }
    }
  }
  return {sum_u2, max_abs_u};
}

Kernels kernels_for(mpsfw::Backend backend) {
  if (backend == mpsfw::Backend::Host) return {update_host, diagnostics_host, synchronize_host};
  if (backend != mpsfw::Backend::Cuda) {
    throw mpsfw::Error(std::string("wave: no launchers for backend '") + mpsfw::to_string(backend) +
                       "' (bind the device first: host or cuda)");
  }
#if WAVE_HAVE_CUDA
  return {update_cuda, diagnostics_cuda, synchronize_cuda};
#else
  throw mpsfw::Error(
      "wave: the bound backend is cuda, but this wave_solver was built without its CUDA "
      "launcher (WAVE_ENABLE_CUDA=OFF); run with --backend host, or rebuild with "
      "-DWAVE_ENABLE_CUDA=ON against an mpsfw built with CUDA");
#endif
}

}  // namespace wave
