// FieldHalos' push delivery as the heat solver runs it: each step reads buffer s%2 (its
// MPI faces through start/finish, its same-GPU faces pushed by the
// neighbours' previous step, or filled at connect for the first), writes the
// interior of the other buffer and, through pushes(), the neighbours' halos,
// then finish_step(). Every face halo cell must then hold the value of the
// global cell across that face (wrapped when periodic); halos at
// non-periodic edges, and edges/corners of the halo, are left alone. Each
// step writes different values, so a stale halo shows. Host and CUDA, each
// with every halo transport; the same-GPU path also runs on the host, with an
// MPI shared-memory window in place of CUDA IPC and made-up GPU names (mixed
// direct and MPI faces, the fallback when a rank cannot map, the error when
// "ipc" was demanded, both orderings — the step counters of the GPU-side
// waits live in the shared memory then, and the host runs the handshake —
// and the routes the solver gets).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/gpu_skip.hpp"
#include "support/shared_window_memory.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/comm/step_ordering.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/device/peer_memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {
namespace {

constexpr double kUntouched = -1.0;

double code(int gx, int gy, int gz) { return gx + 1000.0 * gy + 1000000.0 * gz; }

int wrap(int g, int n) { return (g % n + n) % n; }

struct ExchangeCase {
  Backend space = Backend::Host;
  HaloTransport transport = HaloTransport::Mpi;
  DeviceLocation where;  // device_location() of this rank
  int visible_gpus = 0;
};

// Every interior cell holds its global code plus `shift`.
std::vector<double> coded_block(const CartDecomposition& d, const FieldLayout& layout,
                                double shift) {
  const Int3 n = layout.n, off = d.offset();
  std::vector<double> host(static_cast<size_t>(layout.size()), kUntouched);
  for (int k = 1; k <= n.z; ++k)
    for (int j = 1; j <= n.y; ++j)
      for (int i = 1; i <= n.x; ++i)
        host[static_cast<size_t>(layout.index(i, j, k))] =
            code(off.x + i - 1, off.y + j - 1, off.z + k - 1) + shift;
  return host;
}

void check_halos(const CartDecomposition& d, const FieldLayout& layout, Int3 global, bool periodic,
                 const std::vector<double>& host, double shift);

constexpr double kStale = 1e9;  // what the second buffer holds before step 0
constexpr int kSteps = 4;
double shift_of(int step) { return 0.25 * step; }

// Writes `value` where `pushes` sends cell (i, j, k) of face f, in `space`.
void store_push(Backend space, const HaloPushes& pushes, int f, int i, int j, int k, double value) {
  if (space == Backend::Host) {
    pushes.store(f, i, j, k, value);
    return;
  }
  const HaloPushes::Target& t = pushes.face[f];
  double* at = t.base + i * t.stride[0] + j * t.stride[1] + k * t.stride[2];
  memory::copy(at, space, &value, Backend::Host, sizeof value);
}

// The solver's protocol over buffers[0] (coded_block, shift 0, halos as the
// exchange left them at connect) and buffers[1] (stale): kSteps steps, every
// halo of the buffer read checked. `boundary_first`: the update runs the
// step's handshake itself, as the solver's boundary-first launch does.
void run_steps(FieldHalos& halo, const CartDecomposition& d, const FieldLayout& layout, Int3 global,
               bool periodic, Backend space, const std::array<double*, 2>& buffers,
               bool boundary_first) {
  const size_t cells = static_cast<size_t>(layout.size());
  const PackedBoxes interior = [&] {
    PackedBoxes l;
    l.add(layout.interior());
    return l;
  }();
  Array<double> staged(space, static_cast<size_t>(interior.cells));
  std::vector<double> host(cells);
  for (int step = 0; step < kSteps; ++step) {
    double* u = buffers[static_cast<size_t>(step % 2)];
    double* next = buffers[static_cast<size_t>((step + 1) % 2)];
    halo.start(u);
    halo.finish();
    memory::copy(host.data(), Backend::Host, u, space, cells * sizeof(double));
    check_halos(d, layout, global, periodic, host, shift_of(step));
    // The new values: the interior of `next` (not its halo: neighbours push
    // into it meanwhile), then the neighbours' halos.
    const std::vector<double> values = coded_block(d, layout, shift_of(step + 1));
    std::vector<double> packed(static_cast<size_t>(interior.cells));
    copy_regions(Backend::Host, ScalarType::Float64,
                 pack_copies(values.data(), layout, interior, packed.data()));
    staged.copy_from_host(packed.data());
    copy_regions(space, ScalarType::Float64, unpack_copies(next, layout, interior, staged.data()));
    const HaloPushes& pushes = halo.pushes(0, next);
    for (std::int64_t t = 0; t < pushes.cells(); ++t) {
      int i = 0, j = 0, k = 0;
      const int f = pushes.locate(t, i, j, k);
      store_push(space, pushes, f, i, j, k, values[static_cast<size_t>(layout.index(i, j, k))]);
    }
    memory::synchronize(space);
    // A boundary-first update runs the step's handshake itself, once its
    // pushes are written (on the host: here).
    const StepHandshake handshake = halo.step_handshake();
    if (space == Backend::Host && boundary_first && !handshake.empty()) {
      host_mark_and_wait(handshake);
      halo.finish_step(Handshake::RunByCaller);
    } else {
      halo.finish_step();
    }
  }
  halo.quiesce();  // neighbours may still be reading our buffers
}

void check_exchange(Int3 global, Int3 hint, bool periodic, const ExchangeCase& s) {
  CartDecomposition d(MPI_COMM_WORLD, global, hint, {periodic, periodic, periodic});
  const FieldLayout layout(d.local_cells());
  Array<double> field(s.space, static_cast<size_t>(layout.size()));
  Array<double> other(s.space, static_cast<size_t>(layout.size()));
  field.copy_from_host(coded_block(d, layout, 0).data());
  other.copy_from_host(coded_block(d, layout, kStale).data());
  FieldHalos halo(d, layout, HaloShape{}, s.space, mpi_is_cuda_aware());
  halo.add_field<double>({field.data(), other.data()});
  halo.connect(s.transport, s.where, HaloSync::Auto, HaloDelivery::Push);
  const HaloRoutes& routes = halo.routes();

  FaceMask neighbours = 0;
  for (int f = 0; f < kFaces; ++f) {
    if (d.neighbour_across(f) != MPI_PROC_NULL) neighbours |= 1u << f;
  }
  EXPECT_EQ(routes.direct | routes.mpi, neighbours);
  EXPECT_EQ(routes.direct & routes.mpi, 0u);
  const bool one_gpu = s.space == Backend::Cuda && s.visible_gpus == 1;
  if (s.transport != HaloTransport::Mpi && one_gpu) {
    EXPECT_EQ(routes.direct, neighbours) << routes.fallback;
  } else if (s.transport == HaloTransport::Mpi || s.space == Backend::Host) {
    EXPECT_EQ(routes.direct, 0u);
  }
  run_steps(halo, d, layout, global, periodic, s.space, {field.data(), other.data()}, false);
}

void check_halos(const CartDecomposition& d, const FieldLayout& layout, Int3 global, bool periodic,
                 const std::vector<double>& host, double shift) {
  const Int3 n = layout.n, off = d.offset();

  int checked = 0;
  for (int k = 0; k <= n.z + 1; ++k)
    for (int j = 0; j <= n.y + 1; ++j)
      for (int i = 0; i <= n.x + 1; ++i) {
        const int outside =
            (i == 0 || i == n.x + 1) + (j == 0 || j == n.y + 1) + (k == 0 || k == n.z + 1);
        const double got = host[static_cast<size_t>(layout.index(i, j, k))];
        if (outside != 1) {
          if (outside > 1) {
            EXPECT_EQ(got, kUntouched) << "edge/corner " << i << "," << j << "," << k;
          }
          continue;
        }
        int g[3] = {off.x + i - 1, off.y + j - 1, off.z + k - 1};
        const Int3 gn = global;
        bool beyond_wall = false;
        for (int dim = 0; dim < 3; ++dim) {
          if (g[dim] < 0 || g[dim] >= gn[dim]) {
            if (periodic) {
              g[dim] = wrap(g[dim], gn[dim]);
            } else {
              beyond_wall = true;
            }
          }
        }
        const double want = beyond_wall ? kUntouched : code(g[0], g[1], g[2]) + shift;
        EXPECT_EQ(got, want) << "rank " << d.rank() << " halo cell " << i << "," << j << "," << k;
        ++checked;
      }
  EXPECT_EQ(checked, 2 * (n.x * n.y + n.y * n.z + n.x * n.z));
}

using Param = std::tuple<Backend, HaloTransport>;

class FieldHalosPush : public testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    setup_.space = std::get<0>(GetParam());
    setup_.transport = std::get<1>(GetParam());
    if (setup_.space == Backend::Cuda) {
      MPSFW_REQUIRE_GPU();
      int node_size = 1;
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      int node_rank = 0;
      MPI_Comm_rank(node, &node_rank);
      MPI_Comm_size(node, &node_size);
      MPI_Comm_free(&node);
      const DeviceBinding device =
          bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
      setup_.where = device_location(device);
      setup_.visible_gpus = device.visible_gpus;
    }
  }
  ExchangeCase setup_;
};

