#include "halo_choices.hpp"

#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

HaloTransport parse_halo_transport(const std::string& text) {
  if (text == "auto") return HaloTransport::Auto;
  if (text == "mpi") return HaloTransport::Mpi;
  if (text == "ipc") return HaloTransport::Ipc;
  if (text == "same-gpu") return HaloTransport::SameGpu;
  throw InputError("halo transport '" + text + "': expected auto, mpi, ipc or same-gpu");
}

const char* to_string(HaloTransport t) {
  switch (t) {
    case HaloTransport::Auto:
      return "auto";
    case HaloTransport::Mpi:
      return "mpi";
    case HaloTransport::Ipc:
      return "ipc";
    case HaloTransport::SameGpu:
      return "same-gpu";
  }
  return "?";
}

HaloSync parse_halo_sync(const std::string& text) {
  if (text == "auto") return HaloSync::Auto;
  if (text == "barrier") return HaloSync::Barrier;
  throw InputError("halo sync '" + text + "': expected auto or barrier");
}

const char* to_string(HaloSync sync) { return sync == HaloSync::Barrier ? "barrier" : "auto"; }

}  // namespace mpsfw
