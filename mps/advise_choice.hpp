#pragma once
// advise's decisions, apart from how its points are measured, so that they
// are tested on recorded probe tables: which points of the three arms a node
// can run, when the probe stops climbing an arm, which point it picks, and
// what that costs. The arms:
//   one per GPU   1 rank per GPU
//   time-sliced   k ranks per GPU without MPS
//   MPS           k ranks per GPU under MPS, each capped at `cap` percent
#include <string>
#include <vector>

namespace mpsfw::advise {

enum class Arm { OnePerGpu, TimeSliced, Mps };
std::string to_string(Arm arm);

struct Point {
  Arm arm = Arm::OnePerGpu;
  int ranks_per_gpu = 1;
  int cap = 0;  // MPS active thread percentage; 0: none
};
// "1/GPU", "8 time-sliced", "8 MPS 25%".
std::string describe(const Point& p);

// What the node gives the job.
struct Node {
  int gpus = 1;
  int cores = 1;             // in the job's cpuset
  double host_bytes = 0;     // host memory the job may use; 0: unknown
  double gpu_bytes = 0;      // each GPU's; 0: unknown
  int clients_per_gpu = 48;  // the MPS server's limit (mps/cap_policy.hpp)
};
// What one rank needs at a point (the workload's estimate: a strong-scaled
// rank needs less the more ranks share the input).
struct RankNeed {
  double host_bytes = 0;
  double gpu_bytes = 0;
};

// Why `p` cannot run on `node`, or "" when it can: more ranks than cores,
// host or GPU memory, more MPS clients than a GPU's server takes.
std::string skip_reason(const Point& p, const Node& node, const RankNeed& need);

// A point of the probe table: run (throughput: the workload's unit per
// second over the whole job), or not (why: skipped or failed, and how).
struct Measured {
  Point point;
  bool ran = false;
  double throughput = 0;
  std::string why;
};

// Whether the probe goes on to the next k of an arm, given that arm's points
// so far in rising k: not once the last one that ran fell below the best
// before it, nor after a point that could not run.
bool keep_climbing(const std::vector<Measured>& arm_points);

struct Choice {
  int index = -1;         // into the table; -1: no point ran
  double efficiency = 0;  // its throughput / one per GPU's (0: that did not run)
  std::string why;        // one line: why this point
};
// The fastest point that ran. Points within `tie` (relative) of it count as
// level, and of those the simplest wins: fewer ranks per GPU, then no MPS
// before MPS, then the larger cap.
Choice choose(const std::vector<Measured>& table, double tie = 0.02);

// Time to solution and its cost for `work` units (e.g. cell-updates of the
// input's run.steps) at `throughput` units/s on `gpus` GPUs.
struct Forecast {
  double seconds = 0;
  double gpu_hours = 0;
};
Forecast forecast(double work, double throughput, int gpus);

}  // namespace mpsfw::advise
