// CUDA backend: one thread per interior cell calling the shared per-cell
// physics; Thrust for the diagnostics. Built only with WAVE_ENABLE_CUDA, and
// with --fmad=false so that its bits equal the host's.
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <cstdint>

#include <mpsfw/core/device/cuda_check.hpp>

#include "wave_kernels.hpp"

namespace wave {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;
constexpr unsigned kMaxGridYZ = 65535;  // CUDA's limit on gridDim.y and gridDim.z

// Threads cover x; along y and z a block strides by the grid's extent when
// the block of cells is larger than one launch's grid. u_prev is read and
// written at the same cell only, by the same thread: the in-place update
// needs no second output buffer.
__global__ void update_kernel(const double* __restrict__ u, double* __restrict__ u_prev,
                              mpsfw::FieldLayout layout, Coefficients k) {
  const mpsfw::Box b = layout.interior();
  const int i = b.lo.x + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= b.hi.x) return;
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  const int j_stride = static_cast<int>(gridDim.y * blockDim.y);
  for (int kz = b.lo.z + static_cast<int>(blockIdx.z); kz < b.hi.z;
       kz += static_cast<int>(gridDim.z)) {
    for (int j = b.lo.y + static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); j < b.hi.y;
         j += j_stride) {
      const std::int64_t c = layout.index(i, j, kz);
      u_prev[c] = leapfrog_cell(u, u_prev, c, sy, sz, k);
    }
  }
}

unsigned capped(unsigned blocks) { return blocks < kMaxGridYZ ? blocks : kMaxGridYZ; }

// Interior cell number t (x fastest) -> its index in the padded layout.
struct InteriorIndex {
  mpsfw::FieldLayout layout;
  __host__ __device__ std::int64_t operator()(std::int64_t t) const {
    const std::int64_t nx = layout.n.x, ny = layout.n.y;
    const int h = layout.halo;
    return layout.index(h + static_cast<int>(t % nx), h + static_cast<int>((t / nx) % ny),
                        h + static_cast<int>(t / (nx * ny)));
  }
};

struct SquareAndMagnitude {
  const double* u;
  InteriorIndex at;
  __device__ LocalDiagnostics operator()(std::int64_t t) const {
    const double v = u[at(t)];
    return {v * v, fabs(v)};
  }
};

struct Combine {
  __host__ __device__ LocalDiagnostics operator()(const LocalDiagnostics& a,
                                                  const LocalDiagnostics& b) const {
    return {a.sum_u2 + b.sum_u2, a.max_abs_u > b.max_abs_u ? a.max_abs_u : b.max_abs_u};
  }
};

class CudaKernels final : public Kernels {
 public:
  void update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
              Coefficients k) override;
  LocalDiagnostics diagnostics(const double* u, const mpsfw::FieldLayout& layout) override;
  void synchronize() override { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }
};

void CudaKernels::update(const double* u, double* u_prev, const mpsfw::FieldLayout& layout,
                         Coefficients k) {
  const mpsfw::Int3 n = layout.n;
  if (n.product() == 0) return;
  const dim3 block(kBlockX, kBlockY, 1);
  const dim3 grid((static_cast<unsigned>(n.x) + kBlockX - 1) / kBlockX,
                  capped((static_cast<unsigned>(n.y) + kBlockY - 1) / kBlockY),
                  capped(static_cast<unsigned>(n.z)));
  update_kernel<<<grid, block>>>(u, u_prev, layout, k);
  MPSFW_CUDA_CHECK_LAUNCH();
}

LocalDiagnostics CudaKernels::diagnostics(const double* u, const mpsfw::FieldLayout& layout) {
  const thrust::counting_iterator<std::int64_t> first(0);
  // One pass over the field for both figures.
  const LocalDiagnostics r = thrust::transform_reduce(
      thrust::device, first, first + layout.n.product(),
      SquareAndMagnitude{u, InteriorIndex{layout}}, LocalDiagnostics{0.0, 0.0}, Combine());
  MPSFW_CUDA_CHECK(cudaGetLastError());
  return r;
}

}  // namespace

std::unique_ptr<Kernels> detail::make_cuda_kernels() { return std::make_unique<CudaKernels>(); }

}  // namespace wave
