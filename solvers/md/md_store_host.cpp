// The atoms of one rank in host memory: MD's store on the particle layer's
// arrays with the host primitives (OpenMP over atoms).
#include "core/particles/host_exec.hpp"
#include "md_arrays_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_host_md_store(const PairStyle& pair) {
  return make_arrays_store<HostExec>(pair);
}

}  // namespace mpsfw::md::detail
