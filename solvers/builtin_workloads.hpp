#pragma once
// The solvers this build compiled in (every folder of solvers/), registered.
#include <mpsfw/core/driver/workload.hpp>

namespace mpsfw {

WorkloadRegistry builtin_workloads();

}  // namespace mpsfw
