#pragma once
// Every MPI call is checked; a failure becomes an mpsfw::Error with the call's text.
#include <mpi.h>

#include <string>

#include "error.hpp"

namespace mpsfw {

inline void mpi_check(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(std::string("MPI call failed: ") + call + " (" + file + ":" + std::to_string(line) +
              "): " + std::string(text, static_cast<size_t>(len)));
}

}  // namespace mpsfw

#define MPSFW_MPI_CHECK(call) ::mpsfw::mpi_check((call), #call, __FILE__, __LINE__)
