#pragma once
// Before a workload allocates: does what the ranks ask for fit in what their
// node (host memory) or their GPU (device memory) has free? A grid that cannot
// fit is refused at once, with both numbers, instead of running until the
// kernel's OOM killer or a failed cudaMalloc somewhere in the middle.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "backend.hpp"

namespace mpsfw {

// Collective over `comm`. `bytes`: what this rank will allocate in `space`
// (device memory for Cuda, host memory for Host); `gpu`: its GPU
// (gpu_identity(), "" on the host); `what` names it ("heat fields and halo
// buffers"). The ranks sharing a node (host) or a GPU (device) add up their
// needs; more than 95 % of what is free there throws AgreedError on every
// rank.
void preflight_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                      const std::string& what);

// Host memory the kernel could give now (MemAvailable), bytes; -1 if unknown.
std::int64_t available_host_bytes();

}  // namespace mpsfw
