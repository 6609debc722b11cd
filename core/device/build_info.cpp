#include "build_info.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <filesystem>
#include <string>

#include "kokkos_runtime.hpp"
#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

const char* version() { return MPSFW_VERSION; }

namespace {
std::string& package_docs() {
  static std::string folder;
  return folder;
}
}  // namespace

void note_package_docs(const std::string& folder) { package_docs() = folder; }

std::string docs_location() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / MPSFW_INSTALLED_DOCS;
    if (std::filesystem::exists(installed / "input-format.md", ec)) return installed.string();
  }
  const std::filesystem::path package = package_docs();
  if (!package.empty() && std::filesystem::exists(package / "input-format.md", ec)) {
    return package.string();
  }
  return MPSFW_SOURCE_DOCS;
}

std::string build_description(const std::string& program) {
  std::string d = program + " (mpsfw " + version() + ", revision " + build_revision() + ")\n";
  // The architectures and toolkit version come from CMake (core/CMakeLists.txt).
  if (built_with_cuda()) {
    d += std::string("  CUDA      on, architectures ") + MPSFW_CUDA_ARCHITECTURES + ", toolkit " +
         MPSFW_CUDA_TOOLKIT + "\n";
  } else {
    d += "  CUDA      off (host backend only)\n";
  }
  d += built_with_kokkos() ? "  Kokkos    on, " + kokkos_description() + "\n"
                           : std::string("  Kokkos    not built in\n");
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  d += "  HDF5      " + std::to_string(major) + "." + std::to_string(minor) + "." +
       std::to_string(release) + (MPSFW_HDF5_PARALLEL ? ", parallel" : ", serial") + "\n";
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);  // allowed before MPI_Init
  std::string mpi(library, static_cast<size_t>(length));
  mpi = mpi.substr(0, mpi.find_first_of("\r\n,"));
  d += "  MPI       " + mpi + "\n";
#if defined(__clang__)
  d += "  compiler  clang " __clang_version__ "\n";
#elif defined(__GNUC__)
  d += "  compiler  GCC " __VERSION__ "\n";
#endif
  return d;
}

}  // namespace mpsfw
