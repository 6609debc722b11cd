// A build without CUDA: the functions of mps whose CUDA version lives in a
// CUDA-only source (core/base/backend.hpp says how builds without CUDA work).
#include "gpu_probe.hpp"

namespace mpsfw::mps {

// Nothing is known about a GPU without CUDA to ask.
GpuFacts probe_gpu(const std::string&, const std::vector<std::string>&) { return {}; }

}  // namespace mpsfw::mps
