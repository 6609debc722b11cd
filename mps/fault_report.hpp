#pragma once
// When a rank dies of a GPU error under MPS, which client caused it? A fatal
// fault in one client puts its GPU's MPS server into FAULT and every other
// client on that GPU fails too (cudaErrorMpsClientTerminated and friends), so
// the rank that notices first is often a victim. The server's log names PIDs;
// the session knows which PID is which rank.
#include <map>
#include <string>

namespace mpsfw::mps {

// Lines of `server_log` that speak of a fault (fault, exception, Xid,
// terminat*, case-insensitive), and the ranks whose PIDs they mention:
// "server.log: <last such line>; it names rank 5 (pid 1234)". "" when the log
// says nothing of a fault.
std::string describe_server_fault(const std::string& server_log,
                                  const std::map<long, int>& rank_of_pid);

// True for the CUDA errors a client gets when another client faulted the
// server (by name, as cudaGetErrorName spells them).
bool is_mps_victim_error(const std::string& message);

}  // namespace mpsfw::mps
