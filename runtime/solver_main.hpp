#pragma once
// The `solver` program for any set of registered workloads:
//
//   int main(int argc, char** argv) {
//     mpsfw::WorkloadRegistry workloads;
//     workloads.add(my_solver::workload());
//     return mpsfw::solver_main(argc, argv, workloads);
//   }
//
// gives a solver of one's own everything apps/solver has: the command line
// (--set, --backend, --mps, --report, ...), MPS brought up and verified
// (mpsfw::Session), the input read once and checked against the workload's
// schema, output paths checked before any compute, the rank grid, the
// summary table and run.json.
#include <string>

#include "core/driver/workload.hpp"

namespace mpsfw {

int solver_main(int argc, char** argv, const WorkloadRegistry& workloads,
                const std::string& program = "solver");
// The program of one workload: return solver_main(argc, argv, spec, "wave_solver").
int solver_main(int argc, char** argv, WorkloadSpec spec, const std::string& program);

}  // namespace mpsfw
