// A build without Kokkos: the Kokkos runtime's functions, in place of
// kokkos_runtime.cpp (core/base/backend.hpp says how builds without a backend work).
#include "kokkos_runtime.hpp"

namespace mpsfw {

Backend kokkos_memory() { throw_built_without_kokkos("the Kokkos backend"); }
bool kokkos_on_gpu() { return false; }
void kokkos_start(int, int, const std::vector<std::string>&) {
  throw_built_without_kokkos("backend 'kokkos'");
}
void kokkos_print_help(const std::vector<std::string>&) {
  throw_built_without_kokkos("Kokkos's help");
}
void kokkos_stop() {}
std::string kokkos_description() { return "Kokkos (not built)"; }

}  // namespace mpsfw
