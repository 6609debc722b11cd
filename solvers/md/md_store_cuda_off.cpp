// A build without CUDA: the CUDA atom store's factory, in place of
// md_store_cuda.cu (core/base/backend.hpp says how builds without CUDA work).
#include "md_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_cuda_md_store(const PairStyle&) {
  throw_built_without_cuda("md on the CUDA backend");
}

}  // namespace mpsfw::md::detail
