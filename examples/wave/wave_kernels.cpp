// The wave example's kernels written once, over the framework's grid loops
// (mpsfw/core/grid/grid_loops.hpp) on a backend's primitives (Exec: the host's
// OpenMP, CUDA, Kokkos). CMake's mpsfw_backend_parts compiles this file once
// per backend the build has.
#include <cmath>
#include <cstdint>
#include <vector>

#include <mpsfw/core/grid/grid_loops.hpp>
#include <mpsfw/core/particles/backend_part.hpp>

#include "wave_model.hpp"

namespace wave {

template <class Exec>
class WaveKernels final : public mpsfw::GridKernelsOn<Exec> {
 public:
  explicit WaveKernels(const Coefficients& k) : k_(k) {}

  // u^{n-1} is read and written at the same cell only, by the same thread:
  // u^{n+1} overwrites it in place.
  void update(const mpsfw::GridArrays& a, const mpsfw::Box& cells) override {
    const double* u = a.field[kU];
    double* u_prev = a.field[kUPrev];
    const std::int64_t sy = a.layout.neighbour_stride(1), sz = a.layout.neighbour_stride(2);
    const Coefficients k = k_;
    mpsfw::for_each_cell(
        exec, a.layout, cells, MPSFW_LAMBDA(std::int64_t c, int, int, int) {
          u_prev[c] = leapfrog_cell(u, u_prev, c, sy, sz, k);
        });
  }

 private:
  using mpsfw::GridKernelsOn<Exec>::exec;
  Coefficients k_;
};

}  // namespace wave

MPSFW_BACKEND_PART_WITH(wave::WaveKernels, mpsfw::GridKernels, wave::Coefficients)
