#pragma once
// Which design the CUDA backend updates a box without pushes with. Every
// design gives the same bits (heat_physics.hpp); which is fastest depends on
// the GPU and the box (at 512^3 the two x cells per thread won on one GPU
// model and one cell per thread on another; docs/performance.md). So by
// default the backend
// times the designs that fit once per box (the heat solver before its first
// step: prepare) and keeps the fastest.
#include <cstdint>
#include <string>
#include <vector>

#include "heat_physics.hpp"
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw::heat {

enum class CudaUpdateDesign {
  Fastest,         // the fastest of those below that fit the box, timed once per box
  OneCell,         // one cell per thread, 64 x 4 threads, 8 cells deep along z
  OneCellShallow,  // the same, 2 cells deep: more, shorter threads
  Pairs,           // two x cells per thread, 32 x 16 threads, 8 deep (aligned boxes)
  PairsPrefetch,   // the same, plane k + 4 prefetched into L2 while plane k is updated
};

// Short names, as bench/heat_bandwidth prints them.
inline std::string design_name(CudaUpdateDesign design) {
  switch (design) {
    case CudaUpdateDesign::Fastest:
      return "fastest";
    case CudaUpdateDesign::OneCell:
      return "one-cell 64x4 z8";
    case CudaUpdateDesign::OneCellShallow:
      return "one-cell 64x4 z2";
    case CudaUpdateDesign::Pairs:
      return "pairs 32x16 z8";
    case CudaUpdateDesign::PairsPrefetch:
      return "pairs-l2+4 32x16 z8";
  }
  return "unknown";
}

namespace gpu {

// Boxes smaller than this (128^3) update one cell per thread without timing:
// their launches are too short to time against each other.
constexpr std::int64_t kTimedBoxCells = std::int64_t{1} << 21;

// Updates boxes with the wanted design, or by default with the fastest; a
// pair design where pairs do not fit (unaligned or narrow boxes) falls back
// to one cell per thread. Remembers the choice per box and layout.
class UpdateChooser {
 public:
  explicit UpdateChooser(CudaUpdateDesign wanted) : wanted_(wanted) {}

  // next = one FTCS step of u over `box` (one launch, on the default stream;
  // a box's first update with Fastest also times each design, synchronously:
  // rounds in which the designs take turns, the median of each one's rounds).
  void update(const double* u, double* next, const FieldLayout& layout, const Box& box,
              Coefficients k);
  // With Fastest, times the designs for `box` now if update() would on its
  // first call (the launches write next over the box).
  void prepare(const double* u, double* next, const FieldLayout& layout, const Box& box,
               Coefficients k);
  // The design of the largest box updated so far (Fastest before any): the
  // one that sets the speed.
  CudaUpdateDesign main_design() const { return main_design_; }

 private:
  struct Choice {
    Int3 cells;  // the layout's
    Box box;
    bool pairs_fit;
    CudaUpdateDesign design;
  };
  CudaUpdateDesign design_for(const double* u, double* next, const FieldLayout& layout,
                              const Box& box, Coefficients k);
  bool pairs_fit(const double* u, const double* next, const FieldLayout& layout,
                 const Box& box) const;
  const Choice* known(const FieldLayout& layout, const Box& box, bool pairs_fit) const;
  CudaUpdateDesign choose(const double* u, double* next, const FieldLayout& layout, const Box& box,
                          Coefficients k, bool pairs_fit);

  CudaUpdateDesign wanted_;
  CudaUpdateDesign main_design_ = CudaUpdateDesign::Fastest;
  std::int64_t main_cells_ = -1;
  std::vector<Choice> chosen_;
};

}  // namespace gpu
}  // namespace mpsfw::heat
