#pragma once
// Every MPI call is checked; a failure becomes an mpsfw::Error with the call's text.
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

// An element count for an MPI call, whose counts are int: a larger one is
// refused with an Error naming `what` the call carries and `way_out`
// ("use more ranks") instead of wrapping. Plain strings: checked on every
// message of a step, the text is built only when it is thrown.
inline int mpi_count(std::int64_t n, const char* what, const char* way_out) {
  if (n < 0 || n > INT_MAX) {
    throw Error(std::string(what) + ": " + std::to_string(n) +
                " elements in one MPI call, more than its " + std::to_string(INT_MAX) + "; " +
                way_out);
  }
  return static_cast<int>(n);
}

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
