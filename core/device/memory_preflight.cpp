#include "memory_preflight.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "memory.hpp"
#include "peer_memory.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

namespace {

// A cgroup limit at least this large is none: "max" (v2), or v1's page-counter
// maximum 9223372036854771712.
constexpr std::int64_t kNoLimit = std::int64_t{1} << 62;

// The one number of a cgroup file ("max" is kNoLimit), or -1.
std::int64_t read_value(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return -1;
  if (text == "max") return kNoLimit;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  return *end == '\0' && value >= 0 ? value : -1;
}

// The number after `key` in a file of "key value" lines (meminfo, memory.stat), or -1.
std::int64_t read_key(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line, k;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::int64_t value = 0;
    if (fields >> k >> value && k == key) return value;
  }
  return -1;
}

// The memory cgroup's files: v1 where the memory controller has a hierarchy of
// its own, else v2's unified one.
struct CgroupLayout {
  std::string root;   // the hierarchy's mount
  std::string path;   // this process's cgroup in it, "/..."
  std::string limit;  // file names in each cgroup folder
  std::string usage;
  std::string cache;  // memory.stat key of page cache the kernel reclaims first
};

bool find_cgroup(const std::string& proc_root, const std::string& sys_root, CgroupLayout* out) {
  // Lines "hierarchy-id:controllers:path"; the path may hold ':' itself.
  std::ifstream in(proc_root + "/self/cgroup");
  std::string line;
  bool found = false;
  while (std::getline(in, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string id = line.substr(0, a),
                      controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    const std::string path = line.substr(b + 1);
    if (controllers.find(",memory,") != std::string::npos) {
      *out = {sys_root + "/fs/cgroup/memory", path, "memory.limit_in_bytes",
              "memory.usage_in_bytes", "total_inactive_file"};
      return true;
    }
    if (id == "0" && controllers == ",,") {
      *out = {sys_root + "/fs/cgroup", path, "memory.max", "memory.current", "inactive_file"};
      found = true;
    }
  }
  return found;
}

// The least that this process's cgroup or one of its ancestors still allows
// (a parent's limit covers its children: Slurm sets it on the job, the
// process runs in a step's task below). A folder that is not there (a
// container sees its own cgroup as the root) is skipped.
HostMemory cgroup_memory(const std::string& proc_root, const std::string& sys_root) {
  HostMemory least;
  CgroupLayout c;
  if (!find_cgroup(proc_root, sys_root, &c) || c.path.empty() || c.path[0] != '/') return least;
  for (std::string p = c.path;; p = p.substr(0, std::max<size_t>(p.find_last_of('/'), 1))) {
    const std::string folder = c.root + (p == "/" ? "" : p) + "/";
    const std::int64_t limit = read_value(folder + c.limit);
    if (limit >= 0 && limit < kNoLimit) {
      const std::int64_t cache =
          std::max<std::int64_t>(read_key(folder + "memory.stat", c.cache), 0);
      const std::int64_t used = std::max<std::int64_t>(read_value(folder + c.usage) - cache, 0);
      const std::int64_t left = std::max<std::int64_t>(limit - used, 0);
      if (least.bytes < 0 || left < least.bytes) {
        least = {left, "the job's cgroup " + c.limit + " of " + p + ": " +
                           byte_text(static_cast<double>(limit)) + ", " +
                           byte_text(static_cast<double>(used)) + " of it in use"};
      }
    }
    if (p == "/") break;
  }
  return least;
}

}  // namespace

HostMemory available_host_memory(const std::string& proc_root, const std::string& sys_root) {
  HostMemory m;
  const std::int64_t kib = read_key(proc_root + "/meminfo", "MemAvailable:");
  if (kib >= 0) m = {kib * 1024, "MemAvailable in " + proc_root + "/meminfo"};
  const HostMemory cgroup = cgroup_memory(proc_root, sys_root);
  if (cgroup.bytes >= 0 && (m.bytes < 0 || cgroup.bytes < m.bytes)) m = cgroup;
  return m;
}

MemoryShare share_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                         const HostMemory& free) {
  // The ranks that share the memory: those of this GPU, or of this node.
  MPI_Comm sharing = MPI_COMM_NULL;
  if (space == Backend::Cuda) {
    sharing = gpu_communicator(comm, gpu_identities(comm, gpu));
  } else {
    MPSFW_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &sharing));
  }
  MemoryShare share;
  share.free = free;
  MPSFW_MPI_CHECK(MPI_Allreduce(&bytes, &share.need, 1, MPI_INT64_T, MPI_SUM, sharing));
  MPSFW_MPI_CHECK(MPI_Comm_size(sharing, &share.ranks));
  MPSFW_MPI_CHECK(MPI_Comm_free(&sharing));
  return share;
}

std::string MemoryShare::text(Backend space, std::int64_t bytes, const std::string& what) const {
  return what + " need " + byte_text(static_cast<double>(bytes)) + " of " +
         (space == Backend::Cuda ? "GPU" : "host") + " memory per rank, " +
         byte_text(static_cast<double>(need)) + " for the " + std::to_string(ranks) +
         " ranks sharing it, " +
         (free.bytes < 0 ? std::string("and what is free there is not known")
                         : (fits() ? "and " : "but only ") +
                               byte_text(static_cast<double>(free.bytes)) + " is free") +
         (free.source.empty() ? "" : " (" + free.source + ")");
}

void preflight_memory(MPI_Comm comm, Backend space, const std::string& gpu, std::int64_t bytes,
                      const std::string& what) {
  const bool device = space == Backend::Cuda;
  HostMemory free;  // on a GPU: cudaMemGetInfo's free bytes, no source named
  std::string error;
  try {
    if (device) {
      free.bytes = memory::detail::cuda_free_bytes();
    } else {
      free = available_host_memory();
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  const MemoryShare share = share_memory(comm, space, gpu, bytes, free);
  // Each rank against what it sees free (its own cgroup may be the tighter
  // limit): the lowest rank that finds too little speaks for all.
  if (error.empty() && !share.fits()) {
    error = share.text(space, bytes, what) + ": use more GPUs or nodes, or a smaller problem";
  }
  agree_on_error(comm, error);  // every rank stops if any does
}

}  // namespace mpsfw
