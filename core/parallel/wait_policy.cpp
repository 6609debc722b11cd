#include "wait_policy.hpp"

#include <atomic>

namespace mpsfw {
namespace {

std::atomic<WaitPolicy> policy{WaitPolicy::Spin};

}  // namespace

WaitPolicy wait_policy() { return policy.load(std::memory_order_relaxed); }

void set_wait_policy(WaitPolicy p) { policy.store(p, std::memory_order_relaxed); }

}  // namespace mpsfw
