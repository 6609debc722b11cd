#pragma once
// What a pair style gives for one pair, and the one place a pair's distance
// meets the style: every store's pair loops go through with_pair_in_cutoff,
// in list order, so that they agree bit for bit.
#include <string>

#include <mpsfw/core/base/hd.hpp>

namespace mpsfw::md {

// For a pair at distance^2 r2 < r_c^2: F_i = f_over_r * (x_i - x_j), and the
// pair's energy (each pair counted once).
struct PairTerm {
  double f_over_r = 0;
  double energy = 0;
};

// The closest two atoms of an input may start under a style (closer: the
// input is refused), as its message says it ("0.5 sigma = 0.5 (md.sigma =
// 1)"), and why.
struct ClosestApproach {
  double distance = 0;
  std::string text, why;
};

// The pair of an atom at xi with a neighbour at xj (x, y, z each) under
// `style` (a pair style, pair_style.hpp): calls pair(dx, r2, term), dx = xi
// - xj, when they lie within the style's cutoff; nothing beyond it.
template <class Style, class Pair>
MPSFW_HD void with_pair_in_cutoff(const double* xi, const double* xj, const Style& style,
                                  const Pair& pair) {
  const double dx[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
  const double r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
  if (r2 >= style.cutoff * style.cutoff) return;
  pair(dx, r2, style(r2));
}

}  // namespace mpsfw::md
