// The atoms of one rank in host memory: MD's store on the particle layer's
// arrays with the host primitives (OpenMP over atoms).
#include "core/particles/host_exec.hpp"
#include "md_arrays_store.hpp"

namespace mpsfw::md::detail {

std::unique_ptr<MdStore> make_host_md_store() {
  return std::make_unique<MdArraysStore<HostExec>>();
}

}  // namespace mpsfw::md::detail
