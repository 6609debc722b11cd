#include "pair_lj.hpp"

#include <mpsfw/core/base/number_text.hpp>

namespace mpsfw::md {

LennardJones lennard_jones(double epsilon, double sigma, double cutoff) {
  LennardJones u{epsilon, sigma, cutoff, 0};
  u.shift = u.unshifted(cutoff * cutoff);
  return u;
}

ClosestApproach closest_approach(const LennardJones& u) {
  ClosestApproach c;
  c.distance = kMinSeparationSigma * u.sigma;
  const std::string sigmas = exact_number(kMinSeparationSigma) + " sigma";
  c.text =
      sigmas + " = " + exact_number(c.distance) + " (md.sigma = " + exact_number(u.sigma) + ")";
  c.why = "expected every two atoms (and periodic images) at least " + sigmas +
          " apart: overlapping atoms make the Lennard-Jones force blow up";
  return c;
}

std::vector<ParamSpec> lennard_jones_keys() {
  return {
      real_param("md", "epsilon", false, "1", 0, true, "LJ well depth"),
      real_param("md", "sigma", false, "1", 0, true, "LJ length"),
      real_param("md", "cutoff", false, "2.5", 0, true,
                 "pair cutoff (length units); LJ: energy shifted to 0 there"),
  };
}

LennardJones lennard_jones_from(const Params& p) {
  return lennard_jones(p.real("md.epsilon"), p.real("md.sigma"), p.real("md.cutoff"));
}

}  // namespace mpsfw::md
