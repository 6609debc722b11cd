#pragma once
// A thread that ends the whole job when the main thread cannot: it asks
// `due()` every `period`, and the first message it returns goes to
// MpiEnv::abort_job. For waits the main thread is stuck in for good — a
// kernel spinning on a neighbour that stalled, a blocking MPI call with a
// rank that will never answer — where no step boundary, and so no error
// path of its own, comes again. MPI_Abort from this thread: the main thread
// may be inside MPI for good.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace mpsfw {

class AbortWatch {
 public:
  // `due` runs on the watching thread: "" while all is well.
  AbortWatch(std::function<std::string()> due, std::chrono::milliseconds period);
  ~AbortWatch();  // stops the thread (the job goes on)
  AbortWatch(const AbortWatch&) = delete;
  AbortWatch& operator=(const AbortWatch&) = delete;

 private:
  void watch();

  std::function<std::string()> due_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mpsfw
