#include <cstdint>

#include "box_copy.hpp"
#include "cuda_check.hpp"

namespace mpsfw::detail {
namespace {

// blockIdx.y picks the box; the blocks along x stride over its cells.
template <bool to_buffer>
__global__ void copy_boxes_kernel(double* field, FieldLayout layout, BoxList boxes,
                                  double* buffer) {
  const Box box = boxes.box[blockIdx.y];
  const Int3 s = box.size();
  const std::int64_t n = box.cells();
  double* base = buffer + boxes.offset[blockIdx.y];
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(t % s.x);
    const int j = static_cast<int>((t / s.x) % s.y);
    const int k = static_cast<int>(t / (static_cast<std::int64_t>(s.x) * s.y));
    const std::int64_t f = layout.index(box.lo.x + i, box.lo.y + j, box.lo.z + k);
    if (to_buffer) {
      base[t] = field[f];
    } else {
      field[f] = base[t];
    }
  }
}

// blockIdx.y picks the box; consecutive threads take consecutive x cells of
// both fields, so reads from the neighbour's memory coalesce.
__global__ void copy_from_peers_kernel(double* field, FieldLayout layout, PeerBoxList boxes) {
  const PeerBox& p = boxes.item[blockIdx.y];
  const Int3 s = p.dst_box.size();
  const std::int64_t n = p.dst_box.cells();
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(t % s.x);
    const int j = static_cast<int>((t / s.x) % s.y);
    const int k = static_cast<int>(t / (static_cast<std::int64_t>(s.x) * s.y));
    field[layout.index(p.dst_box.lo.x + i, p.dst_box.lo.y + j, p.dst_box.lo.z + k)] =
        p.src[p.src_layout.index(p.src_box.lo.x + i, p.src_box.lo.y + j, p.src_box.lo.z + k)];
  }
}

unsigned blocks_for(std::int64_t cells, int threads) {
  const std::int64_t wanted = (cells + threads - 1) / threads;
  return static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
}

}  // namespace

void cuda_copy_from_peers(double* field, const FieldLayout& layout, const PeerBoxList& boxes) {
  constexpr int threads = 256;
  std::int64_t largest = 0;
  for (int b = 0; b < boxes.count; ++b) largest = std::max(largest, boxes.item[b].dst_box.cells());
  const dim3 grid(blocks_for(largest, threads), static_cast<unsigned>(boxes.count));
  copy_from_peers_kernel<<<grid, threads>>>(field, layout, boxes);
  MPSFW_CUDA_CHECK_LAUNCH();
}

void cuda_copy_boxes(double* field, const FieldLayout& layout, const BoxList& boxes, double* buffer,
                     bool to_buffer) {
  constexpr int threads = 256;
  std::int64_t largest = 0;
  for (int b = 0; b < boxes.count; ++b) largest = std::max(largest, boxes.box[b].cells());
  const dim3 grid(blocks_for(largest, threads), static_cast<unsigned>(boxes.count));
  if (to_buffer) {
    copy_boxes_kernel<true><<<grid, threads>>>(field, layout, boxes, buffer);
  } else {
    copy_boxes_kernel<false><<<grid, threads>>>(field, layout, boxes, buffer);
  }
  MPSFW_CUDA_CHECK_LAUNCH();
}

}  // namespace mpsfw::detail
