#pragma once
// Whether a program mpsfw did not write is an MPS client: its process, or one
// it started (a shell script's CUDA program), in the client list of a server
// of its GPU's control daemon.
#include <vector>

#include "control.hpp"

namespace mpsfw::mps {

// `root` and every process descended from it, read from /proc.
std::vector<long> process_tree(long root);

// Whether a process of `root`'s tree is a client of a server `control` lists.
bool tree_is_client(const ControlClient& control, long root);

}  // namespace mpsfw::mps
