#include "abort_watch.hpp"

#include <utility>

#include "mpi_env.hpp"

namespace mpsfw {

AbortWatch::AbortWatch(std::function<std::string()> due, std::chrono::milliseconds period)
    : due_(std::move(due)), period_(period), thread_([this] { watch(); }) {}

AbortWatch::~AbortWatch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void AbortWatch::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    const std::string message = due_();
    if (!message.empty()) MpiEnv::abort_job(message);
  }
}

}  // namespace mpsfw
