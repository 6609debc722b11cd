// Experiment: can a process on one GPU write another process's memory on a
// second GPU through CUDA IPC, with and without MPS, and how fast? Run by
// bench/multi_gpu_probe.sh, which starts the two processes under each MPS
// arrangement (no MPS, one daemon per GPU seeing one or all GPUs, one daemon
// for the node) and records what each one printed.
//   peer_ipc_probe export DIR   allocate on device 0, publish DIR/handle, wait
//                               for DIR/done, check what the importer wrote
//   peer_ipc_probe import DIR   map DIR/handle, write it from device 0 with a
//                               kernel (timed), then DIR/done
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kDoubles = std::size_t(32) << 20;  // 256 MiB

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::printf("%s: %s (%s)\n", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return false;
}

void describe() {
  int count = 0, mps = -1;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  check(cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, 0), "MpsEnabled");
  std::printf("devices %d, mps %d, CUDA_VISIBLE_DEVICES=%s\n", count, mps,
              std::getenv("CUDA_VISIBLE_DEVICES") ? std::getenv("CUDA_VISIBLE_DEVICES") : "");
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, d), "props");
    std::printf("  device %d: %s bus %02x sms %d", d, p.name, p.pciBusID, p.multiProcessorCount);
    for (int o = 0; o < count; ++o) {
      if (o == d) continue;
      int can = -1, rank = -1;
      cudaDeviceCanAccessPeer(&can, d, o);
      cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, d, o);
      std::printf(" | peer %d: can %d rank %d", o, can, rank);
    }
    std::printf("\n");
  }
}

__global__ void fill(double* p, std::size_t n, double base) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = base + static_cast<double>(i);
}

__global__ void copy(double* to, const double* from, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    to[i] = from[i];
}

void wait_for(const std::string& path, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (access(path.c_str(), F_OK) != 0) {
    if (std::chrono::steady_clock::now() > end) {
      std::printf("timed out waiting for %s\n", path.c_str());
      std::exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// GB/s of a kernel copying `n` doubles from `from` to `to` (read + write counted).
double copy_rate(double* to, const double* from, std::size_t n) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  copy<<<1024, 256>>>(to, from, n);
  cudaEventRecord(a);
  const int reps = 10;
  for (int r = 0; r < reps; ++r) copy<<<1024, 256>>>(to, from, n);
  cudaEventRecord(b);
  if (!check(cudaEventSynchronize(b), "copy")) return 0;
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return 2.0 * n * sizeof(double) * reps / (ms * 1e-3) / 1e9;
}

int run_export(const std::string& dir) {
  describe();
  double* p = nullptr;
  if (!check(cudaMalloc(&p, kDoubles * sizeof(double)), "cudaMalloc")) return 1;
  check(cudaMemset(p, 0, kDoubles * sizeof(double)), "memset");
  cudaDeviceSynchronize();
  cudaIpcMemHandle_t h;
  if (!check(cudaIpcGetMemHandle(&h, p), "cudaIpcGetMemHandle")) return 1;
  {
    std::ofstream f(dir + "/handle.tmp", std::ios::binary);
    f.write(reinterpret_cast<const char*>(&h), sizeof h);
  }
  std::rename((dir + "/handle.tmp").c_str(), (dir + "/handle").c_str());
  wait_for(dir + "/done", 60);
  std::vector<double> back(kDoubles);
  if (!check(cudaMemcpy(back.data(), p, kDoubles * sizeof(double), cudaMemcpyDeviceToHost),
             "copy back"))
    return 1;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kDoubles; ++i) wrong += back[i] != 7.0 + static_cast<double>(i);
  std::printf("exporter: %zu of %zu values wrong\n", wrong, kDoubles);
  cudaFree(p);
  return wrong == 0 ? 0 : 2;
}

int run_import(const std::string& dir) {
  describe();
  wait_for(dir + "/handle", 60);
  cudaIpcMemHandle_t h;
  {
    std::ifstream f(dir + "/handle", std::ios::binary);
    f.read(reinterpret_cast<char*>(&h), sizeof h);
  }
  void* theirs = nullptr;
  const bool mapped = check(cudaIpcOpenMemHandle(&theirs, h, cudaIpcMemLazyEnablePeerAccess),
                            "cudaIpcOpenMemHandle");
  if (mapped) {
    cudaPointerAttributes a{};
    check(cudaPointerGetAttributes(&a, theirs), "attributes");
    std::printf("importer: mapped, memory on device %d of this process\n", a.device);
    double* local = nullptr;
    check(cudaMalloc(&local, kDoubles * sizeof(double)), "cudaMalloc local");
    fill<<<1024, 256>>>(local, kDoubles, 7.0);
    check(cudaDeviceSynchronize(), "fill");
    std::printf("importer: local copy %.0f GB/s\n",
                copy_rate(local + kDoubles / 2, local, kDoubles / 2));
    std::printf("importer: write to peer %.0f GB/s\n",
                copy_rate(static_cast<double*>(theirs), local, kDoubles));
    std::printf("importer: read from peer %.0f GB/s\n",
                copy_rate(local, static_cast<const double*>(theirs), kDoubles));
    fill<<<1024, 256>>>(static_cast<double*>(theirs), kDoubles, 7.0);
    check(cudaDeviceSynchronize(), "fill peer");
    cudaIpcCloseMemHandle(theirs);
    cudaFree(local);
  }
  std::ofstream(dir + "/done") << "done\n";
  return mapped ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s export|import DIR\n", argv[0]);
    return 64;
  }
  const std::string mode = argv[1], dir = argv[2];
  return mode == "export" ? run_export(dir) : run_import(dir);
}
