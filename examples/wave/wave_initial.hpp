#pragma once
// The initial state of one rank's block on the host, in the padded layout:
// u^0 and u^{-1} (the leapfrog's two levels). Halo cells hold 0, the
// Dirichlet walls' value; periodic halos are filled by the first exchange.
#include <vector>

#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

#include "wave_config.hpp"

namespace wave {

struct InitialState {
  std::vector<double> u;       // u at t = 0
  std::vector<double> u_prev;  // u at t = -dt
};

// The block of `layout.n` cells whose first cell is global cell `offset`.
InitialState initial_state(const WaveConfig& config, mpsfw::Int3 offset,
                           const mpsfw::FieldLayout& layout);

}  // namespace wave
