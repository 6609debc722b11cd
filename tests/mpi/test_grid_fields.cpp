// GridFields (core/grid/grid_fields.hpp): fields declared once give the checkpoint
// and the restart. A checkpoint written on all ranks restores on one rank and
// on all, every cell in place and the halo at its fill value; an input with
// none of the datasets is a fresh start; one with some is an InputError
// naming the missing dataset; a snapshot holds every declared state field;
// a scratch field is in none of them, and a state field swapped into it
// keeps its halo exchange.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/mpi_temp_dir.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/grid/grid_fields.hpp>
#include <mpsfw/core/grid/grid_state.hpp>
#include <mpsfw/core/input/run_config.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {
namespace {

constexpr Int3 kCells{7, 6, 5};

double code(int field, int i, int j, int k) { return field * 1000.0 + i + 10.0 * j + 100.0 * k; }

// A field of `layout` holding code(field) at its interior cells, -1 in the halo.
Array<double> coded(const CartDecomposition& d, const FieldLayout& layout, int field) {
  std::vector<double> host(static_cast<size_t>(layout.size()), -1.0);
  const Int3 n = d.local_cells(), o = d.offset();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        host[static_cast<size_t>(layout.index(i + 1, j + 1, k + 1))] =
            code(field, o.x + i, o.y + j, o.z + k);
      }
  Array<double> a(Backend::Host, host.size());
  a.copy_from_host(host.data());
  return a;
}

// Cells of `a` that are not code(field) inside or `fill` in the halo.
long wrong_cells(const Array<double>& a, const CartDecomposition& d, const FieldLayout& layout,
                 int field, double fill) {
  std::vector<double> host(a.size());
  a.copy_to_host(host.data());
  const Int3 n = d.local_cells(), o = d.offset();
  long wrong = 0;
  for (int k = 0; k < n.z + 2; ++k)
    for (int j = 0; j < n.y + 2; ++j)
      for (int i = 0; i < n.x + 2; ++i) {
        const bool inside = i >= 1 && i <= n.x && j >= 1 && j <= n.y && k >= 1 && k <= n.z;
        const double want = inside ? code(field, o.x + i - 1, o.y + j - 1, o.z + k - 1) : fill;
        wrong += host[static_cast<size_t>(layout.index(i, j, k))] != want;
      }
  return wrong;
}

Params checkpoint_params() {
  Params p(input_schema({"toy"}, {}));
  for (const char* o : {"solver=toy", "run.steps=9"}) p.apply_override(o);
  p.finalize();
  return p;
}

// The ranks of the world below `ranks` (MPI_COMM_NULL on the others).
MPI_Comm first_ranks(int ranks) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, me < ranks ? 0 : MPI_UNDEFINED, me, &sub);
  return sub;
}

// Fields u and v of the toy group on every rank, holding code(1) and code(2).
struct CodedFields {
  CartDecomposition d{MPI_COMM_WORLD, kCells, {}, {false, false, false}};
  FieldLayout layout{d.local_cells()};
  Array<double> u = coded(d, layout, 1), v = coded(d, layout, 2);
  GridFields fields{d, layout, "toy"};
  CodedFields() {
    fields.add("u", &u);
    fields.add("v", &v);
  }
};

TEST(GridFields, ACheckpointRestoresOnOneRankAndOnAll) {
  const std::string dir = testing_support::make_shared_temp_dir("grid_fields");
  const std::string path = dir + "/ck.h5";
  {
    CodedFields all;
    EXPECT_FALSE(all.fields.restore(""));  // no input file: a fresh start
    all.fields.write_checkpoint(path, checkpoint_params(), 3, 0.25);
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const int ranks : {1, size}) {
    MPI_Comm comm = first_ranks(ranks);
    if (comm != MPI_COMM_NULL) {
      CartDecomposition d(comm, kCells, {}, {false, false, false});
      const FieldLayout layout(d.local_cells());
      Array<double> u(Backend::Host, static_cast<size_t>(layout.size()));
      Array<double> v(Backend::Host, static_cast<size_t>(layout.size()));
      GridFields fields(d, layout, "toy");
      fields.add("u", &u);
      fields.add("v", &v);
      ASSERT_TRUE(fields.restore(path, 7.0));
      EXPECT_EQ(wrong_cells(u, d, layout, 1, 7.0), 0) << "u on " << ranks << " rank(s)";
      EXPECT_EQ(wrong_cells(v, d, layout, 2, 7.0), 0) << "v on " << ranks << " rank(s)";
      // A declaration the checkpoint holds only part of.
      Array<double> w(Backend::Host, static_cast<size_t>(layout.size()));
      GridFields more(d, layout, "toy");
      more.add("u", &u);
      more.add("w", &w);
      try {
        more.restore(path);
        ADD_FAILURE() << "a checkpoint without /toy/w restored";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path + ": dataset /toy/w is missing"),
                  std::string::npos)
            << e.what();
      }
      MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  testing_support::remove_shared_temp_dir(dir);
}

TEST(GridFields, ASnapshotHoldsEveryDeclaredField) {
  const std::string dir = testing_support::make_shared_temp_dir("grid_fields_out");
  const std::string path = dir + "/out.h5";
  {
    CodedFields all;
    all.fields.open_output(path, GridGeometry{}, "toy", 0, 0.0);
    all.fields.write_output(4, 1.0);
    all.fields.close_output();
  }
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    h5::Handle f = h5::open_file_readonly(path);
    for (const char* name : {"/u/00000000", "/u/00000004", "/v/00000000", "/v/00000004"}) {
      const std::vector<double> all = h5::read_all_doubles(f.get(), name);
      ASSERT_EQ(all.size(), static_cast<size_t>(kCells.product())) << name;
      const int field = name[1] == 'u' ? 1 : 2;
      EXPECT_EQ(all[static_cast<size_t>(((4 * 6) + 5) * 7 + 6)], code(field, 6, 5, 4)) << name;
    }
  }
  testing_support::remove_shared_temp_dir(dir);
}

