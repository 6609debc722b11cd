#include "grid_fields.hpp"

#include <utility>

#include "grid_state.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/parallel/collective.hpp>

namespace mpsfw {

GridFields::GridFields(const CartDecomposition& decomposition, FieldLayout layout,
                       std::string group)
    : decomposition_(decomposition), layout_(layout), group_(std::move(group)) {}

GridFields::~GridFields() = default;

void GridFields::add(const std::string& name, Array<double>* field, Halo halo) {
  declare({name, field, halo, Role::State});
}

void GridFields::add_scratch(const std::string& name, Array<double>* field) {
  declare({name, field, Halo::None, Role::Scratch});
}

void GridFields::add_derived(const std::string& name, Array<double>* field) {
  declare({name, field, Halo::None, Role::Derived});
}

void GridFields::declare(const Field& field) {
  const std::string& name = field.name;
  if (halos_ != nullptr) throw Error("GridFields: field '" + name + "' added after connect_halos");
  if (field.array == nullptr || field.array->size() != static_cast<size_t>(layout_.size())) {
    throw Error("GridFields: field '" + name + "' is not an array of the declared layout");
  }
  for (const Field& f : fields_) {
    if (f.name == name) throw Error("GridFields: field '" + name + "' is declared twice");
    if (f.array == field.array) {
      throw Error("GridFields: fields '" + f.name + "' and '" + name + "' are the same array");
    }
  }
  fields_.push_back(field);
}

std::vector<const GridFields::Field*> GridFields::of_role(Role role, bool derived) const {
  std::vector<const Field*> out;
  for (const Field& f : fields_) {
    if (f.role == role || (derived && f.role == Role::Derived)) out.push_back(&f);
  }
  return out;
}

void GridFields::connect_halos(const HaloSetup& setup) {
  if (halos_ != nullptr) throw Error("GridFields: connect_halos twice");
  // A block too thin for the halo may be on some ranks only: every rank
  // stops before the collective connect.
  std::string error;
  try {
    PeerMemory& memory = setup.peer_memory != nullptr ? *setup.peer_memory : cuda_ipc_memory();
    halos_ = std::make_unique<FieldHalos>(decomposition_, layout_,
                                          HaloShape{layout_.halo, setup.corners}, setup.space,
                                          setup.cuda_aware_mpi, memory);
    std::vector<double*> buffers;  // a derived field is never swapped with another
    for (const Field& f : fields_) {
      if (f.role != Role::Derived) buffers.push_back(f.array->data());
    }
    for (const Field& f : fields_) {
      if (f.halo == Halo::Exchanged) halos_->add_field<double>(buffers);
    }
    halos_->set_timers(setup.timers);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree_on_error(decomposition_.comm(), error);
  halos_->connect(setup.mode, setup.where, setup.sync);
}

void GridFields::start_halos() {
  std::vector<void*> current;
  for (const Field& f : fields_) {
    if (f.halo == Halo::Exchanged) current.push_back(f.array->data());
  }
  halos().start(current);
}

void GridFields::exchange_halos() {
  start_halos();
  halos().finish();
  halos().finish_step();
}

FieldHalos& GridFields::halos() {
  if (halos_ == nullptr) throw Error("GridFields: halos before connect_halos");
  return *halos_;
}

const FieldHalos& GridFields::halos() const { return const_cast<GridFields*>(this)->halos(); }

std::vector<std::string> GridFields::names() const {
  std::vector<std::string> out;
  for (const Field* f : written()) out.push_back(f->name);
  return out;
}

bool GridFields::restore(const std::string& input, double fill) {
  const std::vector<const Field*> fields = state();
  std::vector<const Field*> missing;
  for (const Field* f : fields) {
    if (!has_grid_dataset(input, dataset_of(*f))) missing.push_back(f);
  }
  if (missing.size() == fields.size()) return false;
  if (!missing.empty()) {
    std::string all;
    for (const Field* f : fields) all += (all.empty() ? "" : ", ") + dataset_of(*f);
    throw InputError(input + ": dataset " + dataset_of(*missing.front()) + " is missing: a " +
                     group_ + " state holds every field (" + all + ")");
  }
  for (const Field* f : fields) {
    const std::vector<double> block =
        read_grid_block(input, dataset_of(*f), decomposition_, layout_, fill);
    f->array->copy_from_host(block.data());
  }
  return true;
}

void GridFields::open_output(const std::string& path, const GridGeometry& geometry,
                             const std::string& solver, long step, double time) {
  output_ = std::make_unique<FieldOutput>(path, decomposition_, geometry, solver, OutputMode::Auto,
                                          names());
  write_output(step, time);
}

void GridFields::write_output(long step, double time) {
  if (!output_) throw Error("GridFields: write_output before open_output");
  std::vector<std::vector<double>> blocks;
  std::vector<const double*> pointers;
  for (const Field* f : written()) blocks.push_back(interior_on_host(*f->array, layout_));
  for (const std::vector<double>& b : blocks) pointers.push_back(b.data());
  output_->write(step, time, pointers);
}

void GridFields::close_output() {
  if (!output_) return;
  output_->commit();
  output_.reset();
}

void GridFields::write_checkpoint(const std::string& path, const Params& params, long step,
                                  double time, const std::vector<std::string>& overrides) const {
  std::vector<SavedField> saved;
  for (const Field* f : state()) {
    saved.push_back({dataset_of(*f), [this, f] { return interior_on_host(*f->array, layout_); }});
  }
  write_grid_checkpoint(path, params, step, time, overrides, decomposition_, saved);
}

}  // namespace mpsfw
