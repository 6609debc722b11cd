// The CUDA update designs of a box without pushes, and the choice between
// them (heat_update_choice.hpp).
#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "heat_update.cuh"
#include "heat_update_choice.hpp"
#include "heat_update_pairs.cuh"
#include <mpsfw/core/device/cuda_check.hpp>

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

constexpr int kTimedRounds = 5;
// Launches back to back per timing, as the solver's steps run (the tail of one
// overlaps the next one's start).
constexpr int kLaunchesPerTiming = 3;

// kLaunchesPerTiming launches of `design` timed with `events` (synchronously).
float timed_milliseconds(const EventPair& events, CudaUpdateDesign design, const double* u,
                         double* next, const FieldLayout& layout, const Box& box, Coefficients k) {
  MPSFW_CUDA_CHECK(cudaEventRecord(events.start));
  for (int i = 0; i < kLaunchesPerTiming; ++i) launch(design, u, next, layout, box, k);
  MPSFW_CUDA_CHECK(cudaEventRecord(events.stop));
  MPSFW_CUDA_CHECK(cudaEventSynchronize(events.stop));
  float ms = 0;
  MPSFW_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
  return ms;
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
  std::vector<CudaUpdateDesign> designs;
  for (CudaUpdateDesign d : kTimedDesigns) {
    if (pairs_fit || !is_pair_design(d)) designs.push_back(d);
  }
  // Untimed launches first, so that the first design timed does not pay for a
  // GPU still raising its clocks. Then the designs take turns in each round,
  // so drift hits them alike, and the median of each one's rounds decides.
  for (int warm = 0; warm < kLaunchesPerTiming; ++warm) {
    for (CudaUpdateDesign d : designs) launch(d, u, next, layout, box, k);
  }
  EventPair events;
  std::vector<std::array<float, kTimedRounds>> ms(designs.size());
  for (int round = 0; round < kTimedRounds; ++round) {
    for (std::size_t i = 0; i < designs.size(); ++i) {
      ms[i][round] = timed_milliseconds(events, designs[i], u, next, layout, box, k);
    }
  }
  CudaUpdateDesign best = CudaUpdateDesign::OneCell;
  float best_ms = std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < designs.size(); ++i) {
    std::sort(ms[i].begin(), ms[i].end());
    const float median = ms[i][kTimedRounds / 2];
    if (median < best_ms) {
      best = designs[i];
      best_ms = median;
    }
  }
  chosen_.push_back({layout.n, box, pairs_fit, best});
  return best;
}

}  // namespace mpsfw::heat::gpu
