#pragma once
// MD's pair styles, the seam a new potential plugs into. A pair style is a
// small copyable type with
//   kName                                          its md.pair_style value
//   double cutoff;                                 r_c, length units
//   MPSFW_HD PairTerm operator()(double r2) const; the pair at r^2 = r2 < r_c^2
//                                                  (pair_term.hpp)
// and its input keys and closest approach (pair_lj.hpp); every backend's force, energy and virial
// loops run it (MdArraysStore<Exec, Style>). A new style is a file pair (pair_lj.hpp and
// pair_lj.cpp are the first) plus its name below: the variant's alternative
// and a line in pair_style.cpp.
#include <string>
#include <variant>
#include <vector>

#include "pair_lj.hpp"
#include <mpsfw/core/input/params.hpp>

namespace mpsfw::md {

using PairStyle = std::variant<LennardJones>;

// md.pair_style and every style's keys.
std::vector<ParamSpec> pair_style_keys();
// The style md.pair_style names, from its keys.
PairStyle pair_style_from(const Params& p);
// Its cutoff, the closest two atoms of an input may be, and its name as
// md.pair_style spells it.
double cutoff_of(const PairStyle& style);
ClosestApproach closest_approach(const PairStyle& style);
std::string name_of(const PairStyle& style);

}  // namespace mpsfw::md
