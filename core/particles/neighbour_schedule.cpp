#include "neighbour_schedule.hpp"

#include <chrono>
#include <thread>

#include "core/mpi_check.hpp"

namespace mpsfw {
namespace {

// Completes `request`, giving the core away between polls.
void wait_yielding(MPI_Request& request) {
  for (int polls = 0;; ++polls) {
    int done = 0;
    MPSFW_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if (polls < 100) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

}  // namespace

NeighbourSchedule::NeighbourSchedule(const ListSettings& settings, PhaseTimers& timers)
    : settings_(settings), timers_(&timers) {}

void NeighbourSchedule::rebuild(ParticleExchange& exchange, ListedParticleStore& store, long step) {
  const CellGrid grid = exchange.cell_grid();
  {
    PhaseTimers::Scope t(*timers_, "migrate");
    exchange.migrate(store, step);
    store.sort_by_cell(grid);
  }
  {
    PhaseTimers::Scope t(*timers_, "ghost exchange");
    exchange.exchange_ghosts(store);
  }
  PhaseTimers::Scope t(*timers_, "neighbour build");
  store.build_neighbors(grid, settings_.reach);
  ++rebuilds_;
  steps_on_lists_ = 0;
}

bool NeighbourSchedule::follow_move(ParticleExchange& exchange, ListedParticleStore& store,
                                    long step, MPI_Comm comm) {
  ++steps_on_lists_;
  bool rebuild_now;
  {
    PhaseTimers::Scope t(*timers_, "neighbour check");
    rebuild_now = stale(store, comm);
  }
  if (rebuild_now) {
    rebuild(exchange, store, step);
  } else {
    PhaseTimers::Scope t(*timers_, "ghost update");
    exchange.update_ghosts(store);
  }
  return rebuild_now;
}

bool NeighbourSchedule::stale(const ListedParticleStore& store, MPI_Comm comm) const {
  if (settings_.skin == 0) return true;
  if (settings_.rebuild_every > 0 && steps_on_lists_ >= settings_.rebuild_every) return true;
  const double moved = store.max_displacement();
  double farthest = 0;
  if (!sleep_waits_) {
    MPSFW_MPI_CHECK(MPI_Allreduce(&moved, &farthest, 1, MPI_DOUBLE, MPI_MAX, comm));
  } else {
    MPI_Request request;
    MPSFW_MPI_CHECK(MPI_Iallreduce(&moved, &farthest, 1, MPI_DOUBLE, MPI_MAX, comm, &request));
    wait_yielding(request);
  }
  return !(farthest <= 0.5 * settings_.skin);  // NaN too: the rebuild reports it
}

}  // namespace mpsfw
