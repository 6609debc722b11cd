#include <cstdint>

#include "box_copy.hpp"
#include "cuda_check.hpp"

namespace mpsfw::detail {
namespace {

// One thread per cell of the box; `to_buffer` picks the direction.
template <bool to_buffer>
__global__ void copy_box_kernel(double* field, FieldLayout layout, Box box, double* buffer) {
  const Int3 s = box.size();
  const std::int64_t n = box.cells();
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(t % s.x);
    const int j = static_cast<int>((t / s.x) % s.y);
    const int k = static_cast<int>(t / (static_cast<std::int64_t>(s.x) * s.y));
    const std::int64_t f = layout.index(box.lo.x + i, box.lo.y + j, box.lo.z + k);
    if (to_buffer) {
      buffer[t] = field[f];
    } else {
      field[f] = buffer[t];
    }
  }
}

template <bool to_buffer>
void launch(double* field, const FieldLayout& layout, const Box& box, double* buffer) {
  constexpr int threads = 256;
  const std::int64_t blocks_needed = (box.cells() + threads - 1) / threads;
  const int blocks = static_cast<int>(blocks_needed < 65535 ? blocks_needed : 65535);
  copy_box_kernel<to_buffer><<<blocks, threads>>>(field, layout, box, buffer);
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_pack_box(const double* field, const FieldLayout& layout, const Box& box, double* buffer) {
  launch<true>(const_cast<double*>(field), layout, box, buffer);
}

void cuda_unpack_box(double* field, const FieldLayout& layout, const Box& box,
                     const double* buffer) {
  launch<false>(field, layout, box, const_cast<double*>(buffer));
}

}  // namespace mpsfw::detail
