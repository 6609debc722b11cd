// Host backend: OpenMP loops over the shared per-cell physics, and the one
// place that picks a backend's launchers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/backend_factory.hpp>

#include "wave_kernels.hpp"

namespace wave {
namespace {

class HostKernels final : public Kernels {
 public:
  void update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
              Coefficients k) override;
  LocalDiagnostics diagnostics(const double* u, const mpsfw::FieldLayout& layout) override;
  void synchronize() override {}
};

void HostKernels::update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
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

LocalDiagnostics HostKernels::diagnostics(const double* u, const mpsfw::FieldLayout& layout) {
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

}  // namespace

std::unique_ptr<Kernels> detail::make_host_kernels() { return std::make_unique<HostKernels>(); }

std::unique_ptr<Kernels> kernels_for(mpsfw::Backend backend) {
  return mpsfw::make_for_backend<Kernels>(
      backend, "wave's launchers", detail::make_host_kernels, detail::make_cuda_kernels,
      mpsfw::unsupported<Kernels>(
          "wave: no launchers for the kokkos backend; run with --backend host or cuda"));
}

}  // namespace wave
