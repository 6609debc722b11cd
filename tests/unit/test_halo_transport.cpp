// Which faces go device to device, and what a direct pull copies: the logic of
// same-GPU halos without a GPU (host fields stand in for mapped device memory).
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "core/error.hpp"
#include "core/halo_exchange.hpp"
#include "core/halo_transport.hpp"

namespace mpsfw {
namespace {

constexpr int kWall = MPI_PROC_NULL;

TEST(HaloTransport, ParsesTheThreeModes) {
  EXPECT_EQ(parse_halo_transport("auto"), HaloTransport::Auto);
  EXPECT_EQ(parse_halo_transport("mpi"), HaloTransport::Mpi);
  EXPECT_EQ(parse_halo_transport("ipc"), HaloTransport::Ipc);
  EXPECT_THROW(parse_halo_transport("nvlink"), InputError);
  EXPECT_STREQ(to_string(HaloTransport::Ipc), "ipc");
}

TEST(HaloTransport, OnlyNeighboursOnTheSameGpu) {
  // Rank 1 with x neighbours 0 and 2, y neighbour 3 (other GPU), walls in z.
  const std::array<int, kFaces> neighbors = {0, 2, 3, 3, kWall, kWall};
  const std::vector<std::string> gpus = {"GPU-a", "GPU-a", "GPU-a", "GPU-b"};
  EXPECT_EQ(same_gpu_faces(neighbors, 1, gpus), 0x3u);
  const std::vector<std::string> split = {"GPU-b", "GPU-a", "GPU-a", "GPU-a"};
  EXPECT_EQ(same_gpu_faces(neighbors, 1, split), 0x2u | 0x4u | 0x8u);
}

TEST(HaloTransport, PeriodicWrapOntoItselfIsDirect) {
  const std::array<int, kFaces> neighbors = {0, 0, kWall, kWall, 0, 0};
  EXPECT_EQ(same_gpu_faces(neighbors, 0, {"GPU-a"}), 0x33u);
}

TEST(HaloTransport, HostRanksNeverShare) {
  const std::array<int, kFaces> neighbors = {1, 1, kWall, kWall, kWall, kWall};
  EXPECT_EQ(same_gpu_faces(neighbors, 0, {"", ""}), 0u);
  EXPECT_EQ(same_gpu_faces(neighbors, 0, {"GPU-a", ""}), 0u);
}

TEST(HaloTransport, RankOutsideTheListIsAnError) {
  const std::array<int, kFaces> neighbors = {5, kWall, kWall, kWall, kWall, kWall};
  EXPECT_THROW(same_gpu_faces(neighbors, 0, {"GPU-a"}), Error);
}

// Two blocks side by side along `dim`, of different thickness there, filled
// with their global cell codes: each pulls its facing halo out of the other,
// and the halo must hold the global cells just across the face.
double code(int gx, int gy, int gz) { return gx + 1000.0 * gy + 1000000.0 * gz; }

std::vector<double> block(const FieldLayout& layout, Int3 offset) {
  std::vector<double> f(static_cast<size_t>(layout.size()), -1.0);
  for (int k = 1; k <= layout.n.z; ++k)
    for (int j = 1; j <= layout.n.y; ++j)
      for (int i = 1; i <= layout.n.x; ++i)
        f[static_cast<size_t>(layout.index(i, j, k))] =
            code(offset.x + i - 1, offset.y + j - 1, offset.z + k - 1);
  return f;
}

void expect_halo_is_across(const std::vector<double>& f, const FieldLayout& layout, Int3 offset,
                           int face) {
  const Box halo = face_halo_plane(layout, face);
  int checked = 0;
  for (int k = halo.lo.z; k < halo.hi.z; ++k)
    for (int j = halo.lo.y; j < halo.hi.y; ++j)
      for (int i = halo.lo.x; i < halo.hi.x; ++i) {
        EXPECT_EQ(f[static_cast<size_t>(layout.index(i, j, k))],
                  code(offset.x + i - 1, offset.y + j - 1, offset.z + k - 1))
            << "face " << face << " halo cell " << i << "," << j << "," << k;
        ++checked;
      }
  EXPECT_EQ(checked, halo.cells());
}

TEST(HaloTransport, PullCopiesTheNeighboursFacingPlane) {
  for (int dim = 0; dim < 3; ++dim) {
    Int3 low_cells{5, 4, 3}, high_cells{5, 4, 3};
    low_cells[dim] = 2;  // the blocks differ in thickness along the split
    high_cells[dim] = 6;
    const FieldLayout low(low_cells), high(high_cells);
    Int3 low_at{0, 0, 0}, high_at{0, 0, 0};
    high_at[dim] = low_cells[dim];
    std::vector<double> a = block(low, low_at), b = block(high, high_at);
    PeerBoxList into_a, into_b;
    into_a.add(face_pull(low, high, b.data(), 2 * dim + 1));  // a's high face
    into_b.add(face_pull(high, low, a.data(), 2 * dim));      // b's low face
    copy_from_peers(Backend::Host, a.data(), low, into_a);
    copy_from_peers(Backend::Host, b.data(), high, into_b);
    expect_halo_is_across(a, low, low_at, 2 * dim + 1);
    expect_halo_is_across(b, high, high_at, 2 * dim);
  }
}

TEST(HaloTransport, PeerBoxesMustMatchInShape) {
  const FieldLayout a({4, 4, 4}), b({4, 5, 4});
  PeerBoxList list;
  std::vector<double> f(static_cast<size_t>(b.size()));
  EXPECT_THROW(list.add(face_pull(a, b, f.data(), 0)), Error);
}

}  // namespace
}  // namespace mpsfw
