#include "launcher.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace mpsfw::mps {
namespace {

bool read_int(const EnvLookup& env, const char* name, int* out) {
  const char* v = env(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0) return false;
  *out = static_cast<int>(x);
  return true;
}

std::string text(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v ? v : "";
}

}  // namespace

int slurm_tasks_on_node(const std::string& list, int node) {
  // Entries "N" or "N(xR)", comma separated, cover consecutive nodes.
  size_t pos = 0;
  int first = 0;
  while (pos < list.size()) {
    const size_t comma = list.find(',', pos);
    const std::string item = list.substr(pos, comma == std::string::npos ? comma : comma - pos);
    const int tasks = std::atoi(item.c_str());
    int repeat = 1;
    const size_t x = item.find("(x");
    if (x != std::string::npos) repeat = std::atoi(item.c_str() + x + 2);
    if (node < first + repeat) return tasks;
    first += repeat;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return 0;
}

LauncherInfo detect_launcher(const EnvLookup& given) {
  const EnvLookup env = given ? given : [](const char* n) { return std::getenv(n); };
  LauncherInfo info;
  int rank = 0, size = 0;
  // Open MPI first: inside a Slurm allocation mpirun's ranks still carry the
  // allocation's SLURM_* variables, but not SLURM_LOCALID of a step.
  if (read_int(env, "OMPI_COMM_WORLD_LOCAL_RANK", &rank) &&
      read_int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", &size)) {
    info.source = "Open MPI";
    info.job = text(env, "OMPI_MCA_ess_base_jobid");
    if (info.job.empty()) info.job = text(env, "PMIX_NAMESPACE");
  } else if (read_int(env, "SLURM_LOCALID", &rank)) {
    info.source = "Slurm";
    int node = 0;
    read_int(env, "SLURM_NODEID", &node);
    size = slurm_tasks_on_node(text(env, "SLURM_STEP_TASKS_PER_NODE"), node);
    if (size == 0) size = slurm_tasks_on_node(text(env, "SLURM_TASKS_PER_NODE"), node);
    info.job = text(env, "SLURM_JOB_ID") + "." + text(env, "SLURM_STEP_ID");
  } else if (read_int(env, "MPI_LOCALRANKID", &rank) && read_int(env, "MPI_LOCALNRANKS", &size)) {
    info.source = "MPICH/Hydra";
    info.job = text(env, "PMI_KVSNAME");
  } else if (read_int(env, "PMI_LOCAL_RANK", &rank) && read_int(env, "PMI_LOCAL_SIZE", &size)) {
    info.source = "PMI";
    info.job = text(env, "PMI_KVSNAME");
  } else {
    return info;
  }
  if (size <= 0 || rank >= size) return LauncherInfo{};
  info.known = true;
  info.local_rank = rank;
  info.local_size = size;
  // The local ranks share a parent (orted, slurmstepd, hydra proxy): a job
  // name the leader and the others agree on without talking.
  if (info.job.empty() || info.job == ".") info.job = "ppid" + std::to_string(getppid());
  return info;
}

}  // namespace mpsfw::mps
