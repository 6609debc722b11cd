// The sweep's table of shapes (heat_update_shapes.hpp).
#include <string>

#include "bench/heat_update_shapes.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/solvers/heat/heat_update.cuh>

namespace mpsfw::bench {
namespace {

using Launcher = void (*)(const double*, double*, const FieldLayout&, const Box&,
                          heat::Coefficients);
struct CompiledShape {
  UpdateShape shape;
  Launcher launch;
};

#define MPSFW_SHAPE(BX, BY, ZC)                                             \
  {{BX, BY, ZC, false}, heat::gpu::launch_update_box<BX, BY, ZC, false>}, { \
    {BX, BY, ZC, true}, heat::gpu::launch_update_box<BX, BY, ZC, true>      \
  }
#define MPSFW_SHAPES(BX, BY) \
  MPSFW_SHAPE(BX, BY, 2), MPSFW_SHAPE(BX, BY, 4), MPSFW_SHAPE(BX, BY, 8), MPSFW_SHAPE(BX, BY, 16)
const CompiledShape kShapes[] = {MPSFW_SHAPES(32, 4), MPSFW_SHAPES(32, 8), MPSFW_SHAPES(64, 2),
                                 MPSFW_SHAPES(64, 4), MPSFW_SHAPES(128, 2)};
#undef MPSFW_SHAPES
#undef MPSFW_SHAPE

}  // namespace

std::vector<UpdateShape> update_shapes() {
  std::vector<UpdateShape> shapes;
  for (const CompiledShape& s : kShapes) shapes.push_back(s.shape);
  return shapes;
}

void launch_update(const UpdateShape& shape, const double* u, double* next,
                   const FieldLayout& layout, const Box& box, heat::Coefficients k) {
  for (const CompiledShape& s : kShapes) {
    if (s.shape.bx == shape.bx && s.shape.by == shape.by && s.shape.z_chunk == shape.z_chunk &&
        s.shape.streaming_store == shape.streaming_store) {
      s.launch(u, next, layout, box, k);
      return;
    }
  }
  throw Error("heat update shape " + std::to_string(shape.bx) + "x" + std::to_string(shape.by) +
              " z" + std::to_string(shape.z_chunk) + " is not compiled in");
}

}  // namespace mpsfw::bench
