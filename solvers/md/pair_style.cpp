#include "pair_style.hpp"

#include <mpsfw/core/base/error.hpp>

namespace mpsfw::md {

std::vector<ParamSpec> pair_style_keys() {
  std::vector<ParamSpec> keys = {
      text_param("md", "pair_style", false, "lj", {"lj"},
                 "the pair potential: lj (Lennard-Jones 12-6, cut and shifted)"),
  };
  for (ParamSpec& k : lennard_jones_keys()) keys.push_back(std::move(k));
  return keys;
}

PairStyle pair_style_from(const Params& p) {
  const std::string name = p.text("md.pair_style");
  if (name == LennardJones::kName) return lennard_jones_from(p);
  throw InputError(p.value("md.pair_style").origin + ": md.pair_style = " + name +
                   " is no pair style mpsfw knows");
}

double cutoff_of(const PairStyle& style) {
  return std::visit([](const auto& s) { return s.cutoff; }, style);
}

ClosestApproach closest_approach(const PairStyle& style) {
  return std::visit([](const auto& s) { return closest_approach(s); }, style);
}

std::string name_of(const PairStyle& style) {
  return std::visit([](const auto& s) -> std::string { return s.kName; }, style);
}

}  // namespace mpsfw::md
