// Which faces go device to device, what a direct pull copies and where a push
// writes: the logic of same-GPU halos without a GPU (host fields stand in for
// mapped device memory).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/comm/halo_transport.hpp>
#include <mpsfw/core/comm/region_copy.hpp>

namespace mpsfw {
namespace {

constexpr int kWall = MPI_PROC_NULL;

TEST(HaloTransport, ParsesTheFourModes) {
  EXPECT_EQ(parse_halo_transport("auto"), HaloTransport::Auto);
  EXPECT_EQ(parse_halo_transport("mpi"), HaloTransport::Mpi);
  EXPECT_EQ(parse_halo_transport("ipc"), HaloTransport::Ipc);
  EXPECT_THROW(parse_halo_transport("nvlink"), InputError);
  EXPECT_STREQ(to_string(HaloTransport::Ipc), "ipc");
  EXPECT_EQ(parse_halo_transport("same-gpu"), HaloTransport::SameGpu);
  EXPECT_STREQ(to_string(HaloTransport::SameGpu), "same-gpu");
}

// Locations on one node: GPUs a and b reach each other, c reaches nobody.
const DeviceLocation kOnA{"node", "GPU-a", {"GPU-b"}};
const DeviceLocation kOnB{"node", "GPU-b", {"GPU-a"}};
const DeviceLocation kOnC{"node", "GPU-c", {}};
const DeviceLocation kOnHost{"node", "", {}};

TEST(HaloTransport, LinksNeedOneNodeAndPeersBothWays) {
  EXPECT_EQ(device_link(kOnA, kOnA), DeviceLink::SameGpu);
  EXPECT_EQ(device_link(kOnA, kOnB), DeviceLink::PeerGpu);
  EXPECT_EQ(device_link(kOnA, kOnC), DeviceLink::None);
  // One-sided peer lists are no link: the other process could not map back.
  EXPECT_EQ(device_link({"node", "GPU-a", {"GPU-c"}}, kOnC), DeviceLink::None);
  EXPECT_EQ(device_link(kOnA, {"other-node", "GPU-a", {"GPU-b"}}), DeviceLink::None);
  EXPECT_EQ(device_link(kOnA, kOnHost), DeviceLink::None);
  EXPECT_EQ(device_link(kOnHost, kOnHost), DeviceLink::None);
  EXPECT_STREQ(to_string(DeviceLink::PeerGpu), "peer GPU");
}

TEST(HaloTransport, DirectFacesFollowTheLinks) {
  // Rank 1 with x neighbours 0 and 2, y neighbour 3, walls in z.
  const std::array<int, kFaces> neighbors = {0, 2, 3, 3, kWall, kWall};
  const std::vector<DeviceLocation> where = {kOnA, kOnA, kOnA, kOnC};
  EXPECT_EQ(direct_faces(neighbors, 1, where), 0x3u);
  const std::vector<DeviceLocation> peers = {kOnB, kOnA, kOnA, kOnB};
  EXPECT_EQ(direct_faces(neighbors, 1, peers), 0xfu);
  EXPECT_EQ(direct_faces(neighbors, 1, peers, DeviceLink::PeerGpu), 0x1u | 0x4u | 0x8u);
  EXPECT_EQ(direct_faces(neighbors, 1, peers, DeviceLink::SameGpu), 0x2u);
}

TEST(HaloTransport, SameGpuModeDropsThePeerLinks) {
  const std::array<int, kFaces> neighbors = {0, 2, kWall, kWall, kWall, kWall};
  std::vector<DeviceLocation> where = {kOnB, kOnA, kOnA};
  for (DeviceLocation& w : where) w = as_transport_allows(w, HaloTransport::SameGpu);
  EXPECT_EQ(direct_faces(neighbors, 1, where), 0x2u);
  EXPECT_EQ(as_transport_allows(kOnA, HaloTransport::Auto).peers, kOnA.peers);
}

TEST(HaloTransport, PeriodicWrapOntoItselfIsDirect) {
  const std::array<int, kFaces> neighbors = {0, 0, kWall, kWall, 0, 0};
  EXPECT_EQ(direct_faces(neighbors, 0, {kOnA}), 0x33u);
}

TEST(HaloTransport, HostRanksNeverShare) {
  const std::array<int, kFaces> neighbors = {1, 1, kWall, kWall, kWall, kWall};
  EXPECT_EQ(direct_faces(neighbors, 0, {kOnHost, kOnHost}), 0u);
  EXPECT_EQ(direct_faces(neighbors, 0, {kOnA, kOnHost}), 0u);
}

TEST(HaloTransport, RankOutsideTheListIsAnError) {
  const std::array<int, kFaces> neighbors = {5, kWall, kWall, kWall, kWall, kWall};
  EXPECT_THROW(direct_faces(neighbors, 0, {kOnA}), Error);
}

TEST(HaloTransport, GroupsAreTheGpusThatReachEachOther) {
  // a-b linked, c alone, host ranks in no group, another node apart.
  const DeviceLocation far{"node-2", "GPU-a", {"GPU-b"}};
  EXPECT_EQ(linked_groups({kOnC, kOnA, kOnHost, kOnB, kOnC, far, kOnA}),
            (std::vector<int>{0, 1, -1, 1, 0, 5, 1}));
  // A chain a-b, b-d links a and d through b.
  const DeviceLocation b{"node", "GPU-b", {"GPU-a", "GPU-d"}};
  const DeviceLocation d{"node", "GPU-d", {"GPU-b"}};
  EXPECT_EQ(linked_groups({d, kOnA, b}), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(linked_groups({d, kOnA}), (std::vector<int>{0, 1}));
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
  const Box halo = halo_region(layout, face_offset(face));
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
    RegionCopyList into_a, into_b;
    into_a.add(
        halo_pull(a.data(), low, b.data(), high, face_offset(2 * dim + 1)));     // a's high face
    into_b.add(halo_pull(b.data(), high, a.data(), low, face_offset(2 * dim)));  // b's low face
    copy_regions(Backend::Host, ScalarType::Float64, into_a);
    copy_regions(Backend::Host, ScalarType::Float64, into_b);
    expect_halo_is_across(a, low, low_at, 2 * dim + 1);
    expect_halo_is_across(b, high, high_at, 2 * dim);
  }
}

// Pushing one block's plane through its HaloPushes fills exactly the facing
// halo of the other block, nothing else.
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
      for (std::int64_t t = 0; t < p.cells(); ++t) {
        int i = 0, j = 0, k = 0;
        const int face = p.locate(t, i, j, k);
        p.store(face, i, j, k, f[static_cast<size_t>(l.index(i, j, k))]);
      }
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
    EXPECT_EQ(changed(a, a_before), halo_region(low, face_offset(2 * dim + 1)).cells())
        << "dim " << dim;
    EXPECT_EQ(changed(b, b_before), halo_region(high, face_offset(2 * dim)).cells())
        << "dim " << dim;
  }
}

