#pragma once
// Parameters written back as an input file's attributes: every key of the
// schema as a typed scalar attribute of its group (root for group ""). What
// mkinput writes, and the first half of every checkpoint.
#include <hdf5.h>

#include "params.hpp"

namespace mpsfw {

// Into the open file `file`, creating the groups.
void write_param_attributes(hid_t file, const Params& params);

}  // namespace mpsfw
