// Host backend: the framework's grid loops (OpenMP over rows) over the shared
// per-cell physics.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "heat_kernels.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/particles/host_exec.hpp>

namespace mpsfw::heat {
namespace detail {
namespace {

class HostHeatKernels final : public HeatKernels {
 public:
  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k, const HaloPushes& pushes) override {
    update_box(u, next, layout, box, k);
    push_planes(u, nullptr, layout, k, pushes);
  }

  void update_boundary_first(const double* u, double* next, const FieldLayout& layout,
                             const Box& inner, Coefficients k, const HaloPushes& pushes,
                             const StepHandshake& handshake) override {
    push_planes(u, next, layout, k, pushes);
    update_box(u, next, layout, inner, k);
    // Host fields shared between processes (tests): the host is the stream.
    if (!handshake.empty()) host_mark_and_wait(handshake);
  }

  LocalDiagnostics diagnostics(const double* u, const double* previous,
                               const FieldLayout& layout) override {
    double total = 0, max_change = 0;
    const Box b = layout.interior();
#pragma omp parallel for collapse(2) reduction(+ : total) reduction(max : max_change)
    for (int kz = b.lo.z; kz < b.hi.z; ++kz) {
      for (int j = b.lo.y; j < b.hi.y; ++j) {
        const std::int64_t row = layout.index(0, j, kz);
        for (int i = b.lo.x; i < b.hi.x; ++i) {
          total += u[row + i];
          max_change = std::max(max_change, std::fabs(u[row + i] - previous[row + i]));
        }
      }
    }
    return {total, max_change};
  }

  void synchronize() override {}

 private:
  static void update_box(const double* u, double* next, const FieldLayout& layout, const Box& box,
                         Coefficients k) {
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    for_each_cell(HostExec{}, layout, box,
                  [=](std::int64_t c, int, int, int) { next[c] = updated_cell(u, c, sy, sz, k); });
  }

  // Each pushed plane cell's new value into the neighbour's halo and, when
  // `next` is given, once into next.
  static void push_planes(const double* u, double* next, const FieldLayout& layout, Coefficients k,
                          const HaloPushes& pushes) {
    const std::int64_t pushed = pushes.cells();
    if (pushed == 0) return;  // no parallel region for nothing, every step
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t < pushed; ++t) {
      int i = 0, j = 0, kz = 0;
      const int f = pushes.locate(t, i, j, kz);
      const std::int64_t c = layout.index(i, j, kz);
      const double v = updated_cell(u, c, sy, sz, k);
      pushes.store(f, i, j, kz, v);
      if (next != nullptr && pushes.first_face_holding(i, j, kz) == f) next[c] = v;
    }
  }
};

}  // namespace

std::unique_ptr<HeatKernels> make_host_heat_kernels() {
  return std::make_unique<HostHeatKernels>();
}

}  // namespace detail

}  // namespace mpsfw::heat
