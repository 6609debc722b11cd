#pragma once
// A host MD store whose ghost positions live in this rank's part of a shared
// window, as a GPU store's live in its device array that other ranks map
// (CUDA IPC): neighbours push straight into it (MdStore::push_sends writes
// into theirs), and the window's ghosts are taken into the host store before
// lists are built and forces computed (the one step a device array does not
// need). Everything else is the host store's. For tests of the same-GPU ghost
// path without a GPU (shared_window_memory.hpp stands in for CUDA IPC).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/solvers/md/md_store.hpp>

namespace mpsfw::testing_support {

class WindowedHostStore final : public md::MdStore {
 public:
  // `window`: this rank's part of the shared window, 3 doubles per slot,
  // `slots` slots (owned atoms and ghosts).
  // forces under `pair`.
  WindowedHostStore(double* window, long slots, const md::PairStyle& pair)
      : host_(md::make_md_store(Backend::Host, pair)), window_(window), slots_(slots) {}

  long owned() const override { return host_->owned(); }
  long ghosts() const override { return ghosts_; }
  Backend space() const override { return Backend::Host; }
  double bytes_for(double owned, double ghosts, double neighbours) const override {
    return host_->bytes_for(owned, ghosts, neighbours);
  }
  void assign(const std::vector<md::AtomRecord>& atoms) override {
    host_->assign(atoms);
    ghosts_ = 0;
  }
  std::vector<md::AtomRecord> download() const override { return host_->download(); }
  void assign_records(const ParticleRecords& records) override {
    host_->assign_records(records);
    ghosts_ = 0;
  }
  ParticleRecords download_records() const override { return host_->download_records(); }
  std::vector<WrittenField> written_fields() const override { return host_->written_fields(); }
  void restore_owned_positions(const std::vector<double>& x) override {
    host_->restore_owned_positions(x);
  }
  std::vector<double> download_forces() const override { return host_->download_forces(); }
  void kick(double half_dt, double mass) override { host_->kick(half_dt, mass); }
  void kick_drift(double half_dt, double dt, double mass) override {
    host_->kick_drift(half_dt, dt, mass);
  }
  void scale_velocities(double factor) override { host_->scale_velocities(factor); }
  void take_leaving_atoms(const double lo[3], const double hi[3],
                          std::vector<md::AtomRecord>* leaving) override {
    host_->take_leaving_atoms(lo, hi, leaving);
    ghosts_ = 0;
  }
  void add_owned_atoms(const std::vector<md::AtomRecord>& atoms) override {
    host_->add_owned_atoms(atoms);
    ghosts_ = 0;
  }
  long fold_periodic(const bool fold[3], const double box[3]) override {
    ghosts_ = 0;
    return host_->fold_periodic(fold, box);
  }
  void sort_by_cell(const CellGrid& grid) override {
    host_->sort_by_cell(grid);
    ghosts_ = 0;
  }

  void clear_ghosts() override {
    host_->clear_ghosts();
    ghosts_ = 0;
  }
  void select_sends(const GhostBands& bands, long counts[kNeighbours]) override {
    host_->select_sends(bands, counts);
    std::copy(counts, counts + kNeighbours, counts_);
  }
  void pack_sends(std::uint32_t lists, double* out) override { host_->pack_sends(lists, out); }
  void reserve_ghosts(long count) override { make_slots(count); }
  void unpack_ghosts(const double* in, long first, long count) override {
    make_slots(first + count);
    std::copy(in + 3 * first, in + 3 * (first + count), ghost(first));
  }
  void copy_sends_to_ghosts(std::uint32_t lists, const long first[kNeighbours]) override {
    own_lists_ = lists;
    std::copy(first, first + kNeighbours, own_first_);
    for (int list = 0; list < kNeighbours; ++list) {
      if (!(lists >> list & 1u)) continue;
      make_slots(first[list] + counts_[list]);
      pack_list(list, ghost(first[list]));
    }
  }
  void refresh_own_images() override { copy_sends_to_ghosts(own_lists_, own_first_); }

  const void* positions_base() const override { return window_; }
  long positions_generation() const override { return 1; }  // the window never moves
  void push_sends(int list, void* target, long slot) override {
    pack_list(list, static_cast<double*>(target) + 3 * slot);
  }
  void synchronize() override {}

  void build_neighbors(const CellGrid& grid, double reach) override {
    take_in_ghosts();
    host_->build_neighbors(grid, reach);
  }
  double max_displacement() const override { return host_->max_displacement(); }
  std::vector<double> download_build_positions() const override {
    return host_->download_build_positions();
  }
  void compute_forces() override {
    take_in_ghosts();
    host_->compute_forces();
  }
  md::ForceSums pair_sums() const override { return host_->pair_sums(); }
  md::MotionSums motion(double mass) const override { return host_->motion(mass); }

 private:
  double* ghost(long slot) { return window_ + 3 * (owned() + slot); }
  void make_slots(long count) {
    if (owned() + count > slots_) throw Error("WindowedHostStore: the window is too small");
    ghosts_ = std::max(ghosts_, count);
  }
  // List `list`'s positions (shift applied) into `out`.
  void pack_list(int list, double* out) { host_->pack_sends(std::uint32_t{1} << list, out); }
  // The window's ghosts (pushed, received or copied) into the host store.
  void take_in_ghosts() { host_->unpack_ghosts(ghost(0), 0, ghosts_); }

  std::unique_ptr<md::MdStore> host_;
  double* window_;
  long slots_;
  long ghosts_ = 0;
  long counts_[kNeighbours] = {};
  std::uint32_t own_lists_ = 0;  // the last copy_sends_to_ghosts, for refresh_own_images
  long own_first_[kNeighbours] = {};
};

}  // namespace mpsfw::testing_support
