#pragma once
// A particle trajectory in H5MD (core/io/h5md_file.hpp): what
// ParticleTrajectory writes for an output named *.h5md, read by MDAnalysis,
// OVITO and VMD. No unit attributes: the units are the solver's own.
//   /h5md                           version 1.1, author, creator
//   /particles/trajectory/box       attributes dimension = 3, boundary =
//                                   periodic x3; edges: a time series of [3][3]
//                                   (the edge vectors, a diagonal matrix)
//   /particles/trajectory/position  a time series (step, time, value) of [N][3]
//   /particles/trajectory/<field>   each written field the same way, named as
//                                   H5MD names it (velocities: velocity, ids:
//                                   id, forces: force; others as their dataset)
// Every frame holds the same N particles, in the same order (by id where the
// records have one): H5MD's value has one shape for all frames.
#include <string>
#include <vector>

#include "particle_store.hpp"
#include "written_field.hpp"
#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {

// The H5MD element of a written field: "velocities" -> "velocity".
std::string h5md_element_of(const std::string& dataset);

// The file's /h5md group and the box's attributes.
void create_h5md_trajectory(hid_t file);

// Appends frame `frame` (0, 1, ...): the box and every element; frame 0
// creates the elements with N = records.size(). Throws Error when a later
// frame holds another number of particles.
void append_h5md_frame(hid_t file, long frame, long step, double time, const double box[3],
                       const ParticleRecords& records, const std::vector<WrittenField>& fields);

}  // namespace mpsfw
