#include "kokkos_options.hpp"

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {
namespace {

const std::string kPrefix = "--kokkos-";

std::string flag_of(const std::string& arg) { return arg.substr(0, arg.find('=')); }

std::string joined(const std::vector<std::string>& options) {
  std::string text;
  for (const std::string& o : options) text += (text.empty() ? "" : " ") + o;
  return text;
}

}  // namespace

bool is_kokkos_option(const std::string& arg) {
  return arg.size() > kPrefix.size() && arg.compare(0, kPrefix.size(), kPrefix) == 0;
}

void refuse_binding_option(const std::string& arg) {
  const std::string flag = flag_of(arg);
  // Kokkos 4's names and Kokkos 3's older spellings of the same settings.
  static const char* const kDevice[] = {"--kokkos-device-id", "--kokkos-device",
                                        "--kokkos-map-device-id-by", "--kokkos-num-devices",
                                        "--kokkos-ndevices"};
  static const char* const kThreads[] = {"--kokkos-num-threads", "--kokkos-threads",
                                         "--kokkos-numa"};
  for (const char* d : kDevice) {
    if (flag != d) continue;
    // Another device than the bound one would hold the fields where MPS, the
    // halos' peer mappings and the report do not look (under MPS a rank sees
    // only its own GPU).
    throw InputError(arg +
                     ": mpsfw sets Kokkos's device from its binding (the node's ranks take its "
                     "visible GPUs in blocks, each rank's Kokkos on its rank's GPU); choose GPUs "
                     "with CUDA_VISIBLE_DEVICES or the job's ranks and GPUs per node "
                     "(--gpus-per-node), not with Kokkos options (docs/kokkos.md)");
  }
  for (const char* t : kThreads) {
    if (flag != t) continue;
    // The node's ranks share its cores: a count of Kokkos's own would crowd
    // the other ranks' cores, and the report would name the binding's count.
    throw InputError(arg +
                     ": mpsfw sets Kokkos's host threads from its binding (the node's ranks "
                     "share its cores); set each rank's threads with OMP_NUM_THREADS, not with "
                     "Kokkos options (docs/kokkos.md)");
  }
}

bool is_kokkos_help(const std::string& arg) {
  const std::string flag = flag_of(arg);
  return flag == "--kokkos-help" || flag == "--kokkos-tools-help";
}

void check_kokkos_built(const std::vector<std::string>& options) {
  if (options.empty() || built_with_kokkos()) return;
  throw InputError(joined(options) +
                   " given, but mpsfw was built without Kokkos (options for Kokkos are for "
                   "backend kokkos; docs/kokkos.md says how to get a Kokkos)");
}

void check_kokkos_options(const std::vector<std::string>& options, Backend requested,
                          const std::string& origin) {
  if (options.empty()) return;
  check_kokkos_built(options);
  if (requested != Backend::Kokkos) {
    throw InputError(joined(options) + " given, but this run's backend is " + to_string(requested) +
                     (origin.empty() ? "" : " (" + origin + ")") +
                     ": options for Kokkos are for backend kokkos; run with --backend kokkos, "
                     "or leave them out");
  }
  for (const std::string& o : options) {
    if (is_kokkos_help(o)) {
      throw InputError(o + " prints Kokkos's help and ends the process: give it before a run, " +
                       "as `solver " + o + "`");
    }
  }
}

}  // namespace mpsfw
