#include "halo_transport.hpp"

#include <mpi.h>

#include "core/error.hpp"

namespace mpsfw {

HaloTransport parse_halo_transport(const std::string& text) {
  if (text == "auto") return HaloTransport::Auto;
  if (text == "mpi") return HaloTransport::Mpi;
  if (text == "ipc") return HaloTransport::Ipc;
  throw InputError("halo transport '" + text + "': expected auto, mpi or ipc");
}

const char* to_string(HaloTransport t) {
  switch (t) {
    case HaloTransport::Auto:
      return "auto";
    case HaloTransport::Mpi:
      return "mpi";
    case HaloTransport::Ipc:
      return "ipc";
  }
  return "?";
}

FaceMask same_gpu_faces(const std::array<int, kFaces>& neighbors, int me,
                        const std::vector<std::string>& gpu_of_rank) {
  const auto gpu = [&](int rank) -> const std::string& {
    if (rank < 0 || static_cast<size_t>(rank) >= gpu_of_rank.size()) {
      throw Error("same_gpu_faces: rank " + std::to_string(rank) + " has no GPU entry (" +
                  std::to_string(gpu_of_rank.size()) + " ranks listed)");
    }
    return gpu_of_rank[static_cast<size_t>(rank)];
  };
  const std::string& mine = gpu(me);
  FaceMask faces = 0;
  if (mine.empty()) return faces;
  for (int f = 0; f < kFaces; ++f) {
    const int n = neighbors[static_cast<size_t>(f)];
    if (n != MPI_PROC_NULL && gpu(n) == mine) faces |= 1u << f;
  }
  return faces;
}

}  // namespace mpsfw
