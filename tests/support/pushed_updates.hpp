#pragma once
// One heat update of an odd-sized block on a backend, with the block's faces
// pushed into the halo of a separate sink field laid out like the block (a
// periodic wrap onto itself), the two ways the solver pushes: from the last
// of the usual launches (inner box, then the shell slabs) or boundary first
// (HeatKernels::update_boundary_first). Fields start as NaN where nothing is
// meant to write, so a missing or stray write shows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/comm/halo_regions.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/grid/overlap_boxes.hpp>
#include <mpsfw/solvers/heat/heat_kernels.hpp>

namespace mpsfw::testing_support {

struct PushedUpdate {
  std::vector<double> next, sink;
};

enum class PushOrder { Last, BoundaryFirst };

inline const heat::Coefficients kPushTestCoefficients =
    heat::coefficients(1e-4, 0.1, 0.01, 0.01, 0.01);

// `faces` pushed; without any, a plain update of the whole interior. The
// fields live in `memory` (the backend's own space unless given: Kokkos
// kernels run on host or CUDA memory).
inline PushedUpdate update_with_pushes(Backend backend, const FieldLayout& layout, FaceMask faces,
                                       PushOrder order, Backend memory = Backend::Auto) {
  if (memory == Backend::Auto) memory = backend;
  const auto size = static_cast<size_t>(layout.size());
  std::vector<double> u(size);
  for (size_t c = 0; c < size; ++c) u[c] = std::sin(0.37 * static_cast<double>(c));
  const std::vector<double> unset(size, std::numeric_limits<double>::quiet_NaN());
  Array<double> u_at(memory, size), next_at(memory, size), sink_at(memory, size);
  u_at.copy_from_host(u.data());
  next_at.copy_from_host(unset.data());
  sink_at.copy_from_host(unset.data());
  HaloPushes pushes;
  for (int f = 0; f < kFaces; ++f) {
    if (!((faces >> f) & 1u)) continue;
    pushes.face[f] = push_target(layout, f, layout, sink_at.data());
    pushes.faces |= 1u << f;
  }
  auto kernels = heat::make_heat_kernels(backend);
  const heat::Coefficients k = kPushTestCoefficients;
  if (order == PushOrder::BoundaryFirst) {
    kernels->update_boundary_first(u_at.data(), next_at.data(), layout, inner_box(layout, faces), k,
                                   pushes, {});
  } else {
    kernels->update(u_at.data(), next_at.data(), layout, inner_box(layout), k, {});
    const ShellBoxes shell = shell_boxes(layout);
    for (int b = 0; b < shell.count; ++b) {
      kernels->update(u_at.data(), next_at.data(), layout, shell.box[b], k,
                      b + 1 == shell.count ? pushes : HaloPushes{});
    }
  }
  kernels->synchronize();
  PushedUpdate r{std::vector<double>(size), std::vector<double>(size)};
  next_at.copy_to_host(r.next.data());
  sink_at.copy_to_host(r.sink.data());
  return r;
}

// Every pushed face's halo in the sink holds the plane of next it copies, and
// nothing else of the sink was written.
inline void expect_pushes_copy_the_planes(const PushedUpdate& r, const FieldLayout& layout,
                                          FaceMask faces) {
  long pushed = 0;
  for (int f = 0; f < kFaces; ++f) {
    if (!((faces >> f) & 1u)) continue;
    const Box from = send_region(layout, face_offset(f));
    const Box to = halo_region(layout, face_offset(opposite_face(f)));
    for (int k = from.lo.z; k < from.hi.z; ++k)
      for (int j = from.lo.y; j < from.hi.y; ++j)
        for (int i = from.lo.x; i < from.hi.x; ++i) {
          Int3 dst{i, j, k};
          dst[face_dim(f)] = to.lo[face_dim(f)];
          const double sent = r.next[static_cast<size_t>(layout.index(i, j, k))];
          const double got = r.sink[static_cast<size_t>(layout.index(dst.x, dst.y, dst.z))];
          ASSERT_EQ(sent, got) << "face " << f << " cell " << i << "," << j << "," << k;
        }
    pushed += from.cells();
  }
  long written = 0;
  for (double v : r.sink) written += !std::isnan(v);
  EXPECT_EQ(written, pushed) << "pushes wrote outside the face halos";
}

// The interior of `got` equals `want` bit for bit and nothing outside it was
// written.
inline void expect_same_interior(const std::vector<double>& got, const std::vector<double>& want,
                                 const FieldLayout& layout) {
  ASSERT_EQ(got.size(), want.size());
  const Box in = layout.interior();
  long interior = 0, written = 0;
  for (int k = in.lo.z; k < in.hi.z; ++k)
    for (int j = in.lo.y; j < in.hi.y; ++j)
      for (int i = in.lo.x; i < in.hi.x; ++i) {
        const auto c = static_cast<size_t>(layout.index(i, j, k));
        ASSERT_FALSE(std::isnan(got[c])) << "cell " << i << "," << j << "," << k << " not written";
        ASSERT_EQ(got[c], want[c]) << "cell " << i << "," << j << "," << k;
        ++interior;
      }
  for (double v : got) written += !std::isnan(v);
  EXPECT_EQ(written, interior) << "the update wrote outside the interior";
}

}  // namespace mpsfw::testing_support
