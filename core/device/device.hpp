#pragma once
// Binds this rank to a compute device: a GPU with the CUDA backend (the node's
// ranks in blocks, gpu_of_local_rank), or the host backend where there is no
// GPU (or none was asked).
#include <string>
#include <vector>

#include <mpsfw/core/base/backend.hpp>

namespace mpsfw {

namespace mps {
class NodeSession;
}

// Proof that CUDA may be initialised now. A process that initialises CUDA
// before the node's MPS daemon is up runs WITHOUT MPS, silently; so every
// function here that may touch CUDA takes a gate, and only a ready
// mps::NodeSession hands gates out. Programs that never use MPS (tests,
// benchmarks) say so with CudaGate::without_mps().
class CudaGate {
 public:
  static CudaGate without_mps() { return CudaGate(); }

 private:
  friend class mps::NodeSession;
  CudaGate() = default;
};

struct DeviceBinding {
  Backend backend = Backend::Host;  // whose kernels run: Host, Cuda or Kokkos
  Backend memory = Backend::Host;   // where fields live: Host or Cuda
  int gpu = -1;                     // CUDA device ordinal, -1 on the host backend
  std::string name;                 // "NVIDIA H200" or "host (N OpenMP threads)"
  int multiprocessors = 0;          // SMs this process may use (MPS caps lower it)
  int visible_gpus = 0;
  int mps_enabled = -1;  // cudaDevAttrMpsEnabled: 1 client of an MPS server, 0 not, -1 host
  // UUIDs of the node's other GPUs whose memory this GPU reaches directly
  // (cudaDeviceCanAccessPeer; under mpsfw's MPS, where a rank sees only its
  // GPU, from the session's probe). Empty on the host backend.
  std::vector<std::string> peer_gpus;
  // The node's ranks outnumber the cores they may run on (a host thread
  // that spins while it waits takes a core another rank needs), and "" or
  // the report's warning about it.
  bool crowded = false;
  std::string crowding;
};

// The GPU of local rank `local_rank` of `local_size`: consecutive ranks share
// a GPU (the first local_size % gpus GPUs take one rank more), so neighbours
// in the rank grid mostly meet on one GPU. The MPS session and bind_device
// both bind by it.
int gpu_of_local_rank(int local_rank, int local_size, int gpus);
// How many of `local_size` ranks gpu_of_local_rank puts on `gpu`.
int local_ranks_on_gpu(int gpu, int local_size, int gpus);

// Visible CUDA devices; 0 when the build has no CUDA, the machine no driver, or
// no GPU (cudaErrorInsufficientDriver, cudaErrorStubLibrary, cudaErrorNoDevice).
int count_visible_gpus(const CudaGate& gate);
// The CUDA runtime this build was compiled against (CUDART_VERSION, e.g.
// 13000 for 13.0); 0 in a build without CUDA.
int cuda_runtime_version();

// `requested` Auto takes CUDA where a GPU is visible (the one place Auto is
// resolved). Cuda without a GPU, or in a build without CUDA, throws. Kokkos
// binds like Cuda or Host, as the Kokkos installation's default execution
// space runs, then starts Kokkos on that device (core/device/kokkos_runtime.hpp).
// On the host backend, each of the node's `node_size` ranks gets an equal share
// of the cores as OpenMP threads unless OMP_NUM_THREADS says otherwise.
// `kokkos_options` (the command line's --kokkos-*) go to Kokkos::initialize;
// given for another backend, or without Kokkos, they throw InputError
// (check_kokkos_options, core/device/kokkos_options.hpp).
DeviceBinding bind_device(Backend requested, int node_rank, int node_size, const CudaGate& gate,
                          const std::vector<std::string>& kokkos_options = {});

// Finalises Kokkos (the Kokkos backend), then destroys this process's CUDA
// context (cudaDeviceReset): an MPS client leaves its server, so the daemon can
// be stopped cleanly. Call after all device memory is freed. No-op on the host
// backend.
// Sets the process's wait policy (core/parallel/wait_policy.hpp) for
// `binding`: sleeping where its node is crowded and its memory is a GPU's,
// and then the CUDA runtime's own waits block too instead of spinning
// (cudaDeviceScheduleBlockingSync; a driver that refuses the flag on a live
// context keeps spinning there, the framework's own waits sleep either way).
// Spinning otherwise.
void apply_wait_policy(const DeviceBinding& binding);

void release_device(const DeviceBinding& binding);
// "cuda:0 NVIDIA H200" or the host's description, for reports.
std::string device_text(const DeviceBinding& binding);

// Whether MPI is given device pointers (run.cuda_aware_mpi): "yes", "no", or
// "auto": the site's default MPSFW_CUDA_AWARE_MPI=0|1 where it is set, else
// what Open MPI says at run time (MPIX_Query_cuda_support).
bool mpi_is_cuda_aware(const std::string& choice = "auto");

namespace detail {
// The CUDA runtime's side (device_cuda.cpp; cuda_off.cpp without CUDA): makes
// `gpu` this process's device and describes it; destroys this process's context.
DeviceBinding cuda_binding(int gpu, int visible_gpus);
void cuda_reset_device();
void cuda_block_on_waits();
// Device `device`'s UUID as nvidia-smi writes it ("GPU-8f6e...-...").
std::string cuda_uuid(int device);
}  // namespace detail

}  // namespace mpsfw
