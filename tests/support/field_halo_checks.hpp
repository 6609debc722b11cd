#pragma once
// What a halo exchange of FieldHalos must produce, for the host (MPI) and
// GPU tests alike: every halo cell holds the global cell it mirrors (across
// periodic wraps), cells without a neighbour keep a sentinel, the interior is
// untouched.
#include <string>

#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::testing_support {

inline constexpr double kSentinel = -1.0;

// The value of global cell (X, Y, Z) of field f: exact in float too.
inline double truth(int f, int X, int Y, int Z) {
  return 100000.0 * (f + 1) + X + 40.0 * Y + 1600.0 * Z;
}

struct HaloCase {
  Int3 global;
  std::array<bool, 3> periodic;
  HaloShape shape;
};

// Which global cell halo cell (i, j, k) of this block mirrors, or false when
// it lies beyond a wall or in a direction the shape does not exchange.
inline bool mirrored(const CartDecomposition& d, const FieldLayout& l, const HaloShape& shape,
                     int i, int j, int k, Int3* global) {
  const int ijk[3] = {i, j, k};
  int outside = 0;
  for (int a = 0; a < 3; ++a) {
    int g = d.offset()[a] + ijk[a] - l.halo;
    const int beyond = ijk[a] < l.halo || ijk[a] >= l.n[a] + l.halo;
    outside += beyond;
    if (g < 0 || g >= d.global_cells()[a]) {
      if (!d.periodic(a)) return false;
      g = (g + d.global_cells()[a]) % d.global_cells()[a];
    }
    (*global)[a] = g;
  }
  if (outside == 0) return false;  // interior
  return outside == 1 || shape.corners;
}

// Fills a buffer: interior = truth, halo = sentinel.
template <class T>
void fill(const CartDecomposition& d, const FieldLayout& l, int f, T* u) {
  for (std::int64_t c = 0; c < l.size(); ++c) u[c] = static_cast<T>(kSentinel);
  const Box in = l.interior();
  for (int k = in.lo.z; k < in.hi.z; ++k)
    for (int j = in.lo.y; j < in.hi.y; ++j)
      for (int i = in.lo.x; i < in.hi.x; ++i)
        u[l.index(i, j, k)] = static_cast<T>(truth(
            f, d.offset().x + i - l.halo, d.offset().y + j - l.halo, d.offset().z + k - l.halo));
}

// Failures as text (the first few), so one EXPECT shows what went wrong.
template <class T>
std::string check(const CartDecomposition& d, const FieldLayout& l, const HaloShape& shape, int f,
                  const T* u) {
  std::string problems;
  int count = 0;
  for (int k = 0; k < l.n.z + 2 * l.halo; ++k)
    for (int j = 0; j < l.n.y + 2 * l.halo; ++j)
      for (int i = 0; i < l.n.x + 2 * l.halo; ++i) {
        Int3 g;
        const bool in = i >= l.halo && i < l.n.x + l.halo && j >= l.halo && j < l.n.y + l.halo &&
                        k >= l.halo && k < l.n.z + l.halo;
        double want = kSentinel;
        if (in) {
          want = truth(f, d.offset().x + i - l.halo, d.offset().y + j - l.halo,
                       d.offset().z + k - l.halo);
        } else if (mirrored(d, l, shape, i, j, k, &g)) {
          want = truth(f, g.x, g.y, g.z);
        }
        const double got = static_cast<double>(u[l.index(i, j, k)]);
        if (got != want && count++ < 4) {
          problems += "field " + std::to_string(f) + " cell (" + std::to_string(i) + "," +
                      std::to_string(j) + "," + std::to_string(k) + "): got " +
                      std::to_string(got) + ", want " + std::to_string(want) + "\n";
        }
      }
  return problems;
}

inline const HaloShape kFaces1{1, false}, kFaces2{2, false}, kCorners1{1, true}, kCorners2{2, true};

}  // namespace mpsfw::testing_support
