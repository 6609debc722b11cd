#pragma once
// The heat solver as a workload of mpsfw's runtime (core/driver/workload.hpp).
#include <mpsfw/core/driver/workload.hpp>

namespace mpsfw::heat {

WorkloadSpec workload_spec();

}  // namespace mpsfw::heat
