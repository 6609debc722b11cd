#pragma once
// The run report of an MD run (collective over the solver's communicator).
#include <string>
#include <vector>

#include "md_solver.hpp"
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/driver/report.hpp>
#include <mpsfw/core/input/params.hpp>

namespace mpsfw::md {

RunReport make_report(const MdSolver& solver, const Params& params, const DeviceBinding& device,
                      const std::string& host_name, const std::vector<std::string>& warnings);

}  // namespace mpsfw::md
