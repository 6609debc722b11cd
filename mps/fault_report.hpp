#pragma once
// When a rank dies of a GPU error under MPS, which client caused it? A fatal
// fault in one client makes its GPU's MPS server tear down every client on
// that GPU, and those get the same sticky error (cudaErrorIllegalAddress on an
// H200 with CUDA 13), so the rank that reports first is often a victim. The
// server's log names PIDs; the session knows which PID is which rank.
//
// What the CUDA 13 server writes (seen on an H200, driver 580):
//   Client {PID: 1349, Context: 1} encountered a fatal GPU error.
//   Client {PID: 1351, Context ID: 1} on device 0 to be torn down
//   All clients belonging to error trigging process 1351 will be torn down
#include <map>
#include <string>
#include <vector>

namespace mpsfw::mps {

struct ServerFault {
  std::string line;             // the server's words about the fault
  std::vector<long> faulting;   // PIDs the server says raised it
  std::vector<long> torn_down;  // PIDs of the clients it tore down
};

// False when `server_log` speaks of no fault. The culprit is the client that
// "encountered a fatal" error; older or other wordings (FAULT state, Xid,
// exception) still give `line`, with the PIDs that line names.
bool find_server_fault(const std::string& server_log, ServerFault* fault);

// One sentence for an abort message: the server's line, the faulting rank(s),
// the ranks torn down with them and the node's other ranks (not torn down:
// on other GPUs), mapped through `rank_of_pid` (the node's clients).
std::string describe_server_fault(const ServerFault& fault, const std::map<long, int>& rank_of_pid);

// True for the CUDA errors a client gets when the server itself failed
// (by name, as cudaGetErrorName spells them).
bool is_mps_victim_error(const std::string& message);

}  // namespace mpsfw::mps
