#pragma once
// The pause between polls of a host wait where ranks may outnumber cores:
// the first polls yield the core, later ones sleep 20 µs, so that a rank
// that waits long leaves its core to the rank it waits for.
#include <chrono>
#include <thread>

namespace mpsfw {

class PollBackoff {
 public:
  // `yields`: polls that yield before the sleeping ones.
  explicit PollBackoff(int yields) : yields_(yields) {}
  void pause() {
    if (polls_ < yields_) {
      ++polls_;
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

 private:
  int yields_;
  int polls_ = 0;
};

}  // namespace mpsfw
