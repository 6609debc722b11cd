#pragma once
// Facts about a GPU that only CUDA can tell (SM count, memory, compute mode),
// asked in a short-lived child process so that the caller itself does not
// initialise CUDA before its MPS daemon is up.
#include <cstdint>
#include <string>
#include <vector>

namespace mpsfw::mps {

struct GpuFacts {
  bool known = false;
  int sms = 0;
  std::int64_t memory_bytes = 0;
  int compute_mode = -1;  // cudaComputeMode: 0 default, 2 prohibited, 3 exclusive process
  // Which of the `others` passed to probe_gpu it reaches directly (bit i:
  // others[i]; cudaDeviceCanAccessPeer).
  std::uint64_t peers = 0;
};

// Facts about GPU `uuid`, and whether it reaches each of `others` (at most 64)
// as a peer.
GpuFacts probe_gpu(const std::string& uuid, const std::vector<std::string>& others = {});

}  // namespace mpsfw::mps
