#pragma once
// What this build of mpsfw is: for --version of every program (like `lmp -h`)
// and for the run report, so results of different builds are never mixed.
#include <string>

namespace mpsfw {

const char* version();         // "0.1.0"
const char* build_revision();  // `git describe` when the build ran; "unknown" outside a checkout
// Several lines: version and revision, CUDA (on/off, architectures), Kokkos,
// HDF5 (version, parallel or serial), the MPI library, the compiler. Needs no
// MPI_Init.
std::string build_description(const std::string& program);
// Where the documentation is: <prefix>/share/doc/mpsfw beside an installed
// program (found from the program's own path, wherever it was installed),
// else the installed package's a program built against it was told of
// (note_package_docs), else the source tree's docs/.
std::string docs_location();
// The documentation folder of the installed package a program was built
// against ("" for none): solver_main passes the package's MPSFW_PACKAGE_DOCS.
void note_package_docs(const std::string& folder);

}  // namespace mpsfw
