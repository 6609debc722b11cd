// A build without CUDA: every function of core's device layer whose CUDA
// version lives in a CUDA-only source (*_cuda.cpp), in one place. Queries answer as a
// machine without a GPU would; releases have nothing to release; the rest
// throws the one error of throw_built_without_cuda. Compiled instead of those
// sources (core/CMakeLists.txt). A device bound in such a build is always
// Host, so only a caller that asks for CUDA by name gets the error.
#include <string>

#include "device.hpp"
#include "memory.hpp"
#include "peer_memory.hpp"
#include "timers.hpp"

namespace mpsfw {

// Queries.
int count_visible_gpus(const CudaGate&) { return 0; }
int cuda_runtime_version() { return 0; }
std::string gpu_identity(const DeviceBinding&) { return ""; }
void PhaseTimers::range_push(const char*) {}
void PhaseTimers::range_pop() {}

// Releases: nothing of CUDA's can have been allocated or mapped (what would
// have done it throws).
void memory::detail::cuda_release(void*) noexcept {}
void memory::detail::cuda_release_pinned(void*) noexcept {}
void close_peer_memory(void*) noexcept {}

// Everything else.
void* memory::detail::cuda_allocate(std::size_t) { throw_built_without_cuda("device memory"); }
void* memory::detail::cuda_allocate_pinned(std::size_t) {
  throw_built_without_cuda("pinned host memory");
}
void memory::detail::cuda_copy(void*, const void*, std::size_t) {
  throw_built_without_cuda("copying to or from device memory");
}
void memory::detail::cuda_synchronize() { throw_built_without_cuda("waiting for the device"); }
std::int64_t memory::detail::cuda_free_bytes() { throw_built_without_cuda("device memory"); }

DeviceBinding detail::cuda_binding(int, int) { throw_built_without_cuda("binding a GPU"); }
void detail::cuda_reset_device() { throw_built_without_cuda("releasing a GPU"); }
void detail::cuda_block_on_waits() { throw_built_without_cuda("waiting for a GPU"); }
std::string detail::cuda_uuid(int) { throw_built_without_cuda("naming a GPU"); }

PeerMemoryHandle export_device_memory(const void*) {
  throw_built_without_cuda("sharing device memory with another process");
}
void* open_peer_memory(const PeerMemoryHandle&) {
  throw_built_without_cuda("mapping another process's device memory");
}

}  // namespace mpsfw
