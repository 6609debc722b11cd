// probe_gpu with CUDA (compiled only with CUDA; cuda_off.cpp without).
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu_probe.hpp"

namespace mpsfw::mps {

GpuFacts probe_gpu(const std::string& uuid, const std::vector<std::string>& others) {
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
    // The child: sees this GPU as device 0, then the others; asks, reports,
    // exits without cleanup.
    close(fds[0]);
    std::string visible = uuid;
    for (const std::string& o : others) visible += "," + o;
    setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    GpuFacts f;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      f.known = true;
      f.sms = prop.multiProcessorCount;
      f.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
      cudaDeviceGetAttribute(&f.compute_mode, cudaDevAttrComputeMode, 0);
      int count = 0;
      cudaGetDeviceCount(&count);
      for (int d = 1; d < count && d <= 64; ++d) {
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, 0, d) == cudaSuccess && can == 1)
          f.peers |= std::uint64_t{1} << (d - 1);
      }
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
