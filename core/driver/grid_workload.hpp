#pragma once
// A grid solver of one's own as a workload: its name, keys and input
// template, and the GridModel its finalized parameters give (grid_solver.hpp).
// Everything else a workload answers is derived from the model: the grid the
// ranks split, the split hint (the halo width), weak scaling (the model's
// cell keys), the memory needs (for --dry-run and the run's preflight), the
// banner, and the report (the job, the loop's phases and throughput in
// cell-updates/s, the halo path, the diagnostics as columns):
//   registry.add(mpsfw::grid_workload({"wave", "3D scalar wave equation ...",
//       wave_keys(), wave_template(), wave_model_of_params,
//       mpsfw::backends_built(WAVE_HAVE_CUDA, WAVE_HAVE_KOKKOS)}));
#include <functional>
#include <string>
#include <vector>

#include "grid_solver.hpp"
#include "workload.hpp"
#include <mpsfw/core/input/params.hpp>

namespace mpsfw {

struct GridSolverSpec {
  std::string name;                         // the input's `solver` attribute
  std::string summary;                      // one line for --help
  std::vector<ParamSpec> keys;              // its own keys (not /run's, not /mps)
  std::vector<std::string> input_template;  // "group.key=value" for every required key
  // The model of finalized parameters; checks what the schema cannot and
  // throws InputError naming the key.
  std::function<GridModel(const Params&)> model;
  std::vector<Backend> backends = {Backend::Host};
};

WorkloadSpec grid_workload(GridSolverSpec spec);

}  // namespace mpsfw
