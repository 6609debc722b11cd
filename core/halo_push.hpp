#pragma once
// Halo pushes: a rank writes each new boundary value twice, into its own
// field and straight into the halo of the same-GPU neighbour across that face
// (its buffer of the same parity, mapped through CUDA IPC). The update kernel
// that computes the value does the second write, so a step needs no separate
// copy kernel (docs/performance.md: each extra kernel per rank per step costs
// GPU time that does not overlap under MPS).
#include <cstdint>

#include "field_layout.hpp"
#include "hd.hpp"

namespace mpsfw {

struct HaloPushes {
  // Cell (i, j, k) of the send plane of a face lands at
  // base[i * stride[0] + j * stride[1] + k * stride[2]] in the neighbour's
  // field; the stride along the face's normal is 0 (base holds the halo plane).
  struct Target {
    double* base = nullptr;
    std::int64_t stride[3] = {};
    int dim = 0;    // normal of the face
    int plane = 0;  // the send plane's index along dim (1 or n)
  };
  Target face[6];
  FaceMask faces = 0;  // faces with a target

  MPSFW_HD bool empty() const { return faces == 0; }

  MPSFW_HD void store(int f, int i, int j, int k, double v) const {
    const Target& t = face[f];
    t.base[i * t.stride[0] + j * t.stride[1] + k * t.stride[2]] = v;
  }

  // Faces whose send plane holds column (i, j): faces across x or y.
  MPSFW_HD FaceMask column_faces(int i, int j) const {
    FaceMask m = 0;
    for (int f = 0; f < 4; ++f) {
      if (((faces >> f) & 1u) && (face[f].dim == 0 ? i : j) == face[f].plane) m |= 1u << f;
    }
    return m;
  }

  // Pushes the value of cell (i, j, k) to every face whose plane holds it.
  MPSFW_HD void store_cell(int i, int j, int k, double v) const {
    for (int f = 0; f < 6; ++f) {
      if (!((faces >> f) & 1u)) continue;
      const int at = face[f].dim == 0 ? i : (face[f].dim == 1 ? j : k);
      if (at == face[f].plane) store(f, i, j, k, v);
    }
  }

  // A column's first and last cells (k_first, k_last), for the faces across
  // z (4 and 5: ZLo, ZHi) whose planes hold them.
  MPSFW_HD void store_z_ends(int i, int j, int k_first, double first, int k_last,
                             double last) const {
    if (((faces >> 4) & 1u) && k_first == face[4].plane) store(4, i, j, k_first, first);
    if (((faces >> 5) & 1u) && k_last == face[5].plane) store(5, i, j, k_last, last);
  }
};

}  // namespace mpsfw
