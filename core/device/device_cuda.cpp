// The CUDA runtime's side of device.hpp (compiled only with CUDA).
#include <cstdio>
#include <string>

#include "cuda_check.hpp"
#include "device.hpp"

namespace mpsfw {

int cuda_runtime_version() { return CUDART_VERSION; }

int count_visible_gpus(const CudaGate&) {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code == cudaErrorInsufficientDriver || code == cudaErrorStubLibrary ||
      code == cudaErrorNoDevice) {
    cudaGetLastError();  // clear the sticky "no device" state
    return 0;
  }
  MPSFW_CUDA_CHECK(code);
  return count;
}

namespace detail {

std::string cuda_uuid(int device) {
  cudaDeviceProp prop{};
  MPSFW_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  // nvidia-smi's spelling: GPU-8-4-4-4-12 hex digits.
  std::string id = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(prop.uuid.bytes[i]));
    id += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) id += '-';
  }
  return id;
}

DeviceBinding cuda_binding(int gpu, int visible_gpus) {
  DeviceBinding b;
  b.backend = Backend::Cuda;
  b.memory = Backend::Cuda;
  b.visible_gpus = visible_gpus;
  b.gpu = gpu;
  MPSFW_CUDA_CHECK(cudaSetDevice(b.gpu));
  cudaDeviceProp prop{};
  MPSFW_CUDA_CHECK(cudaGetDeviceProperties(&prop, b.gpu));
  b.name = prop.name;
  MPSFW_CUDA_CHECK(
      cudaDeviceGetAttribute(&b.multiprocessors, cudaDevAttrMultiProcessorCount, b.gpu));
  MPSFW_CUDA_CHECK(cudaDeviceGetAttribute(&b.mps_enabled, cudaDevAttrMpsEnabled, b.gpu));
  for (int other = 0; other < visible_gpus; ++other) {
    int reaches = 0;
    if (other == b.gpu) continue;
    MPSFW_CUDA_CHECK(cudaDeviceCanAccessPeer(&reaches, b.gpu, other));
    if (reaches == 1) b.peer_gpus.push_back(cuda_uuid(other));
  }
  return b;
}

void cuda_reset_device() { MPSFW_CUDA_CHECK(cudaDeviceReset()); }

void cuda_block_on_waits() {
  if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace detail
}  // namespace mpsfw
