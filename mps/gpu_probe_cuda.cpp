// probe_gpu with CUDA (compiled only with CUDA; cuda_off.cpp without).
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "gpu_probe.hpp"

namespace mpsfw::mps {

GpuFacts probe_gpu(const std::string& uuid) {
  GpuFacts facts;
  int fds[2];
  if (pipe(fds) != 0) return facts;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return facts;
  }
  if (pid == 0) {
    // The child: sees only this GPU, asks, reports, exits without cleanup.
    close(fds[0]);
    setenv("CUDA_VISIBLE_DEVICES", uuid.c_str(), 1);
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    GpuFacts f;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      f.known = true;
      f.sms = prop.multiProcessorCount;
      f.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
      cudaDeviceGetAttribute(&f.compute_mode, cudaDevAttrComputeMode, 0);
    }
    const ssize_t n = write(fds[1], &f, sizeof f);
    _exit(n == static_cast<ssize_t>(sizeof f) ? 0 : 1);
  }
  close(fds[1]);
  GpuFacts got;
  if (read(fds[0], &got, sizeof got) == static_cast<ssize_t>(sizeof got)) facts = got;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return facts;
}

}  // namespace mpsfw::mps
