#include "step_throttle.hpp"

namespace mpsfw {

StepThrottle::StepThrottle(const DeviceBinding& device) {
  if (!device.waits_asleep || device.memory != Backend::Cuda) return;
  for (int i = 0; i < kStepsAhead; ++i) {
    marks_.push_back(detail::cuda_create_sleeping_event());
    recorded_.push_back(false);
  }
}

StepThrottle::~StepThrottle() {
  for (void* e : marks_) detail::cuda_destroy_event(e);
}

void StepThrottle::step_enqueued() {
  if (marks_.empty()) return;
  void* mark = marks_[next_];
  if (recorded_[next_]) detail::cuda_sleep_until(mark);  // the step kStepsAhead ago
  detail::cuda_record_event(mark);
  recorded_[next_] = true;
  next_ = (next_ + 1) % marks_.size();
}

}  // namespace mpsfw
