#include "timeline.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/json_writer.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>

namespace mpsfw {
namespace {

// This rank's events, each a JSON object followed by ",\n": its track's
// name and place, then a complete event ("X") a span. The track also names
// the process and its origin on the steady clock (CLOCK_MONOTONIC, in
// nanoseconds), so that other traces of the run (bench/gpu_trace.cpp) line up.
std::string rank_events(int rank, const PhaseTimers& timers) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPSFW_MPI_CHECK(MPI_Get_processor_name(host, &length));
  const std::string track = ",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(rank);
  const long long origin_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(timers.origin().time_since_epoch())
          .count();
  std::string text =
      "{\"name\":\"thread_name\"" + track +
      ",\"args\":{\"name\":" + json_escape("rank " + std::to_string(rank) + " (" + host + ")") +
      ",\"process\":" + std::to_string(getpid()) + ",\"origin_ns\":" + std::to_string(origin_ns) +
      "}},\n" + "{\"name\":\"thread_sort_index\"" + track +
      ",\"args\":{\"sort_index\":" + std::to_string(rank) + "}},\n";
  std::vector<std::string> names;
  for (const std::string& n : timers.names()) names.push_back(json_escape(n));
  const std::string span = ",\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(rank);
  char times[64];
  for (const PhaseTimers::Span& s : timers.timeline()) {
    std::snprintf(times, sizeof times, ",\"ts\":%.3f,\"dur\":%.3f},\n", s.start * 1e6,
                  (s.end - s.start) * 1e6);
    text += "{\"name\":" + names[static_cast<size_t>(s.phase)] + span + times;
  }
  return text;
}

}  // namespace

void write_timeline(const std::string& path, MPI_Comm comm, const PhaseTimers& timers) {
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::vector<std::string> events = gather_strings(comm, rank_events(rank, timers));
  long dropped = timers.spans_dropped(), all_dropped = 0;
  MPSFW_MPI_CHECK(MPI_Reduce(&dropped, &all_dropped, 1, MPI_LONG, MPI_SUM, 0, comm));
  run_collectively(comm, [&] {
    if (rank != 0) return;
    std::string text = "{\"traceEvents\":[\n";
    for (const std::string& e : events) text += e;
    // JSON takes no comma after the last element: a closing metadata event.
    text +=
        "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"mpsfw\"}}\n],\n";
    text += "\"displayTimeUnit\":\"ms\",\"otherData\":{\"spans_kept_per_rank\":" +
            std::to_string(kTimelineSpans) + ",\"spans_dropped\":" + std::to_string(all_dropped) +
            "}}\n";
    write_text_file_atomically(path, text);
  });
}

}  // namespace mpsfw
