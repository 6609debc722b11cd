#include "neighbour_schedule.hpp"

#include <algorithm>
#include <functional>

namespace mpsfw {

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
  {
    PhaseTimers::Scope t(*timers_, "neighbour build");
    store.build_neighbors(grid, settings_.reach);
  }
  ++rebuilds_;
  steps_on_lists_ = 0;
  farthest_ = 0;
  if (rebuilt_) rebuilt_();
}

void NeighbourSchedule::resume(ParticleExchange& exchange, ListedParticleStore& store,
                               const std::vector<double>& positions, long steps_on_lists) {
  {
    PhaseTimers::Scope t(*timers_, "ghost exchange");
    exchange.exchange_ghosts(store);
  }
  {
    PhaseTimers::Scope t(*timers_, "neighbour build");
    store.build_neighbors(exchange.cell_grid(), settings_.reach);
  }
  store.restore_owned_positions(positions);
  {
    PhaseTimers::Scope t(*timers_, "ghost update");
    exchange.update_ghosts(store);
  }
  ++rebuilds_;
  steps_on_lists_ = steps_on_lists;
  farthest_ = 0;
  if (rebuilt_) rebuilt_();
}

bool NeighbourSchedule::follow_move(ParticleExchange& exchange, ListedParticleStore& store,
                                    long step, MPI_Comm comm,
                                    const std::function<void()>& use_lists) {
  ++steps_on_lists_;
  const bool due = settings_.skin == 0 ||
                   (settings_.rebuild_every > 0 && steps_on_lists_ >= settings_.rebuild_every);
  // The likely way first where the last steps' moves say the lists will
  // hold (every rank decides alike, from the agreed distances): the device
  // has the step's work while the host waits for the check's answer. Where
  // the lists turn out stale, that work is thrown away.
  const bool likely_fresh =
      !due && farthest_ + 2 * std::max(step_move_, 0.0) <= 0.5 * settings_.skin;
  const auto follow = [&](GhostReads reads) {
    {
      PhaseTimers::Scope t(*timers_, "ghost update");
      exchange.update_ghosts(store, reads);
    }
    use_lists();
  };
  if (likely_fresh) follow(GhostReads::MayRun);  // no collective since the forces
  if (!due) {
    bool moved_too_far;
    {
      PhaseTimers::Scope t(*timers_, "neighbour check");
      moved_too_far = stale(store, comm);
    }
    if (!moved_too_far) {
      if (!likely_fresh) follow(GhostReads::Over);
      return false;
    }
  }
  rebuild(exchange, store, step);
  use_lists();
  return true;
}

bool NeighbourSchedule::stale(const ListedParticleStore& store, MPI_Comm comm) {
  const double moved = store.max_displacement();
  // Made at the first check, which every rank of `comm` reaches together.
  if (!farthest_of_all_ || max_comm_ != comm) {
    farthest_of_all_ = std::make_unique<NodeMax>(comm);
    max_comm_ = comm;
  }
  const double farthest = farthest_of_all_->max(moved);
  step_move_ = farthest - farthest_;
  farthest_ = farthest;
  return !(farthest <= 0.5 * settings_.skin);  // NaN too: the rebuild reports it
}

}  // namespace mpsfw
