#pragma once
// The wave example as a workload of mpsfw's runtime (core/driver/workload.hpp):
// register wave_spec() and solver_main() gives it the whole command line.
#include <mpsfw/core/driver/workload.hpp>

namespace wave {

mpsfw::WorkloadSpec wave_spec();

}  // namespace wave
