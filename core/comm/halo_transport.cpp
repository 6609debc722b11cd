#include "halo_transport.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

DeviceLink device_link(const DeviceLocation& a, const DeviceLocation& b) {
  if (a.gpu.empty() || b.gpu.empty() || a.host != b.host) return DeviceLink::None;
  if (a.gpu == b.gpu) return DeviceLink::SameGpu;
  const auto lists = [](const DeviceLocation& x, const std::string& gpu) {
    return std::find(x.peers.begin(), x.peers.end(), gpu) != x.peers.end();
  };
  return lists(a, b.gpu) && lists(b, a.gpu) ? DeviceLink::PeerGpu : DeviceLink::None;
}

DeviceLocation as_transport_allows(DeviceLocation where, HaloTransport mode) {
  if (mode == HaloTransport::SameGpu) where.peers.clear();
  return where;
}

const char* to_string(DeviceLink link) {
  switch (link) {
    case DeviceLink::None:
      return "none";
    case DeviceLink::SameGpu:
      return "same GPU";
    case DeviceLink::PeerGpu:
      return "peer GPU";
  }
  return "?";
}

namespace {

const DeviceLocation& location_of(const std::vector<DeviceLocation>& where, int rank) {
  if (rank < 0 || static_cast<size_t>(rank) >= where.size()) {
    throw Error("direct_faces: rank " + std::to_string(rank) + " has no location (" +
                std::to_string(where.size()) + " ranks listed)");
  }
  return where[static_cast<size_t>(rank)];
}

FaceMask faces_where(const std::array<int, kFaces>& neighbors, int me,
                     const std::vector<DeviceLocation>& where,
                     const std::function<bool(DeviceLink)>& wanted) {
  const DeviceLocation& mine = location_of(where, me);
  FaceMask faces = 0;
  for (int f = 0; f < kFaces; ++f) {
    const int n = neighbors[static_cast<size_t>(f)];
    if (n != MPI_PROC_NULL && wanted(device_link(mine, location_of(where, n)))) faces |= 1u << f;
  }
  return faces;
}

}  // namespace

FaceMask direct_faces(const std::array<int, kFaces>& neighbors, int me,
                      const std::vector<DeviceLocation>& where) {
  return faces_where(neighbors, me, where, [](DeviceLink l) { return l != DeviceLink::None; });
}

FaceMask direct_faces(const std::array<int, kFaces>& neighbors, int me,
                      const std::vector<DeviceLocation>& where, DeviceLink link) {
  return faces_where(neighbors, me, where, [link](DeviceLink l) { return l == link; });
}

std::vector<int> linked_groups(const std::vector<DeviceLocation>& where) {
  const size_t n = where.size();
  std::vector<int> group(n, -1);
  // Union-find over the distinct GPUs (host + UUID), then each rank takes its
  // GPU's group, named by the lowest rank in it.
  std::map<std::pair<std::string, std::string>, size_t> first_on;  // GPU -> its lowest rank
  std::vector<size_t> parent(n);
  for (size_t r = 0; r < n; ++r) parent[r] = r;
  const auto root = [&parent](size_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
  };
  std::vector<size_t> gpus;  // lowest rank of each distinct GPU
  for (size_t r = 0; r < n; ++r) {
    if (where[r].gpu.empty()) continue;
    const auto [at, fresh] = first_on.emplace(std::make_pair(where[r].host, where[r].gpu), r);
    if (fresh) {
      gpus.push_back(r);
    } else {
      parent[root(r)] = root(at->second);
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      if (device_link(where[gpus[i]], where[gpus[j]]) == DeviceLink::None) continue;
      const size_t a = root(gpus[i]), b = root(gpus[j]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<size_t> lowest(n, n);
  for (size_t r = 0; r < n; ++r)
    if (!where[r].gpu.empty()) lowest[root(r)] = std::min(lowest[root(r)], r);
  for (size_t r = 0; r < n; ++r)
    if (!where[r].gpu.empty()) group[r] = static_cast<int>(lowest[root(r)]);
  return group;
}

MPI_Comm linked_communicator(MPI_Comm comm, const std::vector<DeviceLocation>& where) {
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &me));
  const int group = linked_groups(where).at(static_cast<size_t>(me));
  MPI_Comm out = MPI_COMM_NULL;
  MPSFW_MPI_CHECK(MPI_Comm_split(comm, group < 0 ? MPI_UNDEFINED : group, me, &out));
  return out;
}

}  // namespace mpsfw
