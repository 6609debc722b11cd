#pragma once
// The initial field of one rank's block, on the host, halo included (the halo
// holds the Dirichlet wall value, or is filled by the first exchange).
#include <vector>

#include "heat_config.hpp"
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {

std::vector<double> initial_block(const HeatConfig& config, const CartDecomposition& decomposition,
                                  const FieldLayout& layout);
// The field one step before the initial one, from a checkpoint's
// /heat/u_previous; empty when the input has none (a fresh start).
std::vector<double> previous_block(const HeatConfig& config, const CartDecomposition& decomposition,
                                   const FieldLayout& layout);

}  // namespace mpsfw::heat
