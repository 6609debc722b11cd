// Which faces go device to device, what a direct pull copies and where a push
// writes: the logic of same-GPU halos without a GPU (host fields stand in for
// mapped device memory).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/halo_exchange.hpp"
#include "core/halo_push.hpp"
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

// Pushing every cell of one block through its HaloPushes fills exactly the
// facing halo of the other block, nothing else.
TEST(HaloTransport, PushWritesTheNeighboursFacingHalo) {
  for (int dim = 0; dim < 3; ++dim) {
    Int3 low_cells{5, 4, 3}, high_cells{5, 4, 3};
    low_cells[dim] = 2;
    high_cells[dim] = 6;
    const FieldLayout low(low_cells), high(high_cells);
    Int3 low_at{0, 0, 0}, high_at{0, 0, 0};
    high_at[dim] = low_cells[dim];
    std::vector<double> a = block(low, low_at), b = block(high, high_at);
    const std::vector<double> a_before = a, b_before = b;
    HaloPushes from_a, from_b;
    from_a.face[2 * dim + 1] = push_target(low, 2 * dim + 1, high, b.data());
    from_a.faces = 1u << (2 * dim + 1);
    from_b.face[2 * dim] = push_target(high, 2 * dim, low, a.data());
    from_b.faces = 1u << (2 * dim);
    const auto push_all = [](const FieldLayout& l, const std::vector<double>& f,
                             const HaloPushes& p) {
      for (int k = 1; k <= l.n.z; ++k)
        for (int j = 1; j <= l.n.y; ++j)
          for (int i = 1; i <= l.n.x; ++i)
            p.store_cell(i, j, k, f[static_cast<size_t>(l.index(i, j, k))]);
    };
    push_all(low, a_before, from_a);
    push_all(high, b_before, from_b);
    expect_halo_is_across(a, low, low_at, 2 * dim + 1);
    expect_halo_is_across(b, high, high_at, 2 * dim);
    const auto changed = [](const std::vector<double>& x, const std::vector<double>& y) {
      long n = 0;
      for (size_t c = 0; c < x.size(); ++c) n += x[c] != y[c];
      return n;
    };
    EXPECT_EQ(changed(a, a_before), face_halo_plane(low, 2 * dim + 1).cells()) << "dim " << dim;
    EXPECT_EQ(changed(b, b_before), face_halo_plane(high, 2 * dim).cells()) << "dim " << dim;
  }
}

// The CUDA update pushes only the column chunks touches_column() names; that
// must reach every cell store_cell would, for chunks of any length.
TEST(HaloTransport, TouchedColumnsCoverEveryPlaneCell) {
  const FieldLayout mine({4, 3, 5});
  std::vector<double> sink(static_cast<size_t>(mine.size()), 0.0);
  HaloPushes all;
  for (int f = 0; f < kFaces; ++f) {
    all.face[f] = push_target(mine, f, mine, sink.data());  // a periodic wrap onto itself
    all.faces |= 1u << f;
  }
  for (int k = 1; k <= 5; ++k)
    for (int j = 1; j <= 3; ++j)
      for (int i = 1; i <= 4; ++i) all.store_cell(i, j, k, code(i, j, k));
  const std::vector<double> by_cell = sink;
  for (int chunk = 1; chunk <= 5; ++chunk) {
    std::fill(sink.begin(), sink.end(), 0.0);
    HaloPushes z_only = all;
    z_only.faces = (1u << ZLo) | (1u << ZHi);
    int touched_by_z = 0;
    for (int j = 1; j <= 3; ++j)
      for (int i = 1; i <= 4; ++i)
        for (int k0 = 1; k0 <= 5; k0 += chunk) {
          const int k_end = std::min(k0 + chunk, 6);
          touched_by_z += z_only.touches_column(i, j, k0, k_end);
          if (!all.touches_column(i, j, k0, k_end)) continue;
          for (int k = k0; k < k_end; ++k) all.store_cell(i, j, k, code(i, j, k));
        }
    EXPECT_EQ(sink, by_cell) << "chunks of " << chunk;
    // Faces across z touch a column's first chunk and its last, nothing between.
    const int chunks_with_an_end = chunk >= 5 ? 1 : 2;
    EXPECT_EQ(touched_by_z, 12 * chunks_with_an_end) << "chunks of " << chunk;
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
