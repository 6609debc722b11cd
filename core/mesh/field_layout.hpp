#pragma once
// Memory layout of one rank's block of a 3D field with a halo `halo` cells
// wide (1 for a 7-point stencil, 2 for a 4th-order one). Interior cells are
// i in [halo, n.x + halo), likewise j and k; the halo is the `halo` cells
// beyond each side. x is the fastest index, so x rows are contiguous. Rows are
// padded so that every row's first interior cell starts on a 64-byte
// boundary (of doubles; 32 bytes of floats): GPU warps then read and write
// whole 32-byte sectors. With halo 1, interior cells are [1, n] and the halo
// is index 0 and n + 1. An axis may be flat (a 2D grid's z): one cell, no
// halo there (interior [0, 1)), nothing exchanged across it, and
// neighbour_stride() 0 along it, so that a stencil's terms along it read
// the cell itself.
#include <cstdint>

#include "box.hpp"
#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

struct FieldLayout {
  static constexpr std::int64_t kAlignCells = 8;  // 64 bytes of doubles

  Int3 n;                  // interior cells per dimension
  std::int64_t pitch = 0;  // distance between rows (y neighbours)
  std::int64_t first = 0;  // index of cell (0, 0, 0)
  int halo = 1;            // halo cells beyond each side (of every axis that is not flat)
  Int3 h{1, 1, 1};         // halo cells beyond each side, per axis (0 along a flat axis)

  FieldLayout() = default;
  // `flat`: the axes with no halo (each must hold one cell).
  MPSFW_HD explicit FieldLayout(Int3 cells, int halo_cells = 1, Int3 flat = {})
      : n(cells),
        halo(halo_cells),
        h{flat.x ? 0 : halo_cells, flat.y ? 0 : halo_cells, flat.z ? 0 : halo_cells} {
    pitch = (cells.x + 2 * h.x + kAlignCells - 1) / kAlignCells * kAlignCells;
    first = (h.x + kAlignCells - 1) / kAlignCells * kAlignCells - h.x;
  }

  MPSFW_HD std::int64_t stride_y() const { return pitch; }
  MPSFW_HD std::int64_t stride_z() const { return pitch * (n.y + 2 * h.y); }
  MPSFW_HD std::int64_t size() const { return first + stride_z() * (n.z + 2 * h.z); }
  MPSFW_HD std::int64_t index(int i, int j, int k) const {
    return first + i + j * stride_y() + k * stride_z();
  }
  MPSFW_HD Box interior() const { return {h, {n.x + h.x, n.y + h.y, n.z + h.z}}; }
  // Whether axis d is flat.
  MPSFW_HD bool flat(int d) const { return h[d] == 0; }
  MPSFW_HD Int3 flat_axes() const { return {h.x == 0, h.y == 0, h.z == 0}; }
  // The index distance to a cell's neighbour along d: its stride, 0 along a
  // flat axis (the cell is its own neighbour there).
  MPSFW_HD std::int64_t neighbour_stride(int d) const {
    if (flat(d)) return 0;
    return d == 0 ? 1 : (d == 1 ? stride_y() : stride_z());
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
