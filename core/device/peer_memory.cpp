#include "peer_memory.hpp"

#include <algorithm>

#include "memory.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/text_fields.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>

namespace mpsfw {

std::vector<std::string> gpu_identities(MPI_Comm comm, const std::string& mine) {
  return all_gather_strings(comm, mine);
}

DeviceLocation device_location(const DeviceBinding& device) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPSFW_MPI_CHECK(MPI_Get_processor_name(name, &length));
  return {std::string(name, static_cast<size_t>(length)), gpu_identity(device), device.peer_gpus};
}

std::vector<DeviceLocation> device_locations(MPI_Comm comm, const DeviceLocation& mine) {
  // One line per rank: host, GPU and peers, tab-separated (none holds a tab).
  std::string text = mine.host + "\t" + mine.gpu;
  for (const std::string& p : mine.peers) text += "\t" + p;
  std::vector<DeviceLocation> all;
  for (const std::string& line : all_gather_strings(comm, text)) {
    DeviceLocation where;
    const std::vector<std::string> fields = split_fields(line, '\t');
    where.host = fields[0];
    where.gpu = fields.size() > 1 ? fields[1] : "";
    where.peers.assign(fields.begin() + std::min<size_t>(2, fields.size()), fields.end());
    all.push_back(std::move(where));
  }
  return all;
}

MPI_Comm gpu_communicator(MPI_Comm comm, const std::vector<std::string>& gpus) {
  int me = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &me));
  const std::string& mine = gpus[static_cast<size_t>(me)];
  // One communicator per GPU, named by its lowest rank.
  const int color =
      mine.empty() ? MPI_UNDEFINED
                   : static_cast<int>(std::find(gpus.begin(), gpus.end(), mine) - gpus.begin());
  MPI_Comm out = MPI_COMM_NULL;
  MPSFW_MPI_CHECK(MPI_Comm_split(comm, color, me, &out));
  return out;
}

PeerMemory* peer_memory_for(const DeviceBinding& device) {
  return device.memory == Backend::Cuda ? &cuda_ipc_memory() : nullptr;
}

PeerMemory& cuda_ipc_memory() {
  struct CudaIpc final : PeerMemory {
    Backend space() const override { return Backend::Cuda; }
    void* allocate(std::size_t bytes) override {
      void* p = memory::allocate(Backend::Cuda, bytes);
      const std::vector<unsigned char> zeros(bytes, 0);
      memory::copy(p, Backend::Cuda, zeros.data(), Backend::Host, bytes);
      memory::synchronize(Backend::Cuda);  // zero before a neighbour can map it
      return p;
    }
    void release(void* p, std::size_t bytes) noexcept override {
      memory::release(Backend::Cuda, p, bytes);
    }
    PeerMemoryHandle share(const void* base) override { return export_device_memory(base); }
    void* map(const PeerMemoryHandle& handle) override { return open_peer_memory(handle); }
    void unmap(void* mapped) noexcept override { close_peer_memory(mapped); }
  };
  static CudaIpc ipc;
  return ipc;
}

}  // namespace mpsfw
