#pragma once
// Named wall-clock timers for the phases of a time loop, reduced over ranks.
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace mpsfw {

struct PhaseStats {
  std::string name;
  double min = 0, avg = 0, max = 0;  // seconds, over ranks
  std::vector<double> per_rank;      // seconds, in rank order
};

class PhaseTimers {
 public:
  // Phases are reported in the order they were first timed.
  void add(const std::string& phase, double seconds);
  double seconds(const std::string& phase) const;

  // Collective over `comm`: each phase any rank timed, with its least,
  // mean and most seconds over the ranks and each rank's (0 s where a rank
  // never timed it).
  std::vector<PhaseStats> reduce(MPI_Comm comm) const;

  // A timeline from now on: each Scope's phase, start and end (seconds since
  // `origin`), the first `limit` of them kept, the rest only counted.
  struct Span {
    int phase;  // into names()
    double start, end;
  };
  void start_timeline(std::chrono::steady_clock::time_point origin, std::size_t limit);
  const std::vector<Span>& timeline() const { return spans_; }
  long spans_dropped() const { return dropped_; }
  const std::vector<std::string>& names() const { return names_; }
  std::chrono::steady_clock::time_point origin() const { return origin_; }

  // Adds the time from construction to destruction to one phase, and marks
  // it as an NVTX range of the same name (CUDA builds), so an Nsight Systems
  // timeline reads like the summary table.
  class Scope {
   public:
    Scope(PhaseTimers& timers, const char* phase)
        : timers_(timers), phase_(phase), start_(std::chrono::steady_clock::now()) {
      range_push(phase);
    }
    ~Scope() {
      timers_.add(phase_, start_, std::chrono::steady_clock::now());
      range_pop();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimers& timers_;
    const char* phase_;
    std::chrono::steady_clock::time_point start_;
  };

 private:
  static void range_push(const char* name);
  static void range_pop();
  size_t index_of(const std::string& phase);  // a new phase is added
  void add(const char* phase, std::chrono::steady_clock::time_point start,
           std::chrono::steady_clock::time_point end);

  std::vector<std::string> names_;
  std::vector<double> seconds_;
  bool recording_ = false;
  std::chrono::steady_clock::time_point origin_;
  std::size_t limit_ = 0;
  std::vector<Span> spans_;
  long dropped_ = 0;
};

}  // namespace mpsfw
