#pragma once
// Lennard-Jones MD as a workload of mpsfw's runtime (core/workload.hpp).
#include "core/workload.hpp"

namespace mpsfw::md {

WorkloadSpec workload_spec();

}  // namespace mpsfw::md
