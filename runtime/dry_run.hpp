#pragma once
// `--dry-run`: the run as it would go, printed, with nothing started — the
// input and outputs checked (as before any run), the rank grid, each rank's
// node, GPU, MPS cap and cores, whether MPS would start or reuse daemons
// (the session's bring-up in plan mode: MpsConfig::plan_only), and the memory
// each rank's workload will allocate against what its GPU or node has free.
#include <cstdio>
#include <string>

#include "session.hpp"
#include <mpsfw/core/driver/workload.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

// Collective: prints the plan on rank 0 (to `out`) for `solver` (its name)
// splitting its cells on `grid`. False when the memory the ranks need does not
// fit where they share it (the run's preflight would refuse it).
bool print_dry_run(const Session& session, const std::string& solver, const RunConfig& run,
                   const Workload& workload, Int3 grid, std::FILE* out);

}  // namespace mpsfw
