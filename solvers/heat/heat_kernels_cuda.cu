// CUDA backend: the z-marching updates (each cell read from memory about
// once): boxes without pushes by the fastest design on this GPU
// (heat_update_choice.hpp), boxes with the pushed planes of same-GPU
// neighbours in the same launch one cell per thread (heat_update.cuh) at two
// block shapes; Thrust for the diagnostics reductions.
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <cstdint>

#include "boundary_tiles.hpp"
#include "heat_kernels.hpp"
#include "heat_update.cuh"
#include "heat_update_choice.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/cuda_check.hpp>

namespace mpsfw::heat {
namespace {

// Threads t, t + stride, ... of the pushed planes: each cell's new value (from
// u, like the update: the same value) into the neighbour's halo.
__device__ __forceinline__ void push_cells(const double* __restrict__ u, const FieldLayout& layout,
                                           Coefficients k, const HaloPushes& pushes, std::int64_t t,
                                           std::int64_t stride) {
  const std::int64_t n = pushes.cells();
  const std::int64_t sy = layout.stride_y(), sz = layout.stride_z();
  for (; t < n; t += stride) {
    int i = 0, j = 0, kz = 0;
    const int f = pushes.locate(t, i, j, kz);
    pushes.store(f, i, j, kz, updated_cell(u, layout.index(i, j, kz), sy, sz, k));
  }
}

// One tile of a boundary-first step (boundary_tiles.hpp). With a handshake,
// the block that finishes the planes last marks them done and waits for the
// neighbours' planes; the launch, and with it the next step's reads of the
// halos, ends only then.
template <int BX, int BY>
__device__ __forceinline__ void boundary_tile(const double* __restrict__ u,
                                              double* __restrict__ next, const FieldLayout& layout,
                                              Coefficients k, const HaloPushes& pushes,
                                              const BoundaryTiles& tiles,
                                              const StepHandshake& handshake, int tile) {
  update_tile_cells<BX, BY>(u, next, layout, k, pushes, tiles, tile, static_cast<int>(threadIdx.x),
                            static_cast<int>(threadIdx.y));
  if (handshake.empty()) return;
  __shared__ bool last;
  __syncthreads();  // the block's stores, before its arrival
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    last = arrived_last(handshake, static_cast<unsigned>(tiles.total()), pushes.other_gpu);
  }
  __syncthreads();
  if (last) mark_and_wait(handshake, static_cast<int>(threadIdx.y * BX + threadIdx.x));
}

// A boundary-first step in one launch: slices of boundary tiles in front
// (dispatched first, so the neighbours get the planes early), then the update
// of the rest, whose blocks run the one-rank code untouched.
template <int BX, int BY, int ZC>
__global__ void __launch_bounds__(BX* BY)
    update_step_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                       Box box, Coefficients k, __grid_constant__ const HaloPushes pushes,
                       __grid_constant__ const BoundaryTiles tiles,
                       __grid_constant__ const StepHandshake handshake, unsigned boundary_slices) {
  if (blockIdx.z >= boundary_slices) {
    gpu::update_chunk<BX, BY, ZC, false>(u, next, layout, box, k, blockIdx.z - boundary_slices);
    return;
  }
  const int tile = static_cast<int>((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x);
  if (tile < tiles.total()) {
    boundary_tile<BX, BY>(u, next, layout, k, pushes, tiles, handshake, tile);
  }
}

// The same, with the pushed planes computed by extra slices of blocks along
// z (from u, like the update: the same values) and written straight into the
// neighbours' halos. The update's blocks run the one-rank code untouched:
// threading pushes through them cost the kernel much of its bandwidth
// (docs/performance.md).
template <int BX, int BY, int ZC>
__global__ void __launch_bounds__(BX* BY)
    update_push_kernel(const double* __restrict__ u, double* __restrict__ next, FieldLayout layout,
                       Box box, Coefficients k, __grid_constant__ const HaloPushes pushes,
                       unsigned update_slices) {
  if (blockIdx.z < update_slices) {
    gpu::update_chunk<BX, BY, ZC, false>(u, next, layout, box, k, blockIdx.z);
    return;
  }
  const std::int64_t threads = BX * BY;
  const std::int64_t per_slice = static_cast<std::int64_t>(gridDim.x) * gridDim.y * threads;
  const std::int64_t t =
      (blockIdx.z - update_slices) * per_slice +
      (static_cast<std::int64_t>(blockIdx.y) * gridDim.x + blockIdx.x) * threads +
      threadIdx.y * BX + threadIdx.x;
  push_cells(u, layout, k, pushes, t, (gridDim.z - update_slices) * per_slice);
}

// The update of `box`; with pushes, pushed last (extra slices behind the
// update) or boundary first (tiles in front, own planes stored too, the
// handshake run by the last tile).
enum class PushOrder { Last, BoundaryFirst };

template <int BX, int BY, int ZC>
void launch_update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                   Coefficients k, const HaloPushes& pushes, PushOrder order,
                   const StepHandshake& handshake) {
  if (pushes.empty()) {
    gpu::launch_update_box<BX, BY, ZC, false>(u, next, layout, box, k);
    return;
  }
  const dim3 block(BX, BY, 1);
  dim3 grid = gpu::update_grid<BX, BY, ZC>(box);
  const unsigned update_slices = grid.z;
  // The extra slices need a grid even when the box is empty.
  grid.x = grid.x == 0 ? 1 : grid.x;
  grid.y = grid.y == 0 ? 1 : grid.y;
  const std::int64_t per_slice = static_cast<std::int64_t>(grid.x) * grid.y;
  BoundaryTiles tiles{};
  std::int64_t wanted = 0;
  if (order == PushOrder::Last) {
    wanted = (pushes.cells() + per_slice * BX * BY - 1) / (per_slice * BX * BY);
    wanted = wanted < 1024 ? wanted : 1024;
  } else {
    tiles = boundary_tiles(pushes, BX, BY);
    wanted = (tiles.total() + per_slice - 1) / per_slice;
  }
  const unsigned extra_slices = static_cast<unsigned>(wanted);
  grid.z = update_slices + extra_slices;
  gpu::check_grid(grid, box);
  if (grid.z == 0) return;
  if (order == PushOrder::Last) {
    update_push_kernel<BX, BY, ZC><<<grid, block>>>(u, next, layout, box, k, pushes, update_slices);
  } else {
    update_step_kernel<BX, BY, ZC>
        <<<grid, block>>>(u, next, layout, box, k, pushes, tiles, handshake, extra_slices);
  }
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

struct SumAndMax {
  double sum, max;
};

struct CombineSumAndMax {
  __host__ __device__ SumAndMax operator()(const SumAndMax& a, const SumAndMax& b) const {
    return {a.sum + b.sum, a.max > b.max ? a.max : b.max};
  }
};

// Per cell: its value (for the total) and its change since the last step.
struct ValueAndChange {
  const double* u;
  const double* previous;
  InteriorIndex at;
  __device__ SumAndMax operator()(std::int64_t t) const {
    const std::int64_t c = at(t);
    return {u[c], fabs(u[c] - previous[c])};
  }
};

class CudaHeatKernels final : public HeatKernels {
 public:
  explicit CudaHeatKernels(CudaUpdateDesign design) : chooser_(design) {}

  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k, const HaloPushes& pushes) override {
    launch(u, next, layout, box, k, pushes, PushOrder::Last, {});
  }

  void update_boundary_first(const double* u, double* next, const FieldLayout& layout,
                             const Box& inner, Coefficients k, const HaloPushes& pushes,
                             const StepHandshake& handshake) override {
    // The last boundary block runs the handshake: no planes, nobody to run it.
    if (pushes.empty() && !handshake.empty()) {
      throw Error("CUDA boundary-first update: a handshake needs pushed faces");
    }
    launch(u, next, layout, inner, k, pushes, PushOrder::BoundaryFirst, handshake);
  }

  LocalDiagnostics diagnostics(const double* u, const double* previous,
                               const FieldLayout& layout) override {
    const std::int64_t n = layout.n.product();
    const InteriorIndex at{layout};
    const thrust::counting_iterator<std::int64_t> first(0);
    // One pass over the field for both figures.
    const SumAndMax r =
        thrust::transform_reduce(thrust::device, first, first + n, ValueAndChange{u, previous, at},
                                 SumAndMax{0.0, 0.0}, CombineSumAndMax());
    MPSFW_CUDA_CHECK(cudaGetLastError());
    return {r.sum, r.max};
  }

  void synchronize() override { MPSFW_CUDA_CHECK(cudaDeviceSynchronize()); }

  void prepare_update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                      Coefficients k) override {
    if (!box.empty() && !thin_in_x(box)) chooser_.prepare(u, next, layout, box, k);
  }

  std::string update_design() const override { return design_name(chooser_.main_design()); }

 private:
  // A slab one or two cells thin in x (the shell next to an x face) would
  // leave most of a wide block idle: threads go along y instead, one shape.
  static bool thin_in_x(const Box& box) { return box.size().x < 8; }

  void launch(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k, const HaloPushes& pushes, PushOrder order,
              const StepHandshake& handshake) {
    if (box.empty() && pushes.empty()) return;
    if (!box.empty() && thin_in_x(box)) {
      launch_update<1, 128, gpu::kUpdateZChunk>(u, next, layout, box, k, pushes, order, handshake);
    } else if (pushes.empty()) {
      chooser_.update(u, next, layout, box, k);
    } else {
      launch_update<gpu::kUpdateBx, gpu::kUpdateBy, gpu::kUpdateZChunk>(u, next, layout, box, k,
                                                                        pushes, order, handshake);
    }
  }

  gpu::UpdateChooser chooser_;
};

}  // namespace

namespace detail {
std::unique_ptr<HeatKernels> make_cuda_heat_kernels(CudaUpdateDesign design) {
  return std::make_unique<CudaHeatKernels>(design);
}
}  // namespace detail

}  // namespace mpsfw::heat
