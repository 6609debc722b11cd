#pragma once
// Device memory shared between processes on one node (CUDA IPC): a process
// exports a handle for one of its allocations, a process on the same GPU maps
// that allocation into its own address space and reads it with its kernels.
// Works between MPS clients and between time-sliced contexts alike.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "device.hpp"

namespace mpsfw {

// The opaque bytes of a cudaIpcMemHandle_t, safe to send as MPI_BYTE.
struct PeerMemoryHandle {
  static constexpr int kBytes = 64;
  unsigned char bytes[kBytes] = {};
};

// A name for the physical GPU this rank computes on, equal in every process
// that uses that GPU (its UUID as nvidia-smi writes it, whatever
// CUDA_VISIBLE_DEVICES says); "" on the host backend.
std::string gpu_identity(const DeviceBinding& device);

// Where a rank's device memory lives, as far as other processes mapping it
// goes: processes on one node map each other's memory on the same GPU, or on
// a GPU theirs reaches directly (NVLink or PCIe peer access).
struct DeviceLocation {
  std::string host;                // the node (MPI_Get_processor_name)
  std::string gpu;                 // gpu_identity(); "" on the host backend: never shared
  std::vector<std::string> peers;  // DeviceBinding::peer_gpus
};
// This rank's location.
DeviceLocation device_location(const DeviceBinding& device);
// Collective over `comm`: every rank's location, by rank.
std::vector<DeviceLocation> device_locations(MPI_Comm comm, const DeviceLocation& mine);
// Collective over `comm`: every rank's gpu_identity, by rank.
std::vector<std::string> gpu_identities(MPI_Comm comm, const std::string& mine);
// Collective over `comm`: the ranks that compute on this rank's GPU (`gpus`
// from gpu_identities), in rank order; MPI_COMM_NULL on the host backend.
MPI_Comm gpu_communicator(MPI_Comm comm, const std::vector<std::string>& gpus);

// How a process shares its buffers with the other processes on its device:
// CUDA IPC in production (cuda_ipc_memory()); tests substitute host shared
// memory, so the same-GPU halo logic (the step counters of StreamSignals
// included) runs in CI without a GPU.
class PeerMemory {
 public:
  virtual ~PeerMemory() = default;
  // Where the memory it shares lives: Cuda for CUDA IPC, Host for tests.
  virtual Backend space() const = 0;
  // `bytes` zeroed bytes that share() accepts (a step counter); release them
  // with release().
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* p, std::size_t bytes) noexcept = 0;
  // A handle for the allocation that starts at `base`.
  virtual PeerMemoryHandle share(const void* base) = 0;
  // Another process's shared allocation, mapped here; throws Error if it
  // cannot be.
  virtual void* map(const PeerMemoryHandle& handle) = 0;
  virtual void unmap(void* mapped) noexcept = 0;
};

// The functions below, as a PeerMemory.
PeerMemory& cuda_ipc_memory();
// What a rank bound to `device` shares its buffers through: CUDA IPC where its
// fields are on a GPU, nothing (null) on the host. Decided here once for
// every exchange a workload builds.
PeerMemory* peer_memory_for(const DeviceBinding& device);

// A handle for the allocation that starts at `base` (a cudaMalloc result).
PeerMemoryHandle export_device_memory(const void* base);
// Maps another process's exported allocation; unmap with close_peer_memory.
// Throws Error with CUDA's reason when the allocation cannot be mapped.
void* open_peer_memory(const PeerMemoryHandle& handle);
void close_peer_memory(void* mapped) noexcept;

}  // namespace mpsfw
