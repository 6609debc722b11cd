#pragma once
// Initial atoms from the input file (md.initial = dataset):
//   /md/positions   [N][3] numbers (float64; any integer or float type is read
//                   as float64), every atom inside the box: 0 <= x < md.box_x ...
//   /md/velocities  [N][3] numbers, finite
//   /md/ids         [N] integers >= 0, all different (optional; default 0..N-1)
// and no two atoms (periodic images included) closer than the pair style
// allows (closest_approach: LJ 0.5 sigma). Checked with a cell list: O(N).
// Every rank reads the whole datasets and keeps the atoms its subdomain owns.
// A bad file throws InputError naming the file, the dataset path and what was
// expected (the same message on every rank, as every rank reads everything).
#include <optional>
#include <string>
#include <vector>

#include "atom_record.hpp"
#include "md_config.hpp"
#include <mpsfw/core/particles/particle_resume.hpp>
#include <mpsfw/core/particles/subdomain.hpp>

namespace mpsfw::md {

// All N atoms of c.input_file, validated against c.box, in file order.
std::vector<AtomRecord> all_dataset_atoms(const MdConfig& c);

// The atoms of c.input_file that `domain` owns (domain.contains(x)), in file order.
std::vector<AtomRecord> dataset_atoms(const MdConfig& c, const Subdomain& domain);

// This rank's exact-resume state where c.input_file is a checkpoint of this
// layout (/md/resume, core/particles/particle_resume.hpp: the atoms in the
// interrupted run's order at their build positions), its atoms validated as
// a dataset's; nullopt for any other input.
std::optional<ResumeState> md_resume_state(const MdConfig& c, int rank, int ranks,
                                           const ResumeLayout& layout);

// What /md of c.input_file holds that no reader takes (md.initial = dataset):
// a warning line each.
std::vector<std::string> unread_input_datasets(const MdConfig& c);

// N of /md/positions in `file` after checking the datasets' presence, types and
// shapes (not their values). Throws InputError like dataset_atoms.
long dataset_atom_count(const std::string& file);

}  // namespace mpsfw::md
