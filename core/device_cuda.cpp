// The CUDA runtime's side of device.hpp (compiled only with CUDA).
#include "cuda_check.hpp"
#include "device.hpp"

namespace mpsfw {

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
  return b;
}

void cuda_reset_device() { MPSFW_CUDA_CHECK(cudaDeviceReset()); }

}  // namespace detail
}  // namespace mpsfw
