#pragma once
// A binary search a device thread can run (the particle layer's and its
// backends' kernels: hole filling, the cells' starts after a sort).
#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

// The first p < n with sorted[p] >= value (n if none); `sorted` ascending.
template <class T, class V>
MPSFW_HD long first_at_least(const T* sorted, long n, V value) {
  long lo = 0, hi = n;
  while (lo < hi) {
    const long mid = (lo + hi) / 2;
    if (sorted[mid] < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace mpsfw
