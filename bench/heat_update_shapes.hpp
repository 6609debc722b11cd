#pragma once
// The CUDA heat update at the thread-block shapes heat_bandwidth --sweep
// compares. The solver compiles only the shapes it runs; these are the same
// kernel (solvers/heat/heat_update.cuh) at more shapes.
#include <vector>

#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace mpsfw::bench {

// bx*by threads each march through up to z_chunk cells along z, storing with
// or without the streaming (evict-first) hint.
struct UpdateShape {
  int bx = 0, by = 0, z_chunk = 0;
  bool streaming_store = false;
};

// Every compiled shape, the solver's among them; add a line to
// heat_update_shapes.cu to try another.
std::vector<UpdateShape> update_shapes();

// next = one FTCS step of u for the cells in `box`, one launch at `shape`
// (one of update_shapes(); throws Error otherwise).
void launch_update(const UpdateShape& shape, const double* u, double* next,
                   const FieldLayout& layout, const Box& box, heat::Coefficients k);

}  // namespace mpsfw::bench
