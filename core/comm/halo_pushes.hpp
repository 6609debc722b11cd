#pragma once
// Halo pushes (FieldHalos' push delivery): the kernel that updates a rank's
// block also writes the new values of its boundary planes straight into the
// halos of its neighbours on the same or a peer GPU (their buffer of the same
// index, mapped through CUDA IPC), so a step needs no separate copy kernel
// (docs/performance.md: each extra kernel per rank per step costs GPU time
// that does not overlap under MPS). One-cell face halos of double fields.
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

struct HaloPushes {
  // The cells of one face's send plane, and where cell (i, j, k) of it lands:
  // base[i * stride[0] + j * stride[1] + k * stride[2]] in the neighbour's
  // field (the stride along the face's normal is 0: base holds the halo plane).
  struct Target {
    Box cells;
    double* base = nullptr;
    std::int64_t stride[3] = {};
  };
  Target face[6];      // by face, XLo XHi YLo YHi ZLo ZHi
  FaceMask faces = 0;  // faces with a target
  // Some target is another GPU's memory: a kernel orders its stores before
  // the step's handshake with a system-wide fence, not a device one.
  bool other_gpu = false;

  MPSFW_HD bool empty() const { return faces == 0; }

  MPSFW_HD void store(int f, int i, int j, int k, double v) const {
    const Target& t = face[f];
    t.base[i * t.stride[0] + j * t.stride[1] + k * t.stride[2]] = v;
  }

  // Cells over all pushed faces, to spread over threads.
  MPSFW_HD std::int64_t cells() const {
    std::int64_t n = 0;
    for (int f = 0; f < 6; ++f) {
      if ((faces >> f) & 1u) n += face[f].cells.cells();
    }
    return n;
  }

  // The first pushed face whose plane holds cell (i, j, k): planes share
  // their edges, and a kernel that also stores the cells into the pusher's own
  // field stores each once, as that face's.
  MPSFW_HD int first_face_holding(int i, int j, int k) const {
    for (int f = 0; f < 6; ++f) {
      const Box& b = face[f].cells;
      if (((faces >> f) & 1u) && i >= b.lo.x && i < b.hi.x && j >= b.lo.y && j < b.hi.y &&
          k >= b.lo.z && k < b.hi.z) {
        return f;
      }
    }
    return -1;
  }

  // Cell t of cells() (faces in order, each plane x fastest): its face and
  // coordinates.
  MPSFW_HD int locate(std::int64_t t, int& i, int& j, int& k) const {
    for (int f = 0; f < 6; ++f) {
      if (!((faces >> f) & 1u)) continue;
      const Box& b = face[f].cells;
      const std::int64_t n = b.cells();
      if (t >= n) {
        t -= n;
        continue;
      }
      const Int3 s = b.size();
      i = b.lo.x + static_cast<int>(t % s.x);
      j = b.lo.y + static_cast<int>((t / s.x) % s.y);
      k = b.lo.z + static_cast<int>(t / (static_cast<std::int64_t>(s.x) * s.y));
      return f;
    }
    return -1;
  }
};

// Where the send plane of `face` of a field laid out as `mine` lands in the
// halo of the neighbour's field `theirs` (layout `peer`) across that face.
HaloPushes::Target push_target(const FieldLayout& mine, int face, const FieldLayout& peer,
                               double* theirs);

}  // namespace mpsfw
