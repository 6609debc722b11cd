#include "region_copy.hpp"

#include "field_halos.hpp"

namespace mpsfw {

StridedRegion field_region(void* field, const FieldLayout& layout, const Box& box) {
  return {field, layout.first, layout.stride_y(), layout.stride_z(), box.lo};
}

StridedRegion dense_region(void* buffer, const Box& box) {
  const Int3 s = box.size();
  const std::int64_t sy = s.x, sz = static_cast<std::int64_t>(s.x) * s.y;
  return {buffer, -(box.lo.x + box.lo.y * sy + box.lo.z * sz), sy, sz, box.lo};
}

namespace {

template <class T>
void host_copy(const std::vector<RegionCopy>& copies) {
  for (const RegionCopy& c : copies) {
    const T* src = static_cast<const T*>(c.src.base);
    T* dst = static_cast<T*>(c.dst.base);
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < c.size.z; ++k) {
      for (int j = 0; j < c.size.y; ++j) {
        const T* from = src + c.src.origin + c.src.lo.x + (c.src.lo.y + j) * c.src.sy +
                        (c.src.lo.z + k) * c.src.sz;
        T* to = dst + c.dst.origin + c.dst.lo.x + (c.dst.lo.y + j) * c.dst.sy +
                (c.dst.lo.z + k) * c.dst.sz;
        for (int i = 0; i < c.size.x; ++i) to[i] = from[i];
      }
    }
  }
}

}  // namespace

void copy_regions(Backend space, ScalarType type, const std::vector<RegionCopy>& copies) {
  if (copies.empty()) return;
  if (space == Backend::Cuda) {
    detail::cuda_copy_regions(type, copies);
  } else if (type == ScalarType::Float32) {
    host_copy<float>(copies);
  } else {
    host_copy<double>(copies);
  }
}

}  // namespace mpsfw
