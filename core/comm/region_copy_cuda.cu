#include <algorithm>

#include "region_copy.hpp"
#include <mpsfw/core/device/cuda_check.hpp>

namespace mpsfw::detail {
namespace {

// Copies travel as a kernel parameter, a batch at a time.
struct CopyBatch {
  static constexpr int kMax = 16;
  RegionCopy item[kMax];
  int count = 0;
};
static_assert(RegionCopyList::kMax <= CopyBatch::kMax, "a RegionCopyList runs in one launch");

// blockIdx.y picks the copy; consecutive threads take consecutive x cells, so
// both sides' accesses coalesce along rows.
template <class T>
__global__ void copy_regions_kernel(const __grid_constant__ CopyBatch batch) {
  const RegionCopy& c = batch.item[blockIdx.y];
  const std::int64_t n = static_cast<std::int64_t>(c.size.x) * c.size.y * c.size.z;
  const T* src = static_cast<const T*>(c.src.base);
  T* dst = static_cast<T*>(c.dst.base);
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(t % c.size.x);
    const int j = static_cast<int>((t / c.size.x) % c.size.y);
    const int k = static_cast<int>(t / (static_cast<std::int64_t>(c.size.x) * c.size.y));
    dst[c.dst.origin + c.dst.lo.x + i + (c.dst.lo.y + j) * c.dst.sy + (c.dst.lo.z + k) * c.dst.sz] =
        src[c.src.origin + c.src.lo.x + i + (c.src.lo.y + j) * c.src.sy +
            (c.src.lo.z + k) * c.src.sz];
  }
}

template <class T>
void launch(const CopyBatch& batch) {
  constexpr int threads = 256;
  std::int64_t largest = 0;
  for (int b = 0; b < batch.count; ++b) {
    const Int3 s = batch.item[b].size;
    largest = std::max(largest, static_cast<std::int64_t>(s.x) * s.y * s.z);
  }
  const std::int64_t blocks = std::min<std::int64_t>((largest + threads - 1) / threads, 4096);
  const dim3 grid(static_cast<unsigned>(std::max<std::int64_t>(blocks, 1)),
                  static_cast<unsigned>(batch.count));
  copy_regions_kernel<T><<<grid, threads>>>(batch);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_copy_regions(ScalarType type, const RegionCopy* copies, int count) {
  CopyBatch batch;
  const auto flush = [&] {
    if (batch.count == 0) return;
    if (type == ScalarType::Float32) {
      launch<float>(batch);
    } else {
      launch<double>(batch);
    }
    batch.count = 0;
  };
  for (int n = 0; n < count; ++n) {
    const RegionCopy& c = copies[n];
    if (static_cast<std::int64_t>(c.size.x) * c.size.y * c.size.z == 0) continue;
    batch.item[batch.count++] = c;
    if (batch.count == CopyBatch::kMax) flush();
  }
  flush();
}

}  // namespace mpsfw::detail