// locate() walks every cell of every pushed face's plane once, in order, and
// nothing past cells().
TEST(HaloTransport, PushesLocateEveryPlaneCellOnce) {
  const FieldLayout mine({4, 3, 5});
  std::vector<double> sink(static_cast<size_t>(mine.size()), 0.0);
  HaloPushes pushes;
  for (int f : {XHi, YLo, ZLo, ZHi}) {
    pushes.face[f] = push_target(mine, f, mine, sink.data());
    pushes.faces |= 1u << f;
  }
  EXPECT_EQ(pushes.cells(), 3 * 5 + 4 * 5 + 2 * 4 * 3);
  std::vector<int> seen(static_cast<size_t>(mine.size()) * kFaces, 0);
  int last_face = -1;
  for (std::int64_t t = 0; t < pushes.cells(); ++t) {
    int i = -1, j = -1, k = -1;
    const int f = pushes.locate(t, i, j, k);
    ASSERT_TRUE((pushes.faces >> f) & 1u) << "t " << t;
    EXPECT_GE(f, last_face) << "faces in order";
    last_face = f;
    const Box plane = send_region(mine, face_offset(f));
    ASSERT_TRUE(i >= plane.lo.x && i < plane.hi.x && j >= plane.lo.y && j < plane.hi.y &&
                k >= plane.lo.z && k < plane.hi.z)
        << "face " << f << " cell " << i << "," << j << "," << k;
    ++seen[static_cast<size_t>(mine.index(i, j, k)) * kFaces + static_cast<size_t>(f)];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), pushes.cells());
  int i = 0, j = 0, k = 0;
  EXPECT_EQ(pushes.locate(pushes.cells(), i, j, k), -1);
}

TEST(HaloTransport, PeerBoxesMustMatchInShape) {
  const FieldLayout a({4, 4, 4}), b({4, 5, 4});
  std::vector<double> f(static_cast<size_t>(b.size())), mine(static_cast<size_t>(a.size()));
  EXPECT_THROW(halo_pull(mine.data(), a, f.data(), b, face_offset(0)), Error);
}

}  // namespace
}  // namespace mpsfw
