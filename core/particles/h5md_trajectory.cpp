#include "h5md_trajectory.hpp"

#include <cstdint>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/io/h5md_file.hpp>

namespace mpsfw {

namespace {

const char* const kParticles = "/particles/trajectory";

}  // namespace

std::string h5md_element_of(const std::string& dataset) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"positions", "position"}, {"velocities", "velocity"}, {"forces", "force"}, {"ids", "id"},
      {"masses", "mass"},        {"charges", "charge"},      {"images", "image"}};
  for (const auto& [plural, element] : kNames) {
    if (dataset == plural) return element;
  }
  return dataset;
}

void create_h5md_trajectory(hid_t file) {
  write_h5md_metadata(file);
  h5::Handle particles = h5::create_group(file, "particles");
  h5::Handle group = h5::create_group(particles.get(), "trajectory");
  h5::Handle box = h5::create_group(group.get(), "box");
  h5::write_attribute(box.get(), "dimension", std::int64_t{3});
  h5::write_attribute(box.get(), "boundary",
                      std::vector<std::string>{"periodic", "periodic", "periodic"});
}

void append_h5md_frame(hid_t file, long frame, long step, double time, const double box[3],
                       const ParticleRecords& records, const std::vector<WrittenField>& fields) {
  h5::Handle group = h5::open_group(file, kParticles);
  h5::Handle box_group = h5::open_group(group.get(), "box");
  const std::uint64_t n = records.size();
  if (frame == 0) {
    create_time_series(box_group.get(), "edges", {3, 3}, false);
    create_time_series(group.get(), "position", field_dims(n, 3), false);
    for (const WrittenField& f : fields) {
      create_time_series(group.get(), h5md_element_of(f.dataset), field_dims(n, f.components),
                         f.integer);
    }
  } else {
    const h5::DatasetInfo first = h5::dataset_info(group.get(), "position/value");
    if (first.dims.size() > 1 && first.dims[1] != n) {
      throw Error("H5MD keeps the same particles in every frame: frame 0 has " +
                  std::to_string(first.dims[1]) + ", step " + std::to_string(step) + " has " +
                  std::to_string(n) + " (write a .h5 trajectory instead)");
    }
  }
  // The box as its three edge vectors (a diagonal matrix): H5MD allows a
  // vector for a cuboid too, but readers (MDAnalysis before 2.8) take the matrix only.
  const double edges[9] = {box[0], 0, 0, 0, box[1], 0, 0, 0, box[2]};
  append_time_series(box_group.get(), "edges", step, time, edges);
  append_time_series(group.get(), "position", step, time, records.column<double>(0, 3).data());
  for (const WrittenField& f : fields) {
    with_field_column(records, f, [&](const auto& column) {
      append_time_series(group.get(), h5md_element_of(f.dataset), step, time, column.data());
    });
  }
}

}  // namespace mpsfw
