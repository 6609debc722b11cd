#pragma once
// Crossing the periodic box's edge, the same on the host and on a GPU.
#include <cmath>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw {

// Position folded into the periodic box [0, length). Within one box length
// of it (every sane step) this is one add or subtract, exact for the
// neighbour that owns the result; farther is folded too, and the migration
// then reports the particle as having jumped too far.
MPSFW_HD double wrapped(double x, double length) {
  if (x < 0) x += length;
  if (x >= length) x -= length;
  if (x < 0 || x >= length) x -= length * floor(x / length);
  // x = -tiny + length can round to length itself.
  return x >= length ? 0.0 : x;
}

// A particle that left the periodic box through its low face (x < 0) or its high
// face (x >= length), moved by one box length to the image inside. x = -tiny
// would round to length itself, the far face: it becomes the largest double
// below length, so it stays with the rank it was sent to (an error of an ulp).
// A particle more than a box length outside stays outside (migration reports it).
MPSFW_HD double across_periodic_edge(double x, double length) {
  if (x >= 0) return x - length;
  const double inside = x + length;
  return inside == length ? nextafter(length, 0.0) : inside;  // NaN stays NaN
}

}  // namespace mpsfw
