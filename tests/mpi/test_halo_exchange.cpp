// Halo exchange: after one exchange every face halo cell holds the value of the
// global cell across that face (wrapped when periodic); halos at non-periodic
// edges, and edges/corners of the halo, are left alone. Host and CUDA.
#include <gtest/gtest.h>

#include <vector>

#include "core/decomposition.hpp"
#include "core/device.hpp"
#include "core/halo_exchange.hpp"
#include "core/memory.hpp"
#include "support/gpu_skip.hpp"

namespace mpsfw {
namespace {

constexpr double kUntouched = -1.0;

double code(int gx, int gy, int gz) { return gx + 1000.0 * gy + 1000000.0 * gz; }

int wrap(int g, int n) { return (g % n + n) % n; }

void check_exchange(Int3 global, Int3 hint, bool periodic, Backend space) {
  CartDecomposition d(MPI_COMM_WORLD, global, hint, {periodic, periodic, periodic});
  const FieldLayout layout(d.local_cells());
  const Int3 n = layout.n, off = d.offset();
  std::vector<double> host(static_cast<size_t>(layout.size()), kUntouched);
  for (int k = 1; k <= n.z; ++k)
    for (int j = 1; j <= n.y; ++j)
      for (int i = 1; i <= n.x; ++i)
        host[static_cast<size_t>(layout.index(i, j, k))] =
            code(off.x + i - 1, off.y + j - 1, off.z + k - 1);

  Array<double> field(space, host.size());
  field.copy_from_host(host.data());
  HaloExchange halo(d, layout, space, mpi_is_cuda_aware());
  halo.exchange(field.data());
  field.copy_to_host(host.data());

  int checked = 0;
  for (int k = 0; k <= n.z + 1; ++k)
    for (int j = 0; j <= n.y + 1; ++j)
      for (int i = 0; i <= n.x + 1; ++i) {
        const int outside = (i == 0 || i == n.x + 1) + (j == 0 || j == n.y + 1) +
                            (k == 0 || k == n.z + 1);
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
        const double want = beyond_wall ? kUntouched : code(g[0], g[1], g[2]);
        EXPECT_EQ(got, want) << "rank " << d.rank() << " halo cell " << i << "," << j << "," << k;
        ++checked;
      }
  EXPECT_EQ(checked, 2 * (n.x * n.y + n.y * n.z + n.x * n.z));
}

class HaloExchangeTest : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::Cuda) {
      MPSFW_REQUIRE_GPU();
      int node_size = 1;
      MPI_Comm node;
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      int node_rank = 0;
      MPI_Comm_rank(node, &node_rank);
      MPI_Comm_size(node, &node_size);
      MPI_Comm_free(&node);
      bind_device(Backend::Cuda, node_rank, node_size, CudaGate::without_mps());
    }
  }
};

TEST_P(HaloExchangeTest, EveryFaceNonPeriodicUneven) {
  check_exchange({9, 7, 5}, {0, 0, 0}, false, GetParam());
}

TEST_P(HaloExchangeTest, EveryFacePeriodicWrap) {
  check_exchange({6, 5, 4}, {0, 0, 0}, true, GetParam());
}

TEST_P(HaloExchangeTest, PeriodicWithAllRanksInOneDimension) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  check_exchange({3, 4, 2 * ranks + 1}, {1, 1, 0}, true, GetParam());
}

TEST_P(HaloExchangeTest, SingleCellThickBlocks) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  check_exchange({ranks, 3, 2}, {0, 1, 1}, true, GetParam());
  check_exchange({ranks, 3, 2}, {0, 1, 1}, false, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, HaloExchangeTest, testing::Values(Backend::Host, Backend::Cuda),
                         [](const testing::TestParamInfo<Backend>& p) {
                           return std::string(to_string(p.param));
                         });

}  // namespace
}  // namespace mpsfw
