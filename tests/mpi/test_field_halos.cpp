// FieldHalos, the halo exchange for solvers of one's own: several fields
// (float and double) per block, halos 1 or 2 cells wide, faces only or faces,
// edges and corners, periodic wraps and walls, even and uneven splits, over
// MPI and over same-GPU pulls (host shared memory standing in for CUDA IPC).
// Every halo cell must hold the value of the global cell it mirrors, every
// halo cell without a neighbour must keep its sentinel, the interior must not
// change. Runs at 1, 2, 4 and 8 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "support/field_halo_checks.hpp"
#include "support/shared_window_memory.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {
namespace {

using testing_support::SharedWindowMemory;

using testing_support::check;
using testing_support::fill;
using testing_support::HaloCase;

// Runs `steps` exchanges of a double field (two buffers, alternating) and a
// float field (one buffer) and checks every buffer exchanged.
void run_case(const HaloCase& c, HaloTransport transport, int steps = 1) {
  CartDecomposition d(MPI_COMM_WORLD, c.global, {0, 0, 0}, c.periodic);
  const FieldLayout l(d.local_cells(), c.shape.width);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  // The whole node's largest block fits: every rank asks for the same size.
  std::int64_t doubles = 3 * l.size() + 16, most = 0;
  MPI_Allreduce(&doubles, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  {
    SharedWindowMemory shared(node, static_cast<std::size_t>(most));
    double* u[2] = {shared.base(), shared.base() + l.size()};
    float* rho = reinterpret_cast<float*>(shared.base() + 2 * l.size());
    for (double* b : u) fill(d, l, 0, b);
    fill(d, l, 1, rho);
    FieldHalos halos(d, l, c.shape, Backend::Host, false, shared);
    EXPECT_EQ(halos.add_field<double>({u[0], u[1]}), 0);
    EXPECT_EQ(halos.add_field<float>({rho}), 1);
    halos.connect(transport, transport == HaloTransport::Mpi
                                 ? DeviceLocation{}
                                 : DeviceLocation{"node-of-test", "GPU-of-test", {}});
    for (int s = 0; s < steps; ++s) {
      double* now = u[s % 2];
      halos.start(now, rho);
      halos.finish();
      EXPECT_EQ(check(d, l, c.shape, 0, now), "") << "step " << s;
      EXPECT_EQ(check(d, l, c.shape, 1, rho), "") << "step " << s;
      // The next step's buffer starts over: its halo must be exchanged again.
      fill(d, l, 0, u[(s + 1) % 2]);
      halos.finish_step();
    }
    if (transport != HaloTransport::Mpi && d.size() > 1) {
      EXPECT_GT(halos.direct_neighbors(), 0) << halos.path();
      EXPECT_NE(halos.path().find("neighbours on this or a peer GPU pulled"), std::string::npos)
          << halos.path();
    }
    halos.quiesce();
  }
  MPI_Comm_free(&node);
}

using testing_support::kCorners1;
using testing_support::kCorners2;
using testing_support::kFaces1;
using testing_support::kFaces2;

TEST(FieldHalos, FacesWidthTwoPeriodic) {
  run_case({{12, 10, 8}, {true, true, true}, kFaces2}, HaloTransport::Mpi);
}
TEST(FieldHalos, FacesWidthOneWalls) {
  run_case({{9, 7, 6}, {false, false, false}, kFaces1}, HaloTransport::Mpi);
}
TEST(FieldHalos, CornersWidthOnePeriodic) {
  run_case({{8, 8, 8}, {true, true, true}, kCorners1}, HaloTransport::Mpi);
}
TEST(FieldHalos, CornersWidthTwoMixedWallsUneven) {
  run_case({{11, 9, 7}, {true, false, true}, kCorners2}, HaloTransport::Mpi);
}

TEST(FieldHalos, SameGpuPullsEqualMpi) {
  // Host shared memory for IPC: the ordering is the host barrier, over several steps.
  run_case({{12, 10, 8}, {true, true, true}, kFaces2}, HaloTransport::Auto, 4);
  run_case({{11, 9, 7}, {true, false, true}, kCorners2}, HaloTransport::Ipc, 3);
}

TEST(FieldHalos, ABlockThinnerThanTheHaloIsAnError) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Along x every rank gets one cell: a halo of two would need the rank beyond.
  CartDecomposition d(MPI_COMM_WORLD, {ranks, 4, 4}, {ranks, 1, 1}, {true, true, true});
  const FieldLayout l(d.local_cells(), 2);
  EXPECT_THROW(FieldHalos(d, l, kFaces2, Backend::Host, false), InputError);
}

TEST(FieldHalos, RefusesBuffersItWasNotGiven) {
  CartDecomposition d(MPI_COMM_WORLD, {8, 8, 8}, {0, 0, 0}, {true, true, true});
  const FieldLayout l(d.local_cells(), 1);
  std::vector<double> a(static_cast<size_t>(l.size())), b(a.size());
  FieldHalos halos(d, l, kFaces1, Backend::Host, false);
  halos.add_field<double>({a.data()});
  EXPECT_THROW(halos.start(b.data()), Error);
  EXPECT_THROW(halos.start(a.data(), b.data()), Error);
}

// Push delivery carries one-cell face halos of double fields that alternate
// between buffers; anything else is refused at connect, before anything
// collective, with what it is.
TEST(FieldHalos, PushRefusesWhatItCannotCarry) {
  CartDecomposition d(MPI_COMM_WORLD, {8, 8, 8}, {0, 0, 0}, {true, true, true});
  const auto refused = [&](FieldLayout l, HaloShape shape, bool as_float, int buffers,
                           const std::string& says) {
    std::vector<double> a(static_cast<size_t>(l.size())), b(a.size());
    FieldHalos halos(d, l, shape, Backend::Host, false);
    std::vector<void*> given = {a.data(), b.data()};
    given.resize(static_cast<size_t>(buffers));
    halos.add_field(as_float ? ScalarType::Float32 : ScalarType::Float64, given);
    try {
      halos.connect(HaloTransport::Auto, DeviceLocation{}, HaloSync::Auto, HaloDelivery::Push);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const FieldLayout one(d.local_cells(), 1), two(d.local_cells(), 2);
  refused(two, kFaces2, false, 2, "2 cells wide");
  refused(one, HaloShape{1, true}, false, 2, "with edges and corners");
  refused(one, kFaces1, true, 2, "field 0 is float32 with 2 buffer(s)");
  refused(one, kFaces1, false, 1, "field 0 is float64 with 1 buffer(s)");
}

// A pushing exchange without device-to-device neighbours (the host backend)
// is an MPI exchange: nothing to push, no handshake, halos after finish().
TEST(FieldHalos, PushWithoutDirectNeighboursIsMpi) {
  CartDecomposition d(MPI_COMM_WORLD, {8, 8, 8}, {0, 0, 0}, {true, true, true});
  const FieldLayout l(d.local_cells(), 1);
  std::vector<double> a(static_cast<size_t>(l.size()), 0.0), b(a.size(), 2.0);
  for (int k = 1; k <= l.n.z; ++k)
    for (int j = 1; j <= l.n.y; ++j)
      for (int i = 1; i <= l.n.x; ++i) a[static_cast<size_t>(l.index(i, j, k))] = 1.0;
  FieldHalos halos(d, l, kFaces1, Backend::Host, false);
  halos.add_field<double>({a.data(), b.data()});
  halos.connect(HaloTransport::Auto, DeviceLocation{}, HaloSync::Auto, HaloDelivery::Push);
  EXPECT_TRUE(halos.pushes(0, b.data()).empty());
  EXPECT_TRUE(halos.step_handshake().empty());
  EXPECT_EQ(halos.routes().direct, 0u);
  EXPECT_EQ(face_count(halos.routes().mpi), 6);
  halos.start(a.data());
  halos.finish();
  halos.finish_step(Handshake::RunByCaller);
  EXPECT_EQ(a[static_cast<size_t>(l.index(0, 1, 1))], 1.0);  // every interior holds 1.0
  EXPECT_EQ(a[static_cast<size_t>(l.index(1, 1, l.n.z + 1))], 1.0);
}

TEST(HaloRegions, SendAndHaloRegionsMatchAcrossNeighbours) {
  const FieldLayout mine({6, 5, 4}, 2), theirs({6, 3, 4}, 2);  // neighbours along y
  for (const Int3& dir : neighbour_offsets(true)) {
    const Box send = send_region(mine, dir), halo = halo_region(mine, dir);
    EXPECT_EQ(send.cells(), halo.cells());
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(send.size()[a], dir[a] == 0 ? mine.n[a] : 2);
    }
  }
  EXPECT_EQ(neighbour_offsets(false).size(), 6u);
  EXPECT_EQ(neighbour_offsets(true).size(), 26u);
  // My low-y halo is filled from the neighbour's high-y interior slab.
  const Int3 down{0, -1, 0};
  EXPECT_EQ(halo_region(mine, down).size().y, send_region(theirs, opposite(down)).size().y);
  EXPECT_EQ(send_region(theirs, opposite(down)).lo.y, theirs.n.y);
}

}  // namespace
}  // namespace mpsfw
