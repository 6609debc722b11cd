// Host backend: OpenMP loops over the shared per-cell physics.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/error.hpp"
#include "heat_kernels.hpp"

namespace mpsfw::heat {
namespace detail {
namespace {

// One cell, its neighbours from `remote` where a face there covers them.
double cell_with_remote_halo(const double* u, const FieldLayout& layout, int i, int j, int kz,
                             Coefficients k, const RemoteHalo& remote) {
  const Int3 n = layout.n;
  const auto at = [&](int face, int ii, int jj, int kk) {
    return remote.field[face] != nullptr ? remote_halo_value(remote, face, ii, jj, kk)
                                         : u[layout.index(ii, jj, kk)];
  };
  const double xm = i == 1 ? at(0, 0, j, kz) : u[layout.index(i - 1, j, kz)];
  const double xp = i == n.x ? at(1, i + 1, j, kz) : u[layout.index(i + 1, j, kz)];
  const double ym = j == 1 ? at(2, i, 0, kz) : u[layout.index(i, j - 1, kz)];
  const double yp = j == n.y ? at(3, i, j + 1, kz) : u[layout.index(i, j + 1, kz)];
  const double zm = kz == 1 ? at(4, i, j, 0) : u[layout.index(i, j, kz - 1)];
  const double zp = kz == n.z ? at(5, i, j, kz + 1) : u[layout.index(i, j, kz + 1)];
  return updated_value(u[layout.index(i, j, kz)], xm, xp, ym, yp, zm, zp, k);
}

class HostHeatKernels final : public HeatKernels {
 public:
  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k, const RemoteHalo& remote) override {
    if (box.empty()) return;
    const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
    const bool in_place = remote.any();
#pragma omp parallel for collapse(2) schedule(static)
    for (int kz = box.lo.z; kz < box.hi.z; ++kz) {
      for (int j = box.lo.y; j < box.hi.y; ++j) {
        const std::int64_t row = layout.index(0, j, kz);
        for (int i = box.lo.x; i < box.hi.x; ++i) {
          next[row + i] = in_place ? cell_with_remote_halo(u, layout, i, j, kz, k, remote)
                                   : updated_cell(u, row + i, sy, sz, k);
        }
      }
    }
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
};

}  // namespace

std::unique_ptr<HeatKernels> make_host_heat_kernels() {
  return std::make_unique<HostHeatKernels>();
}

#if !MPSFW_HAVE_CUDA
std::unique_ptr<HeatKernels> make_cuda_heat_kernels() {
  throw Error("this build of mpsfw has no CUDA backend");
}
#endif

}  // namespace detail

#if !MPSFW_HAVE_CUDA
std::vector<CudaUpdateShape> cuda_update_shapes() { return {}; }
void set_cuda_update_shape(CudaUpdateShape) {
  throw Error("this build of mpsfw has no CUDA backend");
}
CudaUpdateShape cuda_update_shape() { return {}; }
#endif

std::unique_ptr<HeatKernels> make_heat_kernels(Backend backend) {
  return backend == Backend::Cuda ? detail::make_cuda_heat_kernels()
                                  : detail::make_host_heat_kernels();
}

}  // namespace mpsfw::heat