TEST_P(FieldHalosPush, EveryFaceNonPeriodicUneven) {
  check_exchange({9, 7, 5}, {0, 0, 0}, false, setup_);
}

TEST_P(FieldHalosPush, EveryFacePeriodicWrap) {
  check_exchange({6, 5, 4}, {0, 0, 0}, true, setup_);
}

TEST_P(FieldHalosPush, PeriodicWithAllRanksInOneDimension) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  check_exchange({3, 4, 2 * ranks + 1}, {1, 1, 0}, true, setup_);
}

TEST_P(FieldHalosPush, SingleCellThickBlocks) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  check_exchange({ranks, 3, 2}, {0, 1, 1}, true, setup_);
  check_exchange({ranks, 3, 2}, {0, 1, 1}, false, setup_);
}

INSTANTIATE_TEST_SUITE_P(BackendsAndTransports, FieldHalosPush,
                         // Host with "ipc" is an error, tested below.
                         testing::Values(Param{Backend::Host, HaloTransport::Mpi},
                                         Param{Backend::Host, HaloTransport::Auto},
                                         Param{Backend::Cuda, HaloTransport::Mpi},
                                         Param{Backend::Cuda, HaloTransport::Auto},
                                         Param{Backend::Cuda, HaloTransport::Ipc}),
                         [](const testing::TestParamInfo<Param>& p) {
                           return std::string(to_string(std::get<0>(p.param))) + "_" +
                                  to_string(std::get<1>(p.param));
                         });

