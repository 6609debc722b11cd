#pragma once
// Memory layout of one rank's block of a 3D field with a halo `halo` cells
// wide (1 for a 7-point stencil, 2 for a 4th-order one). Interior cells are
// i in [halo, n.x + halo), likewise j and k; the halo is the `halo` cells
// beyond each side. x is the fastest index, so x rows are contiguous. Rows are
// padded so that every row's first interior cell starts on a 64-byte
// boundary (of doubles; 32 bytes of floats): GPU warps then read and write
// whole 32-byte sectors. With halo 1, interior cells are [1, n] and the halo
// is index 0 and n + 1.
#include <cstdint>

#include "box.hpp"
#include "core/base/hd.hpp"

namespace mpsfw {

struct FieldLayout {
  static constexpr std::int64_t kAlignCells = 8;  // 64 bytes of doubles

  Int3 n;                  // interior cells per dimension
  std::int64_t pitch = 0;  // distance between rows (y neighbours)
  std::int64_t first = 0;  // index of cell (0, 0, 0)
  int halo = 1;            // halo cells beyond each side

  FieldLayout() = default;
  MPSFW_HD explicit FieldLayout(Int3 cells, int halo_cells = 1)
      : n(cells),
        pitch((cells.x + 2 * halo_cells + kAlignCells - 1) / kAlignCells * kAlignCells),
        first((halo_cells + kAlignCells - 1) / kAlignCells * kAlignCells - halo_cells),
        halo(halo_cells) {}

  MPSFW_HD std::int64_t stride_y() const { return pitch; }
  MPSFW_HD std::int64_t stride_z() const { return pitch * (n.y + 2 * halo); }
  MPSFW_HD std::int64_t size() const { return first + stride_z() * (n.z + 2 * halo); }
  MPSFW_HD std::int64_t index(int i, int j, int k) const {
    return first + i + j * stride_y() + k * stride_z();
  }
  MPSFW_HD Box interior() const {
    return {{halo, halo, halo}, {n.x + halo, n.y + halo, n.z + halo}};
  }
};

// A face across x holds one cell per row, so copying it moves a whole 32-byte
// memory sector per 8-byte value: four times the traffic of a y or z face,
// whose cells lie along rows. Rank grids for fields weigh x faces by this
// (choose_rank_grid); docs/performance.md has what cutting x cost on a GPU.
inline constexpr double kStridedFaceCost = 4.0;

}  // namespace mpsfw

namespace mpsfw {

// Which faces receive halo data from a neighbour (bit f for face f, in the
// order XLo, XHi, YLo, YHi, ZLo, ZHi). Cells next to other faces read only
// fixed wall values and need not wait for the exchange.
using FaceMask = unsigned;
constexpr FaceMask kAllFaces = 0x3f;

// How many faces a mask holds.
MPSFW_HD int face_count(FaceMask m) {
  int n = 0;
  for (; m != 0; m &= m - 1) ++n;
  return n;
}

}  // namespace mpsfw
