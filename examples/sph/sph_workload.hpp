#pragma once
// The SPH example as a workload of mpsfw's runtime (core/driver/workload.hpp):
// register sph_spec() and solver_main() gives it the whole command line.
#include <mpsfw/core/driver/workload.hpp>

namespace sph {

mpsfw::WorkloadSpec sph_spec();

}  // namespace sph
