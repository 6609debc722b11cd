#pragma once
// The Lennard-Jones 12-6 pair style (md.pair_style = lj), cut at r_c and
// shifted to zero energy there: U(r) = 4 eps ((sigma/r)^12 - (sigma/r)^6)
// - U(r_c). A pair style as pair_style.hpp describes it.
#include <vector>

#include "pair_term.hpp"
#include <mpsfw/core/base/hd.hpp>
#include <mpsfw/core/input/params.hpp>

namespace mpsfw::md {

struct LennardJones {
  static constexpr const char* kName = "lj";  // md.pair_style's value
  double epsilon = 1;                         // well depth, energy unit
  double sigma = 1;                           // zero-crossing distance, length unit
  double cutoff = 2.5;                        // r_c, in length units (not in sigma)
  double shift = 0;                           // U(r_c) before shifting

  // U(r), unshifted, for r^2 = r2.
  MPSFW_HD double unshifted(double r2) const {
    const double s2 = sigma * sigma / r2;
    const double s6 = s2 * s2 * s2;
    return 4 * epsilon * (s6 * s6 - s6);
  }
  // f_over_r = -dU/dr / r = 24 eps (2 (sigma/r)^12 - (sigma/r)^6) / r^2 and
  // the shifted energy; zero at and beyond the cutoff.
  MPSFW_HD PairTerm operator()(double r2) const {
    PairTerm t;
    if (r2 >= cutoff * cutoff || r2 <= 0) return t;
    const double inverse_r2 = 1 / r2;  // one division per pair
    const double s2 = sigma * sigma * inverse_r2;
    const double s6 = s2 * s2 * s2;
    t.f_over_r = 24 * epsilon * (2 * s6 * s6 - s6) * inverse_r2;
    t.energy = 4 * epsilon * (s6 * s6 - s6) - shift;
    return t;
  }
};

// The closest two atoms of an input may be, in units of md.sigma: at 0.5
// sigma the force is already about 4e5 epsilon/sigma, so such a file is a
// mistake (two atoms at one position), not a state to integrate.
inline constexpr double kMinSeparationSigma = 0.5;
ClosestApproach closest_approach(const LennardJones& u);

// The style with its energy shift.
LennardJones lennard_jones(double epsilon, double sigma, double cutoff);
// Its input keys (md.epsilon, md.sigma, md.cutoff) and the style they give.
std::vector<ParamSpec> lennard_jones_keys();
LennardJones lennard_jones_from(const Params& p);

}  // namespace mpsfw::md
