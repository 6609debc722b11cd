#include "stream_signals.hpp"

#include "error.hpp"
#if MPSFW_HAVE_CUDA
#include <cuda.h>

#include "cuda_check.hpp"
#endif

namespace mpsfw {

#if MPSFW_HAVE_CUDA
namespace {

using WriteValue64 = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using BatchMemOp = CUresult (*)(CUstream, unsigned int, CUstreamBatchMemOpParams*, unsigned int);
using DeviceGetAttribute = CUresult (*)(int*, CUdevice_attribute, CUdevice);

struct Driver {
  WriteValue64 write_value64 = nullptr;
  BatchMemOp batch_mem_op = nullptr;
  DeviceGetAttribute get_attribute = nullptr;
};

template <class F>
void find(const char* symbol, F* f) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found) ==
          cudaSuccess &&
      found == cudaDriverEntryPointSuccess) {
    *f = reinterpret_cast<F>(p);
  } else {
    cudaGetLastError();
  }
}

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    find("cuStreamWriteValue64", &r.write_value64);
    find("cuStreamBatchMemOp", &r.batch_mem_op);
    find("cuDeviceGetAttribute", &r.get_attribute);
    return r;
  }();
  return d;
}

void check(CUresult code, const char* what) {
  if (code != CUDA_SUCCESS) {
    throw Error(std::string("CUDA driver call failed: ") + what + ": error " +
                std::to_string(static_cast<int>(code)));
  }
}

// The legacy default stream, the one every kernel of ours runs on.
const CUstream kStream = CU_STREAM_LEGACY;

}  // namespace

bool StreamSignals::available() {
  const Driver& d = driver();
  if (!d.write_value64 || !d.batch_mem_op || !d.get_attribute) return false;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  int ops64 = 0;
  return d.get_attribute(&ops64, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, device) ==
             CUDA_SUCCESS &&
         ops64 != 0;
}

StreamSignals::StreamSignals() {
  if (!available()) throw Error("stream memory operations are not available on this device");
  MPSFW_CUDA_CHECK(cudaMalloc(&mine_, 2 * sizeof(std::uint64_t)));
  MPSFW_CUDA_CHECK(cudaMemset(mine_, 0, 2 * sizeof(std::uint64_t)));
  MPSFW_CUDA_CHECK(cudaDeviceSynchronize());
}

StreamSignals::~StreamSignals() {
  for (void* p : neighbors_) close_peer_memory(p);
  if (mine_ != nullptr) cudaFree(mine_);
}

PeerMemoryHandle StreamSignals::handle() const { return export_device_memory(mine_); }

void StreamSignals::add_neighbor(const PeerMemoryHandle& handle) {
  neighbors_.push_back(open_peer_memory(handle));
}

void StreamSignals::wait_for_neighbors(Counter counter, std::uint64_t value) {
  if (neighbors_.empty()) return;
  std::vector<CUstreamBatchMemOpParams> ops(neighbors_.size());
  for (size_t n = 0; n < neighbors_.size(); ++n) {
    ops[n] = {};
    ops[n].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
    ops[n].waitValue.address = reinterpret_cast<CUdeviceptr>(
        static_cast<std::uint64_t*>(neighbors_[n]) + counter);
    ops[n].waitValue.value64 = value;
    ops[n].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
  }
  check(driver().batch_mem_op(kStream, static_cast<unsigned>(ops.size()), ops.data(), 0),
        "cuStreamBatchMemOp (wait for neighbours)");
}

void StreamSignals::signal(Counter counter, std::uint64_t value) {
  // Default flags: a memory fence before the write, so the work before it is
  // visible to whoever sees the new value.
  check(driver().write_value64(kStream,
                               reinterpret_cast<CUdeviceptr>(static_cast<std::uint64_t*>(mine_) +
                                                             counter),
                               value, CU_STREAM_WRITE_VALUE_DEFAULT),
        "cuStreamWriteValue64");
}
#else
bool StreamSignals::available() { return false; }
StreamSignals::StreamSignals() { throw Error("this build of mpsfw has no CUDA backend"); }
StreamSignals::~StreamSignals() = default;
PeerMemoryHandle StreamSignals::handle() const { return {}; }
void StreamSignals::add_neighbor(const PeerMemoryHandle&) {}
void StreamSignals::wait_for_neighbors(Counter, std::uint64_t) {}
void StreamSignals::signal(Counter, std::uint64_t) {}
#endif

}  // namespace mpsfw