// Asking for IPC on the host backend fails on every rank, with the reason.
TEST(FieldHalosPushIpc, OnTheHostIsAnAgreedError) {
  CartDecomposition d(MPI_COMM_WORLD, {8, 8, 8}, {0, 0, 0}, {false, false, false});
  const FieldLayout layout(d.local_cells());
  Array<double> a(Backend::Host, static_cast<size_t>(layout.size()));
  Array<double> b(Backend::Host, static_cast<size_t>(layout.size()));
  FieldHalos halo(d, layout, HaloShape{}, Backend::Host, false);
  halo.add_field<double>({a.data(), b.data()});
  try {
    halo.connect(HaloTransport::Ipc, DeviceLocation{}, HaloSync::Auto, HaloDelivery::Push);
    ADD_FAILURE() << "no error";
  } catch (const AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("needs the CUDA backend"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mpsfw

namespace mpsfw {
namespace {

using testing_support::SharedWindowMemory;

// Where each rank "computes", made up by the test: where_of(cart rank). Ranks
// whose made-up locations link (device_link) share through host memory.
struct SharedCase {
  HaloTransport transport = HaloTransport::Auto;
  std::function<DeviceLocation(int)> where_of;
  int refusing_rank = -1;  // this rank's maps fail
  HaloSync sync = HaloSync::Auto;
  bool boundary_first_launch = true;  // the kernels have the boundary-first launch
};

// The node's communicator when every rank is on it, else MPI_COMM_NULL.
MPI_Comm node_of_every_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size = 0, world_size = 0;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (node_size != world_size) MPI_Comm_free(&node);
  return node;
}

// This rank's block and its two buffers in one shared window of the node,
// holding coded_block() (shift 0) and stale values; every rank's buffers are
// filled when the constructor returns.
struct SharedBlocks {
  SharedBlocks(MPI_Comm node, Int3 global, Int3 hint, bool periodic)
      : d(MPI_COMM_WORLD, global, hint, {periodic, periodic, periodic}),
        layout(d.local_cells()),
        cells(static_cast<size_t>(layout.size())),
        shared(node, 2 * cells),
        buffer{shared.base(), shared.base() + cells} {
    const std::vector<double> first = coded_block(d, layout, 0);
    const std::vector<double> second = coded_block(d, layout, kStale);
    std::copy(first.begin(), first.end(), buffer[0]);
    std::copy(second.begin(), second.end(), buffer[1]);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  CartDecomposition d;
  FieldLayout layout;
  size_t cells;
  SharedWindowMemory shared;
  std::array<double*, 2> buffer;
};

// The exchange with `node`'s ranks sharing one window (where_of must not link
// ranks of different windows).
void check_exchange_sharing_within(MPI_Comm node, Int3 global, Int3 hint, bool periodic,
                                   const SharedCase& c) {
  {
    SharedBlocks blocks(node, global, hint, periodic);
    const CartDecomposition& d = blocks.d;
    if (d.rank() == c.refusing_rank) blocks.shared.refuse_maps();

    FieldHalos halo(d, blocks.layout, HaloShape{}, Backend::Host, false, blocks.shared);
    halo.add_field<double>({blocks.buffer[0], blocks.buffer[1]});
    const bool refused = c.refusing_rank >= 0 && c.refusing_rank < d.size();
    if (refused && c.transport == HaloTransport::Ipc) {
      EXPECT_THROW(halo.connect(c.transport, c.where_of(d.rank()), c.sync, HaloDelivery::Push),
                   AgreedError);
      MPI_Comm_free(&node);
      return;
    }
    halo.connect(c.transport, c.where_of(d.rank()), c.sync, HaloDelivery::Push);

    FaceMask same = 0, peer = 0, neighbours = 0;
    bool pushes_to_other_rank = false;
    for (int f = 0; f < kFaces; ++f) {
      const int n = d.neighbour_across(f);
      if (n == MPI_PROC_NULL) continue;
      neighbours |= 1u << f;
      const DeviceLocation mine = c.where_of(d.rank()), theirs = c.where_of(n);
      if (mine.host == theirs.host && mine.gpu == theirs.gpu) {
        same |= 1u << f;
        pushes_to_other_rank = pushes_to_other_rank || n != d.rank();
      } else if (mine.host == theirs.host && !mine.peers.empty()) {
        peer |= 1u << f;  // the cases below list every other GPU of the node as a peer
        pushes_to_other_rank = true;
      }
    }
    same |= peer;
    const HaloRoutes& routes = halo.routes();
    if (c.transport == HaloTransport::Mpi) {
      EXPECT_EQ(routes.direct, 0u);
      EXPECT_EQ(routes.ordering, HaloOrdering::None);
    } else if (refused) {
      EXPECT_EQ(routes.direct, 0u) << "a refused map must send everyone back to MPI";
      EXPECT_NE(routes.fallback.find("mapping refused by the test"), std::string::npos)
          << routes.fallback;
    } else {
      EXPECT_EQ(routes.direct, same);
      EXPECT_EQ(routes.peer_gpu, peer);
      EXPECT_EQ(halo.pushes(0, blocks.buffer[1]).faces, same);
      EXPECT_EQ(halo.pushes(0, blocks.buffer[0]).faces, same);
      // Host shared memory runs the GPU-side handshake on the host.
      if (same != 0) {
        EXPECT_EQ(routes.ordering,
                  c.sync == HaloSync::Barrier ? HaloOrdering::HostBarrier : HaloOrdering::GpuWaits);
      }
      EXPECT_EQ(routes.direct_to_others, pushes_to_other_rank);
    }
    EXPECT_EQ(routes.direct | routes.mpi, neighbours);
    EXPECT_EQ(routes.direct & routes.mpi, 0u);
    EXPECT_EQ(halo.direct_neighbors(), face_count(routes.direct));

    // As the solver decides: boundary first where the kernels have the
    // launch, other ranks wait for the pushes and nothing for MPI.
    const bool boundary_first =
        c.boundary_first_launch && routes.direct_to_others && routes.mpi == 0;
    run_steps(halo, d, blocks.layout, global, periodic, Backend::Host, blocks.buffer,
              boundary_first);
  }
  MPI_Comm_free(&node);
}

void check_shared_exchange(Int3 global, Int3 hint, bool periodic, const SharedCase& c) {
  MPI_Comm node = node_of_every_rank();
  if (node == MPI_COMM_NULL) GTEST_SKIP() << "ranks on several nodes: no shared window for all";
  check_exchange_sharing_within(node, global, hint, periodic, c);
}

DeviceLocation one_gpu(int) { return {"node", "GPU-fake", {}}; }
// Two GPUs of one node that do not reach each other: odd and even ranks meet through MPI.
DeviceLocation gpu_by_parity(int rank) {
  return {"node", rank % 2 == 0 ? "GPU-even" : "GPU-odd", {}};
}
// Two GPUs of one node that reach each other (NVLink): every face direct.
DeviceLocation peer_gpus_by_parity(int rank) {
  return rank % 2 == 0 ? DeviceLocation{"node", "GPU-even", {"GPU-odd"}}
                       : DeviceLocation{"node", "GPU-odd", {"GPU-even"}};
}
// The same GPU name on two nodes: never direct across nodes.
DeviceLocation node_by_parity(int rank) {
  return {rank % 2 == 0 ? "node-even" : "node-odd", "GPU-fake", {}};
}

TEST(FieldHalosPushSharedMemory, AllRanksOnOneGpu) {
  check_shared_exchange({9, 7, 5}, {0, 0, 0}, false, {HaloTransport::Auto, one_gpu});
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Ipc, one_gpu});
}

TEST(FieldHalosPushSharedMemory, AllRanksOnOneGpuHostBarrierAsked) {
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true,
                        {HaloTransport::Auto, one_gpu, -1, HaloSync::Barrier});
}

// Kernels without the boundary-first launch (Kokkos): the step's handshake enqueued.
TEST(FieldHalosPushSharedMemory, AllRanksOnOneGpuWithoutTheBoundaryFirstLaunch) {
  check_shared_exchange({9, 7, 5}, {0, 0, 0}, false,
                        {HaloTransport::Auto, one_gpu, -1, HaloSync::Auto, false});
}

TEST(FieldHalosPushSharedMemory, TwoGpusMixDirectAndMpiFaces) {
  check_shared_exchange({9, 7, 5}, {0, 0, 0}, false, {HaloTransport::Auto, gpu_by_parity});
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Auto, gpu_by_parity});
}

