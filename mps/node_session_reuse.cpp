// Reusing MPS daemons that already answer: an mpsctl session
// (MPSFW_MPS_SESSION) or a site's daemon (CUDA_MPS_PIPE_DIRECTORY from Slurm's
// gres/mps or a prolog). Reused daemons are never stopped by the job, and
// their default cap bounds what the job's clients can get.
#include <cstdlib>
#include <string>
#include <vector>

#include "cap_policy.hpp"
#include "control.hpp"
#include "node_session.hpp"

namespace mpsfw::mps {

bool NodeSession::reuse_mpsctl_session(int cap) {
  const char* dir = std::getenv("MPSFW_MPS_SESSION");
  if (dir == nullptr || *dir == '\0') return false;
  SessionRecord record;
  if (!read_ready(dir, &record) || static_cast<size_t>(my_gpu_) >= record.gpus.size()) {
    give_up(std::string("MPSFW_MPS_SESSION=") + dir + " holds no ready session for GPU " +
            std::to_string(my_gpu_) + " (start one with mpsctl start)");
    return true;
  }
  const SessionGpu& mine = record.gpus[static_cast<size_t>(my_gpu_)];
  if (!ControlClient({mine.pipe_dir, mine.log_dir}, config_.timeout_seconds).answers()) {
    give_up("the daemon of MPSFW_MPS_SESSION=" + std::string(dir) + " for GPU " + mine.uuid +
            " does not answer");
    return true;
  }
  gpus_ = record.gpus;
  status_.state = MpsState::Reused;
  status_.reason = std::string("daemons of the mpsctl session ") + dir;
  // The session's default cap was set for mpsctl's guess of the rank count.
  // A client's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE can only lower it, never
  // raise it (docs/mps.md).
  export_environment(mine, obey_daemon_cap(mine.cap, cap));
  return true;
}

int NodeSession::obey_daemon_cap(int daemon_cap, int wanted) {
  if (daemon_cap <= 0 || daemon_cap >= wanted) return wanted;
  status_.reason += "; the reused daemon's default cap " + std::to_string(daemon_cap) +
                    "% is below this job's " + std::to_string(wanted) +
                    "% and a client cannot exceed it: ranks get " + std::to_string(daemon_cap) +
                    "%";
  return daemon_cap;
}

bool NodeSession::reuse_site_daemon(const std::vector<GpuInfo>& gpus, int cap) {
  const char* site_pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  if (site_pipe == nullptr || *site_pipe == '\0') return false;
  const char* site_log = std::getenv("CUDA_MPS_LOG_DIRECTORY");
  const ControlClient site({site_pipe, site_log ? site_log : ""}, config_.timeout_seconds);
  if (!site.answers()) return false;
  status_.state = MpsState::Reused;
  status_.reason = "a daemon already answered in CUDA_MPS_PIPE_DIRECTORY=" + std::string(site_pipe);
  status_.pipe_dir = site_pipe;
  status_.gpu_uuid = gpus[static_cast<size_t>(my_gpu_)].uuid;
  // A cap the site set (Slurm --gres=mps:N) wins over our default; one that
  // is not a percentage is an error of the job's environment.
  const char* site_cap = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  status_.cap = cap;
  if (site_cap != nullptr && *site_cap != '\0' && config_.active_thread_percentage == 0) {
    const int site_percentage =
        parse_active_thread_percentage(site_cap, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    if (site_percentage > 0) status_.cap = site_percentage;
  }
  const int daemon_cap = site.default_thread_percentage();
  if (daemon_cap > 0) status_.cap = obey_daemon_cap(daemon_cap, status_.cap);
  setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(status_.cap).c_str(), 1);
  SessionGpu g;
  g.index = my_gpu_;
  g.uuid = status_.gpu_uuid;
  g.pipe_dir = site_pipe;
  g.log_dir = site_log ? site_log : "";
  g.daemon_pid = site.daemon_pid();
  g.cap = status_.cap;
  // One daemon serves every GPU here: the same entry for each.
  gpus_.assign(gpus.size(), g);
  return true;
}

}  // namespace mpsfw::mps
