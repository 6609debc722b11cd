#pragma once
// H5MD (h5md.nongnu.org, version 1.1): the HDF5 layout for molecular
// simulation data that MDAnalysis, OVITO and VMD read. This file has what any
// H5MD writer needs: the name that selects it, the /h5md metadata group, and
// time series (H5MD's time-dependent elements: datasets step, time and value
// that grow by one frame a call along their first dimension).
#include <cstdint>
#include <string>
#include <vector>

#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {

// Whether an output file `path` is written as H5MD: its name ends in ".h5md".
bool is_h5md_path(const std::string& path);

// The group /h5md of an H5MD file: version 1.1, the author (the user running
// it) and the creator (mpsfw and its version).
void write_h5md_metadata(hid_t file);

// A time-dependent element `name` of `group`: datasets step (int64 [F]), time
// (float64 [F]) and value ([F] + item_dims, float64 or int64), F = 0 frames.
void create_time_series(hid_t group, const std::string& name,
                        const std::vector<std::uint64_t>& item_dims, bool integer);
// One frame appended to the element: its step, time and item (the product
// of item_dims values, C order). Throws Error naming the element on failure.
void append_time_series(hid_t group, const std::string& name, long step, double time,
                        const double* item);
void append_time_series(hid_t group, const std::string& name, long step, double time,
                        const std::int64_t* item);

}  // namespace mpsfw
