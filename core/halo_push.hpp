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
    int plane = 0;  // the send plane's index along the face's normal (1 or n)
  };
  Target face[6];      // by face, XLo XHi YLo YHi ZLo ZHi (normal: face / 2)
  FaceMask faces = 0;  // faces with a target

  MPSFW_HD bool empty() const { return faces == 0; }

  MPSFW_HD void store(int f, int i, int j, int k, double v) const {
    const Target& t = face[f];
    t.base[i * t.stride[0] + j * t.stride[1] + k * t.stride[2]] = v;
  }

  // Whether any cell of column (i, j) between k0 and k_end (exclusive) lies
  // on a pushed face's plane. Cheap: kernels ask it for every column.
  MPSFW_HD bool touches_column(int i, int j, int k0, int k_end) const {
    if (faces == 0) return false;
    for (int f = 0; f < 6; ++f) {
      if (!((faces >> f) & 1u)) continue;
      const int d = f / 2, plane = face[f].plane;
      if (d == 0 ? i == plane : (d == 1 ? j == plane : (k0 <= plane && plane < k_end))) {
        return true;
      }
    }
    return false;
  }

  // Pushes the value of cell (i, j, k) to every face whose plane holds it.
  MPSFW_HD void store_cell(int i, int j, int k, double v) const {
    for (int f = 0; f < 6; ++f) {
      if (!((faces >> f) & 1u)) continue;
      const int at = f < 2 ? i : (f < 4 ? j : k);
      if (at == face[f].plane) store(f, i, j, k, v);
    }
  }
};

}  // namespace mpsfw
