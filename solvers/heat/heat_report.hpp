#pragma once
// Fills the generic run report with what a heat run did.
#include <string>
#include <vector>

#include "heat_solver.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/report.hpp>
#include <mpsfw/core/input/params.hpp>

namespace mpsfw::heat {

// Collective over the solver's communicator; the result is complete on rank 0.
RunReport make_report(const HeatSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings);

}  // namespace mpsfw::heat
