// Ghost fields, pair rows, reverse sums and half lists on the host backend's
// particle arrays (the cases: support/ghost_field_cases.hpp), on every rank
// grid ctest runs (1 to 8 ranks; all ranks along x, where a rank is its own
// neighbour along y and z, or spread over the three axes); and a store
// without ghost fields, where there is nothing to move.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>

#include "support/ghost_field_cases.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/particles/host_exec.hpp>
#include <mpsfw/core/particles/particle_arrays.hpp>
#include <mpsfw/core/particles/particle_exchange.hpp>

namespace mpsfw {
namespace {

using testing_support::ghost_field_case;
using testing_support::world_ranks;

TEST(GhostFields, FollowTheirOwnersOnAnyRankGrid) {
  ghost_field_case<HostExec>({{12, 10, 8}}, {0, 0, 0});
}

TEST(GhostFields, FollowTheirOwnersWhereARankIsItsOwnNeighbour) {
  ghost_field_case<HostExec>({{2 * 2 * world_ranks(), 6, 6}}, {world_ranks(), 1, 1});
}

// A store without ghost fields: nothing to move, nothing planned.
TEST(GhostFields, AStoreWithoutThemHasNone) {
  CartDecomposition dec(MPI_COMM_WORLD, {6, 5, 4}, {0, 0, 0}, {true, true, true});
  const double box[3] = {6, 5, 4};
  const Subdomain dom = subdomain_of(dec, box);
  ParticleArrays<HostExec> a({{"v", 3, FieldType::Real, true, false}});
  EXPECT_EQ(a.ghost_field_words(ParticleStore::kAllGhostFields), 0);
  ParticleExchange ex(dec, dom, testing_support::kLatticeGhostWidth);
  ex.exchange_ghosts(a);
  ex.update_ghost_fields(a);
  std::uint64_t word = 0;
  EXPECT_THROW(a.ParticleStore::pack_ghost_fields(1u, ParticleStore::kAllGhostFields, &word),
               Error);
  ex.add_ghosts_to_owners(a, ParticleStore::kAllGhostFields);  // nothing to add
}

}  // namespace
}  // namespace mpsfw
