#pragma once
// Designs of the CUDA heat update that heat_bandwidth --variants compares with
// the solver's: its pair update (solvers/heat/heat_update_pairs.cuh) at more
// shapes and prefetch distances, and designs it did not take. Each computes
// every cell with heat::updated_value from the same arguments, so its results
// are bit for bit the solver's.
#include <string>
#include <vector>

#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>
#include <mpsfw/solvers/heat/heat_physics.hpp>

namespace mpsfw::bench {

// Every compiled variant by name: the design, then the thread-block shape
// (threads in x by y) and the cells each thread marches along z, e.g.
// "pairs-l2+4 32x16 z8". Add a line to heat_update_variants.cu to try another.
std::vector<std::string> update_variants();

// next = one FTCS step of u for the cells in `box`, one launch of variant
// `name` (one of update_variants(); throws Error otherwise, and for a pairs
// variant when box.lo.x cannot start 16-byte aligned pairs).
void launch_update_variant(const std::string& name, const double* u, double* next,
                           const FieldLayout& layout, const Box& box, heat::Coefficients k);
}  // namespace mpsfw::bench
