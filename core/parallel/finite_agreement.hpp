#pragma once
// Whether every rank's values are still finite, agreed in one round through
// the memory each node's ranks share (NodeMax): the guard a time loop runs
// between diagnostics. MPI's all-reduce takes log2(ranks) rounds, each of
// which stalls on a node whose ranks outnumber its cores; this takes one, and
// waits as the process's wait policy says.
#include <mpi.h>

#include <cmath>

#include "node_max.hpp"

namespace mpsfw {

class FiniteAgreement {
 public:
  // Collective over `comm` (it sets up the node's shared memory: make it
  // before the time loop, not at its first guard).
  explicit FiniteAgreement(MPI_Comm comm) : max_(comm) {}

  // Collective: true when `mine_finite` is true on every rank.
  bool all_finite(bool mine_finite) { return !std::isnan(max_.max(mine_finite ? 0.0 : NAN)); }

 private:
  NodeMax max_;
};

}  // namespace mpsfw
