#pragma once
// A grid workload's fields, declared once: each a name, the array that holds
// its current value (an Array keeps its identity when its contents are
// swapped with another's, as a leapfrog's two levels are) and whether its
// halo is exchanged. A field is state (add), scratch (add_scratch) or
// derived (add_derived): state is written, saved and restored; scratch is an
// array state is computed into and swapped with (explicit Euler's next
// level), never written, saved or required of an input; a derived field is
// computed from the state for each snapshot and written there only. From
// that one declaration come the halo exchange
// (FieldHalos over the layout's halo width), the snapshots (FieldOutput, one
// dataset and one XDMF attribute per field), the checkpoint (every field as
// dataset /<group>/<name>) and the restart (an input that holds those
// datasets, a checkpoint, starts from them on any rank count):
//   fields_.add("u", &a_, Halo::Exchanged);  fields_.add("u_prev", &b_);   (leapfrog)
//   fields_.add("u", &a_, Halo::Exchanged);  fields_.add_scratch("u_next", &c_);   (Euler)
//   if (!fields_.restore(config.input_file)) { ...initial condition... }
//   fields_.connect_halos({space, cuda_aware, run.halo, where, run.halo_sync});
//   each step: fields_.start_halos(); halos().finish(); ...; halos().finish_step()
//   open_output(path)      -> fields_.open_output(path, geometry, "wave")
//   write_output()         -> fields_.write_output(step, time)
//   close_output()         -> fields_.close_output()
//   write_checkpoint(path) -> fields_.write_checkpoint(path, params, step, time)
#include <memory>
#include <string>
#include <vector>

#include <mpsfw/core/comm/field_halos.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

class GridFields {
 public:
  enum class Halo { None, Exchanged };
  enum class Role { State, Scratch, Derived };
  // How the exchanged fields' halos travel (FieldHalos::connect).
  struct HaloSetup {
    Backend space = Backend::Host;  // where the arrays live
    bool cuda_aware_mpi = false;
    HaloTransport mode = HaloTransport::Auto;
    DeviceLocation where;
    HaloSync sync = HaloSync::Auto;
    bool corners = false;  // edges and corners too (27-point stencils)
    PhaseTimers* timers = nullptr;
    PeerMemory* peer_memory = nullptr;  // nullptr: CUDA IPC
  };

  // `group`: the input group of the workload ("wave"); the decomposition
  // outlives this.
  GridFields(const CartDecomposition& decomposition, FieldLayout layout, std::string group);
  ~GridFields();
  GridFields(const GridFields&) = delete;
  GridFields& operator=(const GridFields&) = delete;

  // `field` (laid out as the layout given) holds field `name` from now on;
  // with Halo::Exchanged its halo is exchanged (start_halos), `layout.halo`
  // cells wide. Before connect_halos.
  void add(const std::string& name, Array<double>* field, Halo halo = Halo::None);
  // `field` is scratch: an array a state field may be swapped into (its halo
  // then follows it), never written, saved or required. Before connect_halos.
  void add_scratch(const std::string& name, Array<double>* field);
  // `field` is derived: the caller computes it from the state before each
  // snapshot, which writes it; never saved or required. Before connect_halos.
  void add_derived(const std::string& name, Array<double>* field);
  // A snapshot's fields: the state and derived fields' names, in
  // declaration order.
  std::vector<std::string> names() const;

  // Collective, once, after every field holds its initial values: the
  // exchange of the exchanged fields' halos. A field may be in any declared
  // array's memory when its halo is exchanged (arrays swap contents), so
  // every declared array (scratch too) is a buffer it may be in.
  void connect_halos(const HaloSetup& setup);
  // Starts the exchange of every exchanged field's halo, from the array that
  // holds it now; halos() finishes it (finish, finish_step, quiesce).
  void start_halos();
  FieldHalos& halos();
  const FieldHalos& halos() const;
  // Collective: a whole exchange between steps (start, finish, finish_step),
  // for what reads the halos outside a step (derived fields).
  void exchange_halos();

  // Collective: when `input` holds every state field's dataset
  // (/<group>/<name>, the whole grid), each rank's block of each into its
  // field, halo cells set to `fill`, and true; false when it holds none of
  // them (a fresh start). Some but not all is an InputError naming the
  // missing one.
  bool restore(const std::string& input, double fill = 0);

  // Collective: snapshots of every state and derived field (FieldOutput): the file at `path`
  // and its first frame, a frame, the commit.
  void open_output(const std::string& path, const GridGeometry& geometry, const std::string& solver,
                   long step, double time);
  void write_output(long step, double time);
  void close_output();

  // Collective: a checkpoint at `path` holding `params` (with `overrides`)
  // and every state field (write_grid_checkpoint).
  void write_checkpoint(const std::string& path, const Params& params, long step, double time,
                        const std::vector<std::string>& overrides = {}) const;

 private:
  struct Field {
    std::string name;
    Array<double>* array;
    Halo halo;
    Role role;
  };
  void declare(const Field& field);
  // The fields of role `role`, and the derived ones too when `derived`.
  std::vector<const Field*> of_role(Role role, bool derived = false) const;
  std::vector<const Field*> state() const { return of_role(Role::State); }
  std::vector<const Field*> written() const { return of_role(Role::State, true); }
  std::string dataset_of(const Field& f) const { return "/" + group_ + "/" + f.name; }

  const CartDecomposition& decomposition_;
  FieldLayout layout_;
  std::string group_;
  std::vector<Field> fields_;
  std::unique_ptr<FieldOutput> output_;
  std::unique_ptr<FieldHalos> halos_;
};

}  // namespace mpsfw
