#pragma once
// Every rank's phase timeline (PhaseTimers::start_timeline) as one Chrome
// trace file: JSON that Perfetto (ui.perfetto.dev) and chrome://tracing open,
// a track per rank named with its host, each timed phase a bar. Who waits for
// whom, step by step: a rank's wait shows as a long bar of the phase it
// waits in while its neighbours' tracks are busy.
#include <mpi.h>

#include <cstddef>
#include <string>

#include <mpsfw/core/device/timers.hpp>

namespace mpsfw {

// The spans each rank keeps: about 1000 steps of MD (8 phases a step), 90
// bytes each in the file.
constexpr std::size_t kTimelineSpans = 1 << 13;

// Collective over `comm`: the timelines of every rank at `path`, written by
// rank 0, complete or absent. Times are microseconds since each rank's
// origin (the loop starts them together, after a collective).
void write_timeline(const std::string& path, MPI_Comm comm, const PhaseTimers& timers);

}  // namespace mpsfw
