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
#include <utility>

#include <mpsfw/core/driver/workload.hpp>

namespace mpsfw {

// The package's documentation folder for a program built against an
// installed mpsfw (its CMake config defines MPSFW_PACKAGE_DOCS), "" in
// mpsfw's own tree: --help names it.
#ifdef MPSFW_PACKAGE_DOCS
inline constexpr const char* kPackageDocs = MPSFW_PACKAGE_DOCS;
#else
inline constexpr const char* kPackageDocs = "";
#endif

int solver_main_with_docs(int argc, char** argv, const WorkloadRegistry& workloads,
                          const std::string& program, const std::string& package_docs);

inline int solver_main(int argc, char** argv, const WorkloadRegistry& workloads,
                       const std::string& program = "solver") {
  return solver_main_with_docs(argc, argv, workloads, program, kPackageDocs);
}
// The program of one workload: return solver_main(argc, argv, spec, "wave_solver").
inline int solver_main(int argc, char** argv, WorkloadSpec spec, const std::string& program) {
  WorkloadRegistry workloads;
  workloads.add(std::move(spec));
  return solver_main(argc, argv, workloads, program);
}

}  // namespace mpsfw