TEST(FieldHalosPushSharedMemory, PeerGpusPushEveryFace) {
  check_shared_exchange({9, 7, 5}, {0, 0, 0}, false, {HaloTransport::Auto, peer_gpus_by_parity});
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Ipc, peer_gpus_by_parity});
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true,
                        {HaloTransport::Auto, peer_gpus_by_parity, -1, HaloSync::Barrier});
}

TEST(FieldHalosPushSharedMemory, OtherNodesGoThroughMpi) {
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Auto, node_by_parity});
}

// The nodes the ranks really run on (several under tests/support/fake-ssh or
// the two-node Slurm of tests/slurm), each node's ranks "on one GPU" of the
// same name as every other node's: faces within a node go direct through that
// node's window, faces across nodes through MPI (a map across nodes would read
// another node's window: wrong halos), and every halo holds its neighbour's cells.
TEST(FieldHalosPushSharedMemory, RealNodesShareWithinTheirNodeOnly) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  const std::vector<DeviceLocation> where =
      device_locations(MPI_COMM_WORLD, {std::string(name, length), "GPU-fake", {}});
  std::set<std::string> hosts;
  for (const DeviceLocation& w : where) hosts.insert(w.host);
  std::cout << "ranks on " << hosts.size() << " node(s)\n";
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  // The world rank is the decomposition's (no reordering).
  const auto where_of = [&where](int rank) { return where[static_cast<size_t>(rank)]; };
  MPI_Comm second;
  MPI_Comm_dup(node, &second);
  check_exchange_sharing_within(node, {6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Auto, where_of});
  check_exchange_sharing_within(second, {9, 7, 5}, {0, 0, 0}, false,
                                {HaloTransport::Auto, where_of});
}

