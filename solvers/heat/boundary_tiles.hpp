#pragma once
// The pushed planes of a boundary-first step (HeatKernels::update_boundary_first)
// cut into tiles, one per block (CUDA) or team (Kokkos) of BX x BY threads:
// BX along the plane's first dimension (x, or y for an x face: neighbouring
// threads read neighbouring cells), BY x kBoundaryRows along the other. Every
// backend whose step runs the planes first walks them this way.
#include <cstdint>

#include "heat_physics.hpp"
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/comm/halo_pushes.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {

// Face n of the list owns tiles [first_tile[n], first_tile[n + 1]).
struct BoundaryTiles {
  int face[6];
  int tiles_along[6];
  int first_tile[7];
  int faces;
  MPSFW_HD int total() const { return first_tile[faces]; }
};

MPSFW_HD int plane_along(int face) { return face / 2 == 0 ? 1 : 0; }
MPSFW_HD int plane_across(int face) { return face / 2 == 2 ? 1 : 2; }

// Rows of a tile each thread computes: fewer, longer-lived blocks were faster
// at 8 and 16 ranks under MPS (docs/performance.md).
constexpr int kBoundaryRows = 4;

// The tiles of `pushes` for blocks of bx x by threads.
inline BoundaryTiles boundary_tiles(const HaloPushes& pushes, int bx, int by) {
  BoundaryTiles t{};
  const int across = by * kBoundaryRows;
  for (int f = 0; f < 6; ++f) {
    if (!((pushes.faces >> f) & 1u)) continue;
    const Int3 s = pushes.face[f].cells.size();
    const int n = t.faces++;
    t.face[n] = f;
    t.tiles_along[n] = (s[plane_along(f)] + bx - 1) / bx;
    const int tiles_across = (s[plane_across(f)] + across - 1) / across;
    t.first_tile[n + 1] = t.first_tile[n] + t.tiles_along[n] * tiles_across;
  }
  return t;
}

// Thread (tx, ty)'s cells of tile `tile`: each cell's new value (from u,
// like the update: the same value) into next and the neighbour's halo.
template <int BX, int BY>
MPSFW_HD void update_tile_cells(const double* __restrict__ u, double* __restrict__ next,
                                const FieldLayout& layout, Coefficients k, const HaloPushes& pushes,
                                const BoundaryTiles& tiles, int tile, int tx, int ty) {
  int n = 0;
  while (tile >= tiles.first_tile[n + 1]) ++n;
  const int f = tiles.face[n];
  const int local = tile - tiles.first_tile[n];
  const Box& plane = pushes.face[f].cells;
  Int3 c = plane.lo;
  c[plane_along(f)] += (local % tiles.tiles_along[n]) * BX + tx;
  c[plane_across(f)] += (local / tiles.tiles_along[n]) * BY * kBoundaryRows + ty;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < kBoundaryRows; ++r, c[plane_across(f)] += BY) {
    if (c[plane_along(f)] < plane.hi[plane_along(f)] &&
        c[plane_across(f)] < plane.hi[plane_across(f)]) {
      const std::int64_t at = layout.index(c.x, c.y, c.z);
      const double v = updated_cell(u, at, layout.stride_y(), layout.stride_z(), k);
      pushes.store(f, c.x, c.y, c.z, v);
      // Planes share their edges: each cell of next is stored once.
      if (pushes.first_face_holding(c.x, c.y, c.z) == f) next[at] = v;
    }
  }
}

}  // namespace mpsfw::heat
