#pragma once
// The heat solver as a workload of mpsfw's runtime (core/workload.hpp).
#include "core/workload.hpp"

namespace mpsfw::heat {

WorkloadSpec workload_spec();

}  // namespace mpsfw::heat
