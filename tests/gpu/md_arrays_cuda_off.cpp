#include "core/backend.hpp"
#include "md_arrays_cuda.hpp"

namespace mpsfw::testing_support {

std::unique_ptr<md::MdStore> make_cuda_arrays_md_store() {
  throw_built_without_cuda("the particle arrays on CUDA");
}

}  // namespace mpsfw::testing_support