// Face halo cells of `a` (one coordinate outside the block) that do not hold
// code(field) of the neighbour's cell where the box has one, -1 elsewhere.
long wrong_face_halos(const Array<double>& a, const CartDecomposition& d, const FieldLayout& layout,
                      int field) {
  std::vector<double> host(a.size());
  a.copy_to_host(host.data());
  const Int3 n = d.local_cells(), o = d.offset();
  long wrong = 0;
  for (int k = 0; k < n.z + 2; ++k)
    for (int j = 0; j < n.y + 2; ++j)
      for (int i = 0; i < n.x + 2; ++i) {
        const int outside =
            (i == 0 || i == n.x + 1) + (j == 0 || j == n.y + 1) + (k == 0 || k == n.z + 1);
        if (outside != 1) continue;
        const Int3 g{o.x + i - 1, o.y + j - 1, o.z + k - 1};
        const bool in_box =
            g.x >= 0 && g.x < kCells.x && g.y >= 0 && g.y < kCells.y && g.z >= 0 && g.z < kCells.z;
        const double want = in_box ? code(field, g.x, g.y, g.z) : -1.0;
        wrong += host[static_cast<size_t>(layout.index(i, j, k))] != want;
      }
  return wrong;
}

// A field declared exchanged gets its halo from the neighbours' cells, in
// whichever declared array holds it (after the arrays swap contents too);
// one that is not keeps its halo.
TEST(GridFields, ADeclaredHaloIsExchangedInWhicheverArrayHoldsIt) {
  CartDecomposition d{MPI_COMM_WORLD, kCells, {}, {false, false, false}};
  const FieldLayout layout{d.local_cells()};
  Array<double> u = coded(d, layout, 1), v = coded(d, layout, 2);
  GridFields fields{d, layout, "toy"};
  fields.add("u", &u, GridFields::Halo::Exchanged);
  fields.add("v", &v);
  fields.connect_halos({});
  fields.start_halos();
  fields.halos().finish();
  fields.halos().finish_step();
  EXPECT_EQ(wrong_face_halos(u, d, layout, 1), 0);
  EXPECT_EQ(wrong_cells(v, d, layout, 2, -1.0), 0) << "v is not exchanged";
  // u now lives in the other array: its halo still follows it.
  u.swap(v);
  fields.start_halos();
  fields.halos().finish();
  fields.halos().finish_step();
  EXPECT_EQ(wrong_face_halos(u, d, layout, 2), 0) << "u after the swap holds code(2)";
  fields.halos().quiesce();
}

// Explicit Euler's next level: u (state, exchanged) is computed into the
// scratch array and swapped with it. The checkpoint and the snapshot hold u
// only, a checkpoint restores without the scratch's dataset, and after the
// swap u's halo is exchanged in the scratch's array.
TEST(GridFields, AScratchFieldIsNeverWrittenOrRequiredAndTakesTheHaloWhenSwapped) {
  const std::string dir = testing_support::make_shared_temp_dir("grid_fields_scratch");
  CartDecomposition d{MPI_COMM_WORLD, kCells, {}, {false, false, false}};
  const FieldLayout layout{d.local_cells()};
  Array<double> u = coded(d, layout, 1), next = coded(d, layout, 2);
  GridFields fields{d, layout, "toy"};
  fields.add("u", &u, GridFields::Halo::Exchanged);
  fields.add_scratch("u_next", &next);
  EXPECT_EQ(fields.names(), std::vector<std::string>{"u"});
  fields.write_checkpoint(dir + "/ck.h5", checkpoint_params(), 3, 0.25);
  fields.open_output(dir + "/out.h5", GridGeometry{}, "toy", 0, 0.0);
  fields.close_output();
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0) {
    EXPECT_TRUE(has_grid_dataset(dir + "/ck.h5", "/toy/u"));
    EXPECT_FALSE(has_grid_dataset(dir + "/ck.h5", "/toy/u_next")) << "a scratch field was saved";
    h5::Handle f = h5::open_file_readonly(dir + "/out.h5");
    EXPECT_TRUE(h5::has_group(f.get(), "/u"));
    EXPECT_FALSE(h5::has_group(f.get(), "/u_next")) << "a scratch field was written";
  }
  {
    Array<double> u2(Backend::Host, static_cast<size_t>(layout.size()));
    Array<double> scratch(Backend::Host, static_cast<size_t>(layout.size()));
    GridFields again{d, layout, "toy"};
    again.add("u", &u2);
    again.add_scratch("u_next", &scratch);
    ASSERT_TRUE(again.restore(dir + "/ck.h5", 7.0)) << "the scratch's dataset was required";
    EXPECT_EQ(wrong_cells(u2, d, layout, 1, 7.0), 0);
  }
  fields.connect_halos({});
  u.swap(next);
  fields.start_halos();
  fields.halos().finish();
  fields.halos().finish_step();
  EXPECT_EQ(wrong_face_halos(u, d, layout, 2), 0) << "u, swapped into the scratch array";
  fields.halos().quiesce();
  MPI_Barrier(MPI_COMM_WORLD);
  testing_support::remove_shared_temp_dir(dir);
}

}  // namespace
}  // namespace mpsfw
