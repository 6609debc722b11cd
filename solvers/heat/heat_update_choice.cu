// The CUDA update designs of a box without pushes, and the choice between
// them (heat_update_choice.hpp).
#include <algorithm>
#include <array>
#include <limits>

#include "core/cuda_check.hpp"
#include "heat_update.cuh"
#include "heat_update_choice.hpp"
#include "heat_update_pairs.cuh"

namespace mpsfw::heat::gpu {
namespace {

constexpr CudaUpdateDesign kTimedDesigns[] = {
    CudaUpdateDesign::OneCell, CudaUpdateDesign::OneCellShallow, CudaUpdateDesign::Pairs,
    CudaUpdateDesign::PairsPrefetch};

bool is_pair_design(CudaUpdateDesign d) {
  return d == CudaUpdateDesign::Pairs || d == CudaUpdateDesign::PairsPrefetch;
}

void launch(CudaUpdateDesign design, const double* u, double* next, const FieldLayout& layout,
            const Box& box, Coefficients k) {
  switch (design) {
    case CudaUpdateDesign::OneCellShallow:
      launch_update_box<kUpdateBx, kUpdateBy, 2, false>(u, next, layout, box, k);
      return;
    case CudaUpdateDesign::Pairs:
      launch_pair_update<kPairBx, kPairBy, kPairZChunk, 0>(u, next, layout, box, k);
      return;
    case CudaUpdateDesign::PairsPrefetch:
      launch_pair_update<kPairBx, kPairBy, kPairZChunk, kPairPrefetch>(u, next, layout, box, k);
      return;
    case CudaUpdateDesign::Fastest:
    case CudaUpdateDesign::OneCell:
      launch_update_box<kUpdateBx, kUpdateBy, kUpdateZChunk, false>(u, next, layout, box, k);
      return;
  }
}

// Two events, destroyed however the timing ends.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    MPSFW_CUDA_CHECK(cudaEventCreate(&start));
    const cudaError_t e = cudaEventCreate(&stop);
    if (e != cudaSuccess) cudaEventDestroy(start);  // no destructor runs after a throw here
    cuda_check(e, "cudaEventCreate(&stop)", __FILE__, __LINE__);
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

// The median of three timed launches of `design`, after one untimed.
float median_milliseconds(CudaUpdateDesign design, const double* u, double* next,
                          const FieldLayout& layout, const Box& box, Coefficients k) {
  EventPair events;
  launch(design, u, next, layout, box, k);
  std::array<float, 3> ms{};
  for (float& m : ms) {
    MPSFW_CUDA_CHECK(cudaEventRecord(events.start));
    launch(design, u, next, layout, box, k);
    MPSFW_CUDA_CHECK(cudaEventRecord(events.stop));
    MPSFW_CUDA_CHECK(cudaEventSynchronize(events.stop));
    MPSFW_CUDA_CHECK(cudaEventElapsedTime(&m, events.start, events.stop));
  }
  std::sort(ms.begin(), ms.end());
  return ms[1];
}

}  // namespace

bool UpdateChooser::pairs_fit(const double* u, const double* next, const FieldLayout& layout,
                              const Box& box) const {
  return !box.empty() && box.size().x >= 8 && box.size().y >= kPairBy &&
         pairs_aligned(u, next, layout, box);
}

const UpdateChooser::Choice* UpdateChooser::known(const FieldLayout& layout, const Box& box,
                                                  bool pairs_fit) const {
  for (const Choice& c : chosen_) {
    if (c.cells == layout.n && c.box.lo == box.lo && c.box.hi == box.hi &&
        c.pairs_fit == pairs_fit) {
      return &c;
    }
  }
  return nullptr;
}

CudaUpdateDesign UpdateChooser::design_for(const double* u, double* next, const FieldLayout& layout,
                                           const Box& box, Coefficients k) {
  const bool fit = pairs_fit(u, next, layout, box);
  if (wanted_ == CudaUpdateDesign::Fastest) return choose(u, next, layout, box, k, fit);
  if (is_pair_design(wanted_) && !fit) return CudaUpdateDesign::OneCell;
  return wanted_;
}

void UpdateChooser::prepare(const double* u, double* next, const FieldLayout& layout,
                            const Box& box, Coefficients k) {
  if (wanted_ == CudaUpdateDesign::Fastest) {
    choose(u, next, layout, box, k, pairs_fit(u, next, layout, box));
  }
}

void UpdateChooser::update(const double* u, double* next, const FieldLayout& layout, const Box& box,
                           Coefficients k) {
  const CudaUpdateDesign design = design_for(u, next, layout, box, k);
  launch(design, u, next, layout, box, k);
  if (box.cells() >= main_cells_) {
    main_cells_ = box.cells();
    main_design_ = design;
  }
}

// The timing launches write next over the box with the values the update
// writes there anyway: each design gives the same bits.
CudaUpdateDesign UpdateChooser::choose(const double* u, double* next, const FieldLayout& layout,
                                       const Box& box, Coefficients k, bool pairs_fit) {
  if (box.cells() < kTimedBoxCells) return CudaUpdateDesign::OneCell;
  if (const Choice* c = known(layout, box, pairs_fit)) return c->design;
  CudaUpdateDesign best = CudaUpdateDesign::OneCell;
  float best_ms = std::numeric_limits<float>::infinity();
  for (CudaUpdateDesign d : kTimedDesigns) {
    if (is_pair_design(d) && !pairs_fit) continue;
    const float ms = median_milliseconds(d, u, next, layout, box, k);
    if (ms < best_ms) {
      best = d;
      best_ms = ms;
    }
  }
  chosen_.push_back({layout.n, box, pairs_fit, best});
  return best;
}

}  // namespace mpsfw::heat::gpu
