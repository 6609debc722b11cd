#include "box_copy.hpp"

#include "error.hpp"

namespace mpsfw {

void pack_box(Backend space, const double* field, const FieldLayout& layout, const Box& box,
              double* buffer) {
  if (box.empty()) return;
  if (space == Backend::Cuda) {
    detail::cuda_pack_box(field, layout, box, buffer);
  } else {
    detail::host_pack_box(field, layout, box, buffer);
  }
}

void unpack_box(Backend space, double* field, const FieldLayout& layout, const Box& box,
                const double* buffer) {
  if (box.empty()) return;
  if (space == Backend::Cuda) {
    detail::cuda_unpack_box(field, layout, box, buffer);
  } else {
    detail::host_unpack_box(field, layout, box, buffer);
  }
}

#if !MPSFW_HAVE_CUDA
namespace detail {
void cuda_pack_box(const double*, const FieldLayout&, const Box&, double*) {
  throw Error("this build of mpsfw has no CUDA backend");
}
void cuda_unpack_box(double*, const FieldLayout&, const Box&, const double*) {
  throw Error("this build of mpsfw has no CUDA backend");
}
}  // namespace detail
#endif

}  // namespace mpsfw
