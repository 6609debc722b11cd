#pragma once
// The largest of one double over every rank of a communicator, through memory
// the ranks of each node share: each rank writes its value and arrives. On one
// node every rank waits for them all and takes the largest itself; over
// several, the node's first rank does, agrees it with the other nodes' first
// ranks through MPI, and publishes it. On a node that is one round; MPI's
// all-reduce takes log2(ranks) rounds, each needing both ranks of a pair on a
// core, so where ranks outnumber cores a round stalls until the scheduler
// runs both (docs/performance.md). Its waits spin or sleep as the process's
// wait policy says (wait_policy.hpp). Where a node cannot have the shared
// memory (a file-size limit too small for it), every rank reduces through
// MPI instead.
#include <mpi.h>

#include <cstdint>

namespace mpsfw {

class NodeMax {
 public:
  // Collective over `comm`. `node`: the ranks of `comm` that share memory
  // with this one (MPI_COMM_NULL: split `comm` by shared memory; tests pass
  // other groupings to stand for several nodes).
  explicit NodeMax(MPI_Comm comm, MPI_Comm node = MPI_COMM_NULL);
  ~NodeMax();
  NodeMax(const NodeMax&) = delete;
  NodeMax& operator=(const NodeMax&) = delete;

  // Collective over `comm`: the largest `value` of all ranks; NaN if any
  // rank's is NaN (a check must see it).
  double max(double value);

 private:
  struct Shared;
  // Rank `node_rank`'s value at call `call` (two sets, used in turn).
  double* slot(std::uint64_t call, int node_rank) const;
  // The largest of the node's values at call `call` (NaN if any is).
  double largest_of(std::uint64_t call) const;

  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Comm whole_ = MPI_COMM_NULL;    // all of `comm` where a node cannot share memory
  MPI_Comm leaders_ = MPI_COMM_NULL;  // the nodes' first ranks; null elsewhere
  int leaders_size_ = 1;              // nodes (known on every rank)
  MPI_Win window_ = MPI_WIN_NULL;
  Shared* shared_ = nullptr;
  double* values_ = nullptr;  // two padded slots per node rank
  int node_rank_ = 0, node_size_ = 1;
  std::uint64_t calls_ = 0;
};

}  // namespace mpsfw
