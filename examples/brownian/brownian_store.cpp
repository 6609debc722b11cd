// The store on every backend the build has: mpsfw_backend_parts compiles this
// file once per backend, each time over that backend's primitives.
#include "brownian_arrays.hpp"
#include <mpsfw/core/particles/backend_part.hpp>

MPSFW_BACKEND_PART(brownian::BrownianArrays, brownian::BrownianStore)
