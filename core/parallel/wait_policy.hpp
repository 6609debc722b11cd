#pragma once
// How this process's host thread waits — for its GPU, for the other ranks of
// its node: spinning (the shortest wake-up) or sleeping (the core is given
// away). One policy for the process and every workload, decided when the
// runtime binds the device (apply_wait_policy, core/device/device.hpp):
// sleeping where the node's ranks outnumber the cores they may run on and the
// fields live on a GPU, since a spinning rank then holds a core that a rank
// it waits for needs. Host ranks keep spinning: on a crowded node they ran
// slower with sleeping waits (docs/performance.md). Every wait of the
// framework reads it when it waits.
namespace mpsfw {

enum class WaitPolicy { Spin, Sleep };

WaitPolicy wait_policy();
void set_wait_policy(WaitPolicy policy);
inline bool waits_sleep() { return wait_policy() == WaitPolicy::Sleep; }

}  // namespace mpsfw
