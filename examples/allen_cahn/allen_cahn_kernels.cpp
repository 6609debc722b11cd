// The kernels on every backend the build has: mpsfw_backend_parts compiles
// this file once per backend.
#include "allen_cahn_kernels.hpp"

#include <mpsfw/core/particles/backend_part.hpp>

MPSFW_BACKEND_PART_WITH(allen_cahn::Kernels, mpsfw::GridKernels, allen_cahn::Coefficients)
