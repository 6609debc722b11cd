#pragma once
// `--dry-run`: the run as it would go, printed, with nothing started — the
// input and outputs checked (as before any run), the rank grid, each rank's
// node, GPU, MPS cap and cores, and whether MPS would start or reuse daemons
// (the session's bring-up in plan mode: MpsConfig::plan_only).
#include <cstdio>
#include <string>

#include "core/box.hpp"
#include "core/run_config.hpp"
#include "mps/session.hpp"

namespace mpsfw {

// Collective: prints the plan on rank 0 (to `out`) for `solver` (its name)
// splitting `cells` on `grid`.
void print_dry_run(const Session& session, const std::string& solver, const RunConfig& run,
                   Int3 cells, Int3 grid, std::FILE* out);

}  // namespace mpsfw
