#pragma once
// Lennard-Jones MD as a workload of mpsfw's runtime (core/driver/workload.hpp).
#include <mpsfw/core/driver/workload.hpp>

namespace mpsfw::md {

WorkloadSpec workload_spec();

}  // namespace mpsfw::md