TEST(FieldHalosPushSharedMemory, MpiModeSharesNothing) {
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Mpi, one_gpu});
}

TEST(FieldHalosPushSharedMemory, OneRankCannotMapSoAllFallBack) {
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Auto, one_gpu, 1});
}

TEST(FieldHalosPushSharedMemory, OneRankCannotMapIsAnErrorForIpc) {
  check_shared_exchange({6, 5, 4}, {0, 0, 0}, true, {HaloTransport::Ipc, one_gpu, 1});
}

TEST(HaloSync, ParsesTheInputKey) {
  EXPECT_EQ(parse_halo_sync("auto"), HaloSync::Auto);
  EXPECT_EQ(parse_halo_sync("barrier"), HaloSync::Barrier);
  EXPECT_THROW(parse_halo_sync("pull"), InputError);
  EXPECT_STREQ(describe(HaloOrdering::GpuWaits), "GPU-side waits");
  EXPECT_STREQ(describe(HaloOrdering::HostBarrier), "a host barrier");
}

// Every rank of a GPU gets one ordering: GPU-side waits only when all can and
// nobody asked for the barrier.
TEST(HaloSync, OneOrderingPerGpu) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_EQ(agree_ordering(MPI_COMM_WORLD, HaloSync::Auto, true), HaloOrdering::GpuWaits);
  EXPECT_EQ(agree_ordering(MPI_COMM_WORLD, HaloSync::Barrier, true), HaloOrdering::HostBarrier);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(agree_ordering(MPI_COMM_WORLD, HaloSync::Auto, rank != size - 1),
            HaloOrdering::HostBarrier);
  // An MD rank's 3x3x3 block: 26 neighbours at most.
  EXPECT_TRUE(can_wait_on_gpu(Backend::Host, 26));
  EXPECT_FALSE(can_wait_on_gpu(Backend::Host, 27));
}

}  // namespace
}  // namespace mpsfw
