// The CUDA runtime's side of peer_memory.hpp: GPU UUIDs and CUDA IPC
// (compiled only with CUDA).
#include <cstdio>
#include <cstring>

#include "cuda_check.hpp"
#include "peer_memory.hpp"

namespace mpsfw {

static_assert(sizeof(cudaIpcMemHandle_t) == PeerMemoryHandle::kBytes,
              "PeerMemoryHandle must hold a cudaIpcMemHandle_t");

std::string gpu_identity(const DeviceBinding& device) {
  return device.memory == Backend::Cuda ? detail::cuda_uuid(device.gpu) : "";
}

PeerMemoryHandle export_device_memory(const void* base) {
  cudaIpcMemHandle_t h;
  MPSFW_CUDA_CHECK(cudaIpcGetMemHandle(&h, const_cast<void*>(base)));
  PeerMemoryHandle out;
  std::memcpy(out.bytes, &h, sizeof h);
  return out;
}

void* open_peer_memory(const PeerMemoryHandle& handle) {
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.bytes, sizeof h);
  void* mapped = nullptr;
  MPSFW_CUDA_CHECK(cudaIpcOpenMemHandle(&mapped, h, cudaIpcMemLazyEnablePeerAccess));
  return mapped;
}

void close_peer_memory(void* mapped) noexcept {
  if (mapped != nullptr) cudaIpcCloseMemHandle(mapped);
}

}  // namespace mpsfw
