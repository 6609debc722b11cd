// CUDA backend: the shared per-cell physics in a kernel that marches along z,
// keeping the z neighbours in registers so each cell is read from memory about
// once; Thrust for the diagnostics reductions.
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <cstdint>
#include <string>

#include "core/cuda_check.hpp"
#include "core/error.hpp"
#include "heat_kernels.hpp"

namespace mpsfw::heat {
namespace {

CudaUpdateShape g_shape;

template <int BX, int BY>
__global__ void __launch_bounds__(BX* BY)
    update_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                  Box box, Coefficients k, int z_chunk) {
  const int i = box.lo.x + static_cast<int>(blockIdx.x) * BX + static_cast<int>(threadIdx.x);
  const int j = box.lo.y + static_cast<int>(blockIdx.y) * BY + static_cast<int>(threadIdx.y);
  if (i >= box.hi.x || j >= box.hi.y) return;
  const int k0 = box.lo.z + static_cast<int>(blockIdx.z) * z_chunk;
  const int k1 = min(k0 + z_chunk, box.hi.z);
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  std::int64_t c = layout.index(i, j, k0);
  double below = __ldg(u + c - sz);
  double center = __ldg(u + c);
  for (int kz = k0; kz < k1; ++kz) {
    const double above = __ldg(u + c + sz);
    next[c] = updated_value(center, __ldg(u + c - 1), __ldg(u + c + 1), __ldg(u + c - sy),
                            __ldg(u + c + sy), below, above, k);
    below = center;
    center = above;
    c += sz;
  }
}

template <int BX, int BY>
void launch_update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                   Coefficients k, int z_chunk) {
  const Int3 s = box.size();
  const dim3 block(BX, BY, 1);
  const dim3 grid((s.x + BX - 1) / BX, (s.y + BY - 1) / BY, (s.z + z_chunk - 1) / z_chunk);
  if (grid.y > 65535 || grid.z > 65535) {
    throw Error("CUDA update: box " + std::to_string(s.x) + "x" + std::to_string(s.y) + "x" +
                std::to_string(s.z) + " is too large for one launch");
  }
  update_kernel<BX, BY><<<grid, block>>>(u, next, layout, box, k, z_chunk);
  MPSFW_CUDA_CHECK_LAUNCH();
}

// Maps an interior cell number (x fastest) to its index in the padded layout.
struct InteriorIndex {
  FieldLayout layout;
  __host__ __device__ std::int64_t operator()(std::int64_t t) const {
    const std::int64_t nx = layout.n.x, ny = layout.n.y;
    const int i = static_cast<int>(t % nx);
    const int j = static_cast<int>((t / nx) % ny);
    const int kz = static_cast<int>(t / (nx * ny));
    return layout.index(i + 1, j + 1, kz + 1);
  }
};

struct ValueAt {
  const double* u;
  InteriorIndex at;
  __device__ double operator()(std::int64_t t) const { return u[at(t)]; }
};

struct ChangeAt {
  const double* u;
  const double* previous;
  InteriorIndex at;
  __device__ double operator()(std::int64_t t) const {
    const std::int64_t c = at(t);
    return fabs(u[c] - previous[c]);
  }
};

class CudaHeatKernels final : public HeatKernels {
 public:
  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k) override {
    if (box.empty()) return;
    const CudaUpdateShape s = g_shape;
    if (s.bx == 32 && s.by == 8) {
      launch_update<32, 8>(u, next, layout, box, k, s.z_chunk);
    } else if (s.bx == 32 && s.by == 4) {
      launch_update<32, 4>(u, next, layout, box, k, s.z_chunk);
    } else if (s.bx == 64 && s.by == 4) {
      launch_update<64, 4>(u, next, layout, box, k, s.z_chunk);
    } else if (s.bx == 128 && s.by == 2) {
      launch_update<128, 2>(u, next, layout, box, k, s.z_chunk);
    } else {
      launch_update<256, 1>(u, next, layout, box, k, s.z_chunk);
    }
  }

  LocalDiagnostics diagnostics(const double* u, const double* previous,
                               const FieldLayout& layout) override {
    const std::int64_t n = layout.n.product();
    const InteriorIndex at{layout};
    const thrust::counting_iterator<std::int64_t> first(0);
    LocalDiagnostics d;
    d.total = thrust::transform_reduce(thrust::device, first, first + n, ValueAt{u, at}, 0.0,
                                       thrust::plus<double>());
    d.max_change = thrust::transform_reduce(thrust::device, first, first + n,
                                            ChangeAt{u, previous, at}, 0.0,
                                            thrust::maximum<double>());
    MPSFW_CUDA_CHECK(cudaGetLastError());
    return d;
  }

  void synchronize() override { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }
};

}  // namespace

std::vector<CudaUpdateShape> cuda_update_shapes() {
  std::vector<CudaUpdateShape> shapes;
  for (int z : {8, 16, 32, 64}) {
    shapes.push_back({32, 8, z});
    shapes.push_back({32, 4, z});
    shapes.push_back({64, 4, z});
    shapes.push_back({128, 2, z});
    shapes.push_back({256, 1, z});
  }
  return shapes;
}

void set_cuda_update_shape(CudaUpdateShape shape) {
  for (const CudaUpdateShape& s : cuda_update_shapes()) {
    if (s.bx == shape.bx && s.by == shape.by && s.z_chunk == shape.z_chunk) {
      g_shape = shape;
      return;
    }
  }
  throw Error("CUDA update shape " + std::to_string(shape.bx) + "x" + std::to_string(shape.by) +
              " z" + std::to_string(shape.z_chunk) + " is not compiled in");
}

CudaUpdateShape cuda_update_shape() { return g_shape; }

namespace detail {
std::unique_ptr<HeatKernels> make_cuda_heat_kernels() {
  return std::make_unique<CudaHeatKernels>();
}
}  // namespace detail

}  // namespace mpsfw::heat
