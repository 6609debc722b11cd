#pragma once
// The progress line of a time loop, printed every `every_seconds` while it
// runs: "  step 40/100 (40%), 2.0 s elapsed, about 3.0 s left". The clock
// starts at construction (just before the loop).
#include <chrono>
#include <cstdio>

namespace mpsfw {

class ProgressLine {
 public:
  // `out` nullptr (ranks other than 0, or a silent run): prints nothing.
  ProgressLine(std::FILE* out, long steps, double every_seconds)
      : out_(out),
        steps_(steps),
        every_(every_seconds),
        next_(every_seconds),
        start_(std::chrono::steady_clock::now()) {}

  // After `done` of the loop's steps.
  void update(long done) {
    if (out_ == nullptr || done <= 0) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < next_) return;
    std::fprintf(out_, "  step %ld/%ld (%.0f%%), %.1f s elapsed, about %.1f s left\n", done, steps_,
                 100.0 * static_cast<double>(done) / static_cast<double>(steps_), elapsed,
                 elapsed / static_cast<double>(done) * static_cast<double>(steps_ - done));
    std::fflush(out_);
    next_ = elapsed + every_;
  }

 private:
  std::FILE* out_;
  long steps_;
  double every_, next_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace mpsfw
