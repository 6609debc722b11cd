// The wave example's launchers written once, over the framework's grid loops
// (mpsfw/core/grid/grid_loops.hpp) on a backend's primitives (Exec: the host's
// OpenMP, CUDA, Kokkos). CMake's mpsfw_backend_parts compiles this file once
// per backend the build has.
#include "wave_kernels.hpp"

#include <cmath>
#include <cstdint>

#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/particles/backend_part.hpp>

namespace wave {

template <class Exec>
class ExecKernels final : public Kernels {
 public:
  // u_prev is read and written at the same cell only, by the same thread:
  // the in-place update needs no second output buffer.
  void update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
              Coefficients k) override {
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    mpsfw::for_each_cell(
        exec_, layout, layout.interior(), MPSFW_LAMBDA(std::int64_t c, int, int, int) {
          u_prev[c] = leapfrog_cell(u, u_prev, c, sy, sz, k);
        });
  }
  LocalDiagnostics diagnostics(const double* u, const mpsfw::FieldLayout& layout) override {
    const mpsfw::Box interior = layout.interior();
    return {mpsfw::sum_over_cells(
                exec_, layout, interior, MPSFW_LAMBDA(std::int64_t c) { return u[c] * u[c]; }),
            mpsfw::max_over_cells(
                exec_, layout, interior, MPSFW_LAMBDA(std::int64_t c) { return std::fabs(u[c]); })};
  }
  void synchronize() override { exec_.synchronize(); }

 private:
  Exec exec_;
};

}  // namespace wave

MPSFW_BACKEND_PART(wave::ExecKernels, wave::Kernels)
