// NeighbourSchedule's rebuild hook: it runs after every rebuild, set-up's and
// those follow_move makes, on every rank, before the step's use_lists, and
// never on a step without a rebuild. A lattice of particles drifts along x
// by a tenth of a link cell a step, so the lists go stale every few steps.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <mpsfw/core/particles/neighbour_schedule.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>

namespace mpsfw {
namespace {

TEST(NeighbourSchedule, TheRebuildHookRunsAfterEveryRebuildBeforeTheLists) {
  CartDecomposition dec(MPI_COMM_WORLD, {6, 6, 6}, {0, 0, 0}, {true, true, true});
  const double box[3] = {6, 6, 6};
  const Subdomain dom = subdomain_of(dec, box);
  ParticleArrays<HostExec> a({{"id", 1, FieldType::Integer, true}});
  ParticleRecords mine(a.record_layout());
  for (long id = 0; id < 216; ++id) {
    const double x[3] = {id % 6 + 0.5, id / 6 % 6 + 0.5, id / 36 + 0.5};
    if (dom.contains(x)) mine.append_at(x, id);
  }
  a.assign_records(mine);
  ParticleExchange ex(dec, dom, 1.0);
  PhaseTimers timers;
  NeighbourSchedule lists({1.0, 0.2, 0}, timers);
  std::vector<std::string> events;
  lists.on_rebuild([&] { events.push_back("rebuilt"); });
  lists.rebuild(ex, a, 0);
  EXPECT_EQ(events, std::vector<std::string>{"rebuilt"});
  long rebuilt_steps = 0;
  for (long step = 1; step <= 12; ++step) {
    a.move_each(MPSFW_LAMBDA(long, double* x) { x[0] += 0.1; });
    events.clear();
    const bool rebuilt =
        lists.follow_move(ex, a, step, dec.comm(), [&] { events.push_back("lists"); });
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back(), "lists") << "step " << step;
    const auto hooks = std::count(events.begin(), events.end(), "rebuilt");
    if (rebuilt) {
      ++rebuilt_steps;
      ASSERT_EQ(hooks, 1) << "step " << step;
      EXPECT_EQ(events[events.size() - 2], "rebuilt") << "step " << step;
    } else {
      EXPECT_EQ(hooks, 0) << "step " << step;
    }
  }
  // Half the skin is a step's move: a rebuild every other step or so.
  EXPECT_GE(rebuilt_steps, 4);
  EXPECT_EQ(lists.rebuilds(), rebuilt_steps + 1);
}

}  // namespace
}  // namespace mpsfw
