// The NVTX ranges of PhaseTimers::Scope (compiled only with CUDA). Without a
// profiler attached NVTX calls return at once.
#include <nvtx3/nvToolsExt.h>

#include "timers.hpp"

namespace mpsfw {

void PhaseTimers::range_push(const char* name) { nvtxRangePushA(name); }
void PhaseTimers::range_pop() { nvtxRangePop(); }

}  // namespace mpsfw
