#pragma once
// How a face's halo travels between two ranks: as MPI messages, or, between
// ranks that compute on the same GPU, as a device-to-device copy straight out
// of the neighbour's field (mapped into this process through CUDA IPC). Which
// faces may go the direct way is pure logic, kept here so it is tested
// without a GPU.
#include <array>
#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field_layout.hpp"

namespace mpsfw {

// Auto: direct where possible, MPI elsewhere (and everywhere when any rank
// cannot map a peer's memory). Mpi: MPI for every face. Ipc: like Auto, but a
// rank that cannot map a peer's memory is an error instead of a fallback.
enum class HaloTransport { Auto, Mpi, Ipc };

// "auto" | "mpi" | "ipc"; throws InputError otherwise.
HaloTransport parse_halo_transport(const std::string& text);
const char* to_string(HaloTransport t);

// Faces whose neighbour computes on the same GPU as rank `me` (a periodic
// wrap onto `me` itself included). `neighbors[f]` is the rank across face f
// (MPI_PROC_NULL at a wall); `gpu_of_rank[r]` names rank r's GPU ("" for a
// rank that computes on the host, which never shares).
FaceMask same_gpu_faces(const std::array<int, kFaces>& neighbors, int me,
                        const std::vector<std::string>& gpu_of_rank);

}  // namespace mpsfw
