#pragma once
// Before a workload allocates: does what the ranks ask for fit in what their
// node (host memory) or their GPU (device memory) has free? A grid that cannot
// fit is refused at once, with both numbers, instead of running until the
// kernel's OOM killer or a failed cudaMalloc somewhere in the middle.
#include <mpi.h>

#include <cstdint>
#include <string>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

// Collective over `comm`. `bytes`: what this rank will allocate in `space`
// (device memory for Cuda, host memory for Host); `gpu`: its GPU
// (gpu_identity(), "" on the host); `what` names it ("heat fields and halo
// buffers"). The ranks sharing a node (host) or a GPU (device) add up their
// needs; more than 95 % of what is free there throws AgreedError on every
// rank.
void preflight_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                      const std::string& what);

// Host memory this process may still allocate, and the limit that says so.
struct HostMemory {
  std::int64_t bytes = -1;  // -1: unknown
  std::string source;       // "MemAvailable in /proc/meminfo", "the cgroup memory.max of ..."
};

// What the ranks sharing a memory with this one (its GPU's for Cuda, its
// node's for Host) need together, how many they are, and whether that fits
// in `free` (what this rank sees free there): more than 95 % of it does not.
struct MemoryShare {
  std::int64_t need = 0;
  int ranks = 0;
  HostMemory free;
  bool fits() const { return free.bytes < 0 || static_cast<double>(need) <= 0.95 * free.bytes; }
  // "heat's fields need 1.2 GiB of GPU memory per rank, 9.6 GiB for the 8
  // ranks sharing it, and 139 GiB is free" ("but only ... is free" where it
  // does not fit).
  std::string text(Backend space, std::int64_t bytes, const std::string& what) const;
};
// Collective over `comm`.
MemoryShare share_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                         const HostMemory& free);

// The smaller of what the node has (MemAvailable) and what this process's
// memory cgroup still allows: a batch job's memory (Slurm --mem) is a cgroup
// limit, and the kernel's OOM killer ends a job at it however much the node
// has free. The cgroup comes from <proc_root>/self/cgroup; its limit less its
// usage (page cache that can be reclaimed not counted) is read for it and for
// each ancestor, the least of them applying: cgroup v2 memory.max and
// memory.current under <sys_root>/fs/cgroup, v1 memory.limit_in_bytes and
// memory.usage_in_bytes under <sys_root>/fs/cgroup/memory. "max" (or v1's
// page-counter maximum) is no limit. The roots are arguments for the tests.
HostMemory available_host_memory(const std::string& proc_root = "/proc",
                                 const std::string& sys_root = "/sys");

}  // namespace mpsfw
