#pragma once
// When a particle solver's neighbour lists are rebuilt, and the rebuild, for
// every particle solver. After the particles moved, the lists are stale once
// some particle on some rank moved more than half the skin since the last
// build (a pair within the cutoff now was within cutoff + skin then), after
// `rebuild_every` steps on them, or at every step without a skin. A rebuild
// migrates the particles and sorts them by link cell, exchanges ghosts and
// builds the lists; otherwise the ghosts' positions follow their owners.
#include <mpi.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "particle_exchange.hpp"
#include "particle_store.hpp"
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/parallel/node_max.hpp>

namespace mpsfw {

struct ListSettings {
  double reach = 0;        // cutoff + skin: the lists' reach (and the ghost width)
  double skin = 0;         // 0: a rebuild at every step
  long rebuild_every = 0;  // at most this many steps on one build (0: no limit)
};

class NeighbourSchedule {
 public:
  // Phases are timed into `timers` (which outlives this): "migrate" (with
  // the sort), "ghost exchange", "neighbour build", "neighbour check",
  // "ghost update".
  NeighbourSchedule(const ListSettings& settings, PhaseTimers& timers);

  // Collective: the rebuild. `step`: the step being made (migration's errors
  // name it).
  void rebuild(ParticleExchange& exchange, ListedParticleStore& store, long step);
  // Collective, in place of rebuild() at set-up, resuming exactly: the owned
  // particles stand where an interrupted run last built its lists, in its
  // order, and it had made `steps_on_lists` steps on them since; the same
  // ghosts and lists are built, then the particles move to `positions`
  // ([3 * i + d]), where it stopped (particle_resume.hpp).
  void resume(ParticleExchange& exchange, ListedParticleStore& store,
              const std::vector<double>& positions, long steps_on_lists);
  // Collective, after the particles moved one step (`step`: the step being
  // made): the ghosts' update and `use_lists()` (the step's work on the
  // lists: the forces), or the rebuild and use_lists(). Where the last steps'
  // moves say the lists will hold, the update and use_lists are queued before
  // the check's answer is in, so that the device works while the host waits
  // for it; should the lists turn out stale, the rebuild and use_lists()
  // follow. use_lists must write only what a second call writes again.
  // Returns whether it rebuilt.
  bool follow_move(ParticleExchange& exchange, ListedParticleStore& store, long step, MPI_Comm comm,
                   const std::function<void()>& use_lists);

  // `rebuilt()` after every rebuild (set-up's too), on every rank, before
  // the step's use_lists: work that follows the particles' new order and
  // lists (a table per build, a reordered scratch field). Replaces the last.
  void on_rebuild(std::function<void()> rebuilt) { rebuilt_ = std::move(rebuilt); }

  long rebuilds() const { return rebuilds_; }
  void reset_rebuilds() { rebuilds_ = 0; }
  // Steps since the last rebuild (a checkpoint keeps them for an exact resume).
  long steps_on_lists() const { return steps_on_lists_; }
  void set_steps_on_lists(long steps) { steps_on_lists_ = steps; }

 private:
  // The check (collective): whether some particle moved more than half the
  // skin since the build; keeps the agreed distance and its last growth.
  bool stale(const ListedParticleStore& store, MPI_Comm comm);

  ListSettings settings_;
  PhaseTimers* timers_;
  std::function<void()> rebuilt_;
  long rebuilds_ = 0, steps_on_lists_ = 0;
  std::unique_ptr<NodeMax> farthest_of_all_;  // the check's reduction over `comm`
  MPI_Comm max_comm_ = MPI_COMM_NULL;
  double farthest_ = 0;   // the last check's agreed distance (0 after a build)
  double step_move_ = 0;  // its growth over the step before it
};

}  // namespace mpsfw
