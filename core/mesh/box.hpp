#pragma once
// Integer 3-vectors and half-open index boxes, usable in kernels.
#include <cstdint>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

struct Int3 {
  int x = 0, y = 0, z = 0;
  MPSFW_HD int operator[](int d) const { return d == 0 ? x : (d == 1 ? y : z); }
  MPSFW_HD int& operator[](int d) { return d == 0 ? x : (d == 1 ? y : z); }
  MPSFW_HD std::int64_t product() const { return static_cast<std::int64_t>(x) * y * z; }
  friend bool operator==(const Int3& a, const Int3& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
  }
};

// Cells [lo, hi) in each dimension; empty when any hi <= lo.
struct Box {
  Int3 lo, hi;
  MPSFW_HD bool empty() const { return hi.x <= lo.x || hi.y <= lo.y || hi.z <= lo.z; }
  MPSFW_HD Int3 size() const { return {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}; }
  MPSFW_HD std::int64_t cells() const { return empty() ? 0 : size().product(); }
};

}  // namespace mpsfw
