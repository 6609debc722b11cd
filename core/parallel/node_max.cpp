#include "node_max.hpp"

#include <sys/resource.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <thread>

#include "mpi_check.hpp"
#include "wait_policy.hpp"
#include <mpsfw/core/base/poll_backoff.hpp>

namespace mpsfw {
namespace {

// A node rank's value sits on a cache line of its own: no rank's write
// invalidates the line another is writing.
constexpr int kSlotDoubles = 8;

// Polls before a sleeping wait sleeps between polls.
constexpr int kYields = 100;

// The largest of a and b; NaN if either is.
double larger(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return NAN;
  return a > b ? a : b;
}

// Polls done() until true: spinning (a yield now and then, should the node
// have fewer cores than it seemed), or with `sleep` backing off.
template <class Done>
void wait_until(const Done& done, bool sleep) {
  PollBackoff backoff(kYields);
  for (int polls = 0; !done(); ++polls) {
    if (sleep) {
      backoff.pause();
    } else if (polls % 1024 == 1023) {
      std::this_thread::yield();
    }
  }
}

// The largest `value` over `comm` through MPI; NaN if any is (MPI_MAX need
// not keep a NaN: a flag for it travels beside the value).
double max_through_mpi(double value, MPI_Comm comm, bool sleep) {
  const double mine[2] = {std::isnan(value) ? 1.0 : 0.0, std::isnan(value) ? 0.0 : value};
  double all[2] = {0, 0};
  MPI_Request request;
  MPSFW_MPI_CHECK(MPI_Iallreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm, &request));
  wait_until(
      [&] {
        int done = 0;
        MPSFW_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      sleep);
  return all[0] > 0 ? NAN : all[1];
}

}  // namespace

// The node's words, in rank 0's share of the window; the value slots follow.
struct NodeMax::Shared {
  alignas(64) std::uint64_t published;  // calls whose result is out
  alignas(64) std::uint64_t arrived;    // arrivals over all calls
  alignas(64) double result;
};

// Whether this process may create a file of `bytes` (a shared window is one):
// a file-size limit below it fails the window's creation on one rank while
// the node's others wait in it for ever.
bool can_back_window(MPI_Aint bytes) {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) return true;
  const MPI_Aint margin = 1 << 20;  // the MPI library's own bookkeeping in the file
  return limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= static_cast<rlim_t>(bytes + margin);
}

NodeMax::NodeMax(MPI_Comm comm, MPI_Comm node) {
  if (node == MPI_COMM_NULL) {
    MPSFW_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_));
  } else {
    MPSFW_MPI_CHECK(MPI_Comm_dup(node, &node_));
  }
  MPSFW_MPI_CHECK(MPI_Comm_rank(node_, &node_rank_));
  MPSFW_MPI_CHECK(MPI_Comm_size(node_, &node_size_));
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &me));
  MPSFW_MPI_CHECK(MPI_Comm_split(comm, node_rank_ == 0 ? 0 : MPI_UNDEFINED, me, &leaders_));
  if (leaders_ != MPI_COMM_NULL) MPSFW_MPI_CHECK(MPI_Comm_size(leaders_, &leaders_size_));
  // Whether the node's ranks are all of `comm`: then every rank takes the
  // largest itself.
  MPSFW_MPI_CHECK(MPI_Bcast(&leaders_size_, 1, MPI_INT, 0, node_));
  // Two sets of slots: a rank's next call writes the other set while the
  // slowest rank may still read this one.
  const MPI_Aint bytes =
      node_rank_ == 0
          ? static_cast<MPI_Aint>(sizeof(Shared) + sizeof(double) * kSlotDoubles * 2 * node_size_)
          : 0;
  // Every rank of `comm` agrees first whether every node can have its window;
  // where one cannot, all of them reduce through MPI instead.
  int can = can_back_window(bytes) ? 1 : 0, all_can = 0;
  MPSFW_MPI_CHECK(MPI_Allreduce(&can, &all_can, 1, MPI_INT, MPI_MIN, comm));
  if (all_can == 0) {
    MPSFW_MPI_CHECK(MPI_Comm_dup(comm, &whole_));
    return;
  }
  void* mine = nullptr;
  MPSFW_MPI_CHECK(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node_, &mine, &window_));
  MPI_Aint size = 0;
  int unit = 0;
  void* base = nullptr;
  MPSFW_MPI_CHECK(MPI_Win_shared_query(window_, 0, &size, &unit, &base));
  shared_ = static_cast<Shared*>(base);
  values_ = reinterpret_cast<double*>(static_cast<char*>(base) + sizeof(Shared));
  if (node_rank_ == 0) std::memset(base, 0, static_cast<std::size_t>(bytes));
  MPSFW_MPI_CHECK(MPI_Barrier(node_));  // zero before anyone arrives
}

NodeMax::~NodeMax() {
  // Freeing the window waits for the node's other ranks: not while an error
  // unwinds this one (the job is ending; the others may never come).
  if (std::uncaught_exceptions() > 0) return;
  if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
  if (whole_ != MPI_COMM_NULL) MPI_Comm_free(&whole_);
  if (leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

double* NodeMax::slot(std::uint64_t call, int node_rank) const {
  return values_ + ((call % 2) * static_cast<std::uint64_t>(node_size_) +
                    static_cast<std::uint64_t>(node_rank)) *
                       kSlotDoubles;
}

double NodeMax::largest_of(std::uint64_t call) const {
  double largest = *slot(call, 0);
  for (int r = 1; r < node_size_; ++r) largest = larger(largest, *slot(call, r));
  return largest;
}

double NodeMax::max(double value) {
  if (whole_ != MPI_COMM_NULL) return max_through_mpi(value, whole_, waits_sleep());
  const std::uint64_t call = ++calls_;
  const bool sleep = waits_sleep();
  *slot(call, node_rank_) = value;
  // The value before the arrival, for the ranks that read it.
  __atomic_add_fetch(&shared_->arrived, 1, __ATOMIC_ACQ_REL);
  // The count grows by the node's size a call and never starts again.
  const auto everyone = static_cast<std::uint64_t>(node_size_);
  if (leaders_size_ == 1) {
    // One node: each rank waits for every arrival of this call and takes the
    // largest itself, so no rank waits for another to wake and publish it. A
    // rank cannot write this call's set again before every rank has arrived
    // at the next call, after its reading here.
    wait_until(
        [&] { return __atomic_load_n(&shared_->arrived, __ATOMIC_ACQUIRE) >= call * everyone; },
        sleep);
    return largest_of(call);
  }
  if (node_rank_ != 0) {
    wait_until([&] { return __atomic_load_n(&shared_->published, __ATOMIC_ACQUIRE) >= call; },
               sleep);
    return shared_->result;
  }
  wait_until(
      [&] { return __atomic_load_n(&shared_->arrived, __ATOMIC_ACQUIRE) >= call * everyone; },
      sleep);
  double largest = largest_of(call);
  if (leaders_size_ > 1) largest = max_through_mpi(largest, leaders_, sleep);
  shared_->result = largest;
  __atomic_store_n(&shared_->published, call, __ATOMIC_RELEASE);
  return largest;
}

}  // namespace mpsfw
