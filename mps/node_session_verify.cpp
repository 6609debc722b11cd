// Verification (did every local rank really become a client of its GPU's
// MPS server, with the SMs its cap allows?) and, when a rank fails, what the
// server's log says about a GPU fault and which rank caused it.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cap_policy.hpp"
#include "control.hpp"
#include "fault_report.hpp"
#include "node_session.hpp"
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw::mps {

void NodeSession::verify(MPI_Comm node, const DeviceBinding& device) {
  const auto start = std::chrono::steady_clock::now();
  verify_clients(node, device);
  add_seconds(MpsStep::Verify, seconds_since(start));
}

void NodeSession::verify_clients(MPI_Comm node, const DeviceBinding& device) {
  int rank = 0, size = 1;
  MPSFW_MPI_CHECK(MPI_Comm_rank(node, &rank));
  MPSFW_MPI_CHECK(MPI_Comm_size(node, &size));
  status_.sms = device.multiprocessors;
  const bool managed = status_.state == MpsState::Started || status_.state == MpsState::Reused;
  // What each rank knows of itself: pid, GPU, MPS attribute, SMs, cap, world rank.
  constexpr int kFields = 6;
  int world_rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  long mine[kFields] = {static_cast<long>(getpid()), my_gpu_,     device.mps_enabled,
                        device.multiprocessors,      status_.cap, world_rank};
  std::vector<long> all(kFields * static_cast<size_t>(size));
  MPSFW_MPI_CHECK(MPI_Allgather(mine, kFields, MPI_LONG, all.data(), kFields, MPI_LONG, node));
  // Every rank keeps the node's PIDs: a dying rank names the faulting one.
  for (int r = 0; r < size; ++r) {
    rank_of_pid_[all[kFields * static_cast<size_t>(r)]] =
        static_cast<int>(all[kFields * static_cast<size_t>(r) + 5]);
  }
  std::vector<int> ok(static_cast<size_t>(size), 0);
  std::string reasons;
  if (rank == 0 && managed) {
    std::vector<std::vector<long>> clients(gpus_.size());
    for (size_t g = 0; g < gpus_.size(); ++g) {
      const ControlClient control({gpus_[g].pipe_dir, gpus_[g].log_dir}, config_.timeout_seconds);
      for (long server : control.server_pids()) {
        if (std::find(status_.server_pids.begin(), status_.server_pids.end(), server) ==
            status_.server_pids.end()) {
          status_.server_pids.push_back(server);
        }
        for (long c : control.client_pids(server)) clients[g].push_back(c);
      }
    }
    for (int r = 0; r < size; ++r) {
      const long* x = &all[kFields * static_cast<size_t>(r)];
      const size_t g = static_cast<size_t>(x[1]) < gpus_.size() ? static_cast<size_t>(x[1]) : 0;
      const bool client = std::find(clients[g].begin(), clients[g].end(), x[0]) != clients[g].end();
      // A rank must be a client of its own GPU's server only (fault isolation).
      std::string elsewhere;
      for (size_t o = 0; o < gpus_.size(); ++o) {
        if (o != g && std::find(clients[o].begin(), clients[o].end(), x[0]) != clients[o].end()) {
          elsewhere += ", ALSO in the client list of GPU " + gpus_[o].uuid;
        }
      }
      const int want =
          gpus_[g].total_sms > 0 ? expected_sms(gpus_[g].total_sms, static_cast<int>(x[4])) : -1;
      const bool sms_ok = want < 0 || std::abs(static_cast<int>(x[3]) - want) <= 2;
      ok[static_cast<size_t>(r)] = x[2] == 1 && client && elsewhere.empty() && sms_ok;
      std::ostringstream line;
      line << "local rank " << r << " (pid " << x[0] << "): GPU " << gpus_[g].uuid
           << (gpus_[g].mig.empty() ? "" : " (" + gpus_[g].mig + ")") << ", cap " << x[4] << "%, "
           << (gpus_[g].pinned.empty() ? "" : "pinned limit " + gpus_[g].pinned + ", ") << x[3]
           << " SMs" << (want > 0 ? " (expected " + std::to_string(want) + ")" : "")
           << ", MPS attribute " << x[2] << ", " << (client ? "in" : "NOT in")
           << " the server's client list" << elsewhere;
      status_.per_rank.push_back(line.str());
      status_.rank_records.push_back({r, x[0], gpus_[g].uuid, gpus_[g].mig, static_cast<int>(x[4]),
                                      gpus_[g].pinned, static_cast<int>(x[3]), want > 0 ? want : 0,
                                      static_cast<int>(x[2]), client && elsewhere.empty(),
                                      ok[static_cast<size_t>(r)] == 1});
      if (!ok[static_cast<size_t>(r)]) reasons += (reasons.empty() ? "" : "; ") + line.str();
    }
  }
  MPSFW_MPI_CHECK(MPI_Bcast(ok.data(), size, MPI_INT, 0, node));
  int verified = 0;
  for (int v : ok) verified += v;
  status_.verified = managed ? verified : 0;
  status_.expected = managed ? size : 0;
  status_.active = managed && ok[static_cast<size_t>(rank)] == 1;
  if (!managed) return;
  if (verified == size) {
    status_.state = status_.state == MpsState::Reused ? MpsState::ActiveReused : MpsState::Active;
    return;
  }
  std::string message = std::to_string(size - verified) + " of " + std::to_string(size) +
                        " local ranks are not verified MPS clients: " + reasons;
  if (config_.enable == Enable::On)
    agree_on_error(node,
                   rank == 0 ? "MPS (mps.enable = on): " + message : "MPS verification failed");
  status_.state = MpsState::NotActive;
  status_.reason = message;
}

std::string NodeSession::fault_report(const std::string& error) const {
  if (rank_of_pid_.empty() || static_cast<size_t>(my_gpu_) >= gpus_.size()) return "";
  const std::string path = gpus_[static_cast<size_t>(my_gpu_)].log_dir + "/server.log";
  const auto read_fault = [&](ServerFault* fault) {
    std::ifstream log(path);
    std::stringstream text;
    text << log.rdbuf();
    return find_server_fault(text.str(), fault);
  };
  ServerFault fault;
  bool found = read_fault(&fault);
  // A client can see its error before the server has logged it: after a CUDA
  // error, give the server a moment (this path ends the job anyway).
  const auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!found && error.find("CUDA") != std::string::npos &&
         std::chrono::steady_clock::now() < give_up_at) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    found = read_fault(&fault);
  }
  const bool victim = is_mps_victim_error(error);
  if (!found && !victim) return "";
  const long me = static_cast<long>(getpid());
  const auto has = [me](const std::vector<long>& pids) {
    return std::find(pids.begin(), pids.end(), me) != pids.end();
  };
  std::string out = " [MPS: ";
  if (found && has(fault.faulting)) {
    out += "the server's log names this rank as the faulting client; ";
  } else if ((found && has(fault.torn_down)) || victim) {
    out +=
        "this rank failed because its GPU's MPS server tore down its clients after another one's "
        "fault; ";
  }
  out += found ? describe_server_fault(fault, rank_of_pid_) : "no fault in " + path;
  return out + "]";
}

}  // namespace mpsfw::mps
