// A GPU activity trace of any CUDA program, for machines without Nsight
// Systems: loaded by the CUDA driver through CUDA_INJECTION64_PATH, it records
// every kernel, copy and memset (CUPTI's activity API, kernels concurrent as
// they ran) and writes them when the process ends, one text file a process:
//   CUDA_INJECTION64_PATH=$PWD/build/bench/libmpsfw_gpu_trace.so
//   MPSFW_GPU_TRACE_DIR=/tmp/trace mpirun -np 16 solver ... --timeline t.json
// (both variables exported: Open MPI passes them to the ranks).
// File DIR/gpu-PID.txt: a "clock CUPTI_NS MONOTONIC_NS" line (the same moment
// on CUPTI's clock and on CLOCK_MONOTONIC, the clock of the solver's
// timeline), then one line an operation: "k START END STREAM CORRELATION
// NAME" (kernels, demangled name), "c ... BYTES" (copies), "s ... BYTES"
// (memsets), and "r START END 0 CORRELATION" for each CUDA runtime call (the
// host's side: the call that queued the operation of the same correlation),
// in CUPTI nanoseconds. bench/gpu_busy.py reads them with the timeline: how
// busy the GPU was, what the hosts did while it idled, and whether each
// operation waited for its host or for the GPU.
#include <cupti.h>
#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Operation {
  char kind;  // k, c, s, r
  std::uint64_t start, end;
  std::uint32_t stream, correlation;
  std::uint64_t bytes;
  std::string name;
};

std::mutex mutex;
std::vector<Operation>* operations = nullptr;
std::uint64_t clock_cupti = 0, clock_monotonic = 0;

void fail(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "gpu_trace: %s failed: %s\n", what, text ? text : "?");
}

std::uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(t.tv_nsec);
}

std::string demangled(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : name;
  std::free(d);
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::vector<Operation> got;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      got.push_back({'k', k->start, k->end, k->streamId, k->correlationId, 0, demangled(k->name)});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      got.push_back({'c', c->start, c->end, c->streamId, c->correlationId, c->bytes, {}});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      got.push_back({'s', s->start, s->end, s->streamId, s->correlationId, s->bytes, {}});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      got.push_back({'r', a->start, a->end, 0, a->correlationId, 0, {}});
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(mutex);
  if (operations) operations->insert(operations->end(), got.begin(), got.end());
}

void write_trace() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const char* dir = std::getenv("MPSFW_GPU_TRACE_DIR");
  const std::string path =
      std::string(dir ? dir : ".") + "/gpu-" + std::to_string(getpid()) + ".txt";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "gpu_trace: cannot write %s\n", path.c_str());
    return;
  }
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(f, "clock %llu %llu\n", static_cast<unsigned long long>(clock_cupti),
               static_cast<unsigned long long>(clock_monotonic));
  for (const Operation& o : *operations) {
    std::fprintf(f, "%c %llu %llu %u %u", o.kind, static_cast<unsigned long long>(o.start),
                 static_cast<unsigned long long>(o.end), o.stream, o.correlation);
    if (o.kind == 'k')
      std::fprintf(f, " %s\n", o.name.c_str());
    else if (o.kind == 'r')
      std::fprintf(f, "\n");
    else
      std::fprintf(f, " %llu\n", static_cast<unsigned long long>(o.bytes));
  }
  std::fclose(f);
}

}  // namespace

// Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH).
extern "C" int InitializeInjection() {
  operations = new std::vector<Operation>();
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    fail("cuptiActivityRegisterCallbacks", r);
    return 0;
  }
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME}) {
    r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) fail("cuptiActivityEnable", r);
  }
  cuptiGetTimestamp(&clock_cupti);
  clock_monotonic = monotonic_ns();
  std::atexit(write_trace);
  return 1;
}
