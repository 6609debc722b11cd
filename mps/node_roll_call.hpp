#pragma once
// The ranks of one node of one job, known to each other through a folder
// instead of MPI (mpsfw-run wraps programs that call MPI_Init themselves):
// each rank says it is here, and when its program has ended how it ended;
// the node's first rank waits for all of them before it lets MPS go, and the
// folder goes with the last of them however they end.
//   <root>/mpsfw-run-<job>-<host>/rank<k>.pid    the wrapper's PID
//   <root>/mpsfw-run-<job>-<host>/rank<k>.done   "exit <code> client <yes|no|unknown> pid <pid>"
#include <functional>
#include <string>
#include <vector>

namespace mpsfw::mps {

inline constexpr int kKilled = -1;        // its wrapper died before saying
inline constexpr int kStillRunning = -2;  // not ended when the wait gave up

struct RankEnd {
  int local_rank = 0;
  long pid = -1;       // the program's
  int exit_code = -1;  // kKilled or kStillRunning when it has not said
  std::string client;  // "yes", "no", "unknown", or "" when it never said
};

class NodeRollCall {
 public:
  // The folder of job `job` under `root` (created if absent, mode 0700).
  NodeRollCall(const std::string& root, const std::string& job, int local_rank, int local_size);
  const std::string& dir() const { return dir_; }
  // This wrapper is here (rank<k>.pid).
  void arrive();
  // This rank's program has ended.
  void depart(const RankEnd& end);
  // Every local rank's end, waiting while a rank's wrapper lives without
  // having said; a rank that has not arrived within `arrive_seconds`, or
  // when the launcher that started this wrapper has gone (it starts no rank
  // any more), or whose wrapper died without saying, counts as kKilled. `give_up`, asked
  // between looks, ends the wait: the ranks that have not said count as
  // kStillRunning (a job whose ranks wait forever on a dead one).
  std::vector<RankEnd> wait_for_all(double arrive_seconds,
                                    const std::function<bool()>& give_up = nullptr) const;
  // Removes the folder and the files it made (the node's first rank, last).
  void remove() const;
  // The node's first rank, after arrive(): a process of its own session
  // (which a launcher killing the job's processes does not reach) waits for
  // this one to end, however it ends, then for every rank's wrapper, and
  // removes the folder if it is still there.
  void remove_when_all_gone(double arrive_seconds) const;

 private:
  std::string file(int rank, const char* what) const;
  std::string dir_;
  int local_rank_, local_size_;
  long launcher_;  // this wrapper's parent: mpirun, orted, slurmstepd
};

}  // namespace mpsfw::mps
