#pragma once
// Keeps a rank's host thread at most a few steps ahead of its GPU work, and
// asleep while it waits. A host thread that only enqueues (halos ordered on
// the GPU) otherwise runs ahead until CUDA's launch queue is full and then
// waits spinning; when a node's ranks outnumber its cores, those spinning
// threads take the cores that the ranks whose launches the GPU waits for
// need (DeviceBinding::waits_asleep decides; the input key run.cpu_wait).
#include <cstddef>
#include <vector>

#include "device.hpp"

namespace mpsfw {

class StepThrottle {
 public:
  static constexpr int kStepsAhead = 2;

  // Does nothing unless `device` runs on a GPU with waits_asleep.
  explicit StepThrottle(const DeviceBinding& device);
  ~StepThrottle();
  StepThrottle(const StepThrottle&) = delete;
  StepThrottle& operator=(const StepThrottle&) = delete;

  // Whether it throttles at all (a GPU rank that waits asleep).
  bool active() const { return !marks_.empty(); }
  // After a step's launches: marks them, and sleeps until the step
  // kStepsAhead before has finished on the GPU.
  void step_enqueued();

 private:
  std::vector<void*> marks_;  // CUDA events (blocking sync), one per step in flight
  std::vector<bool> recorded_;
  std::size_t next_ = 0;
};

namespace detail {
// The CUDA side (step_throttle_cuda.cpp; cuda_off.cpp without CUDA).
void* cuda_create_sleeping_event();
void cuda_record_event(void* event);
void cuda_sleep_until(void* event);
void cuda_destroy_event(void* event) noexcept;
}  // namespace detail

}  // namespace mpsfw
