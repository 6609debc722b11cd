#pragma once
// The Brownian example as a workload of mpsfw's runtime (core/driver/workload.hpp):
// register brownian_spec() and solver_main() gives it the whole command line.
#include <mpsfw/core/driver/workload.hpp>

namespace brownian {

mpsfw::WorkloadSpec brownian_spec();

}  // namespace brownian
