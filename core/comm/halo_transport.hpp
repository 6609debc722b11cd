#pragma once
// How a face's halo travels between two ranks: as MPI messages, or, between
// ranks whose device memory reaches each other (the same GPU, or peer GPUs of
// one node), device to device straight into or out of the neighbour's field
// (mapped into this process through CUDA IPC). Which faces may go the direct
// way is pure logic, kept here so it is tested without a GPU.
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/input/halo_choices.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

enum class DeviceLink {
  None,     // MPI: host ranks, other nodes, GPUs that do not reach each other
  SameGpu,  // both on one GPU
  PeerGpu,  // GPUs of one node that each list the other as a peer
};
DeviceLink device_link(const DeviceLocation& a, const DeviceLocation& b);
// `where` with the links `mode` allows: no peer GPUs under SameGpu.
DeviceLocation as_transport_allows(DeviceLocation where, HaloTransport mode);
// "same GPU", "peer GPU", "none".
const char* to_string(DeviceLink link);

// Faces of rank `me` whose neighbour's memory it reaches (a periodic wrap
// onto itself included); with `link`, only faces of that kind.
// `neighbors[f]` is the rank across face f (MPI_PROC_NULL at a wall);
// `where[r]` is rank r's location (device_locations).
FaceMask direct_faces(const std::array<int, kFaces>& neighbors, int me,
                      const std::vector<DeviceLocation>& where);
FaceMask direct_faces(const std::array<int, kFaces>& neighbors, int me,
                      const std::vector<DeviceLocation>& where, DeviceLink link);

// The ranks that order their steps together: per rank, the lowest rank
// linked to it directly or through others (one group per set of GPUs that
// reach each other on a node); -1 for ranks on the host backend.
std::vector<int> linked_groups(const std::vector<DeviceLocation>& where);
// Collective over `comm`: this rank's group as a communicator (rank order
// kept); MPI_COMM_NULL on the host backend.
MPI_Comm linked_communicator(MPI_Comm comm, const std::vector<DeviceLocation>& where);

}  // namespace mpsfw
