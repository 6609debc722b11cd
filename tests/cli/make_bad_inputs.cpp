// make_bad_inputs: writes deliberately broken heat and MD input files for the
// process-level tests in bad_inputs.sh.
//   make_bad_inputs OUTDIR          write every file into OUTDIR (must exist)
//   make_bad_inputs --list          print "<file> <what is wrong with it>" lines
// mkinput refuses to write a file it cannot validate, so the broken files are
// written here directly with HDF5, the way another program (or a careless
// script) might. Each file is a small valid input (good.h5) with one thing
// changed, so the solver's error can only come from that one change.
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/io/h5_io.hpp>

namespace {

using namespace mpsfw;

struct Attr {
  enum class Kind { Integer, Real, Text, IntegerArray };
  std::string group;  // "" for the root group
  std::string key;
  Kind kind = Kind::Integer;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
  std::vector<std::int64_t> array;
};

Attr integer(const std::string& g, const std::string& k, std::int64_t v) {
  Attr a;
  a.group = g;
  a.key = k;
  a.kind = Attr::Kind::Integer;
  a.integer = v;
  return a;
}
Attr real(const std::string& g, const std::string& k, double v) {
  Attr a;
  a.group = g;
  a.key = k;
  a.kind = Attr::Kind::Real;
  a.real = v;
  return a;
}
Attr text(const std::string& g, const std::string& k, const std::string& v) {
  Attr a;
  a.group = g;
  a.key = k;
  a.kind = Attr::Kind::Text;
  a.text = v;
  return a;
}
Attr integer_array(const std::string& g, const std::string& k, std::vector<std::int64_t> v) {
  Attr a;
  a.group = g;
  a.key = k;
  a.kind = Attr::Kind::IntegerArray;
  a.array = std::move(v);
  return a;
}

// What goes into one file: attributes, an optional /heat/u0 of any shape, and
// extra groups the schema does not know.
struct InputFile {
  std::vector<Attr> attrs;
  std::vector<hsize_t> u0_dims;  // empty: no dataset
  bool u0_last_is_nan = false;   // poison the last value of u0
  std::vector<std::string> extra_groups;

  // Replaces (or adds) an attribute.
  void set(const Attr& a) {
    for (Attr& old : attrs) {
      if (old.group == a.group && old.key == a.key) {
        old = a;
        return;
      }
    }
    attrs.push_back(a);
  }
  void remove(const std::string& group, const std::string& key) {
    for (size_t i = 0; i < attrs.size(); ++i) {
      if (attrs[i].group == group && attrs[i].key == key) {
        attrs.erase(attrs.begin() + static_cast<long>(i));
        return;
      }
    }
    throw Error("internal: no attribute " + group + "/" + key + " to remove");
  }
  void remove_group(const std::string& group) {
    std::vector<Attr> kept;
    for (const Attr& a : attrs) {
      if (a.group != group) kept.push_back(a);
    }
    attrs = kept;
  }
};

// 12 x 10 x 8 cells of 1 cm, diffusivity 1e-4 m^2/s: the largest stable dt is
// 1/6 s. A few steps, so the good file runs in well under a second.
InputFile good_input() {
  InputFile f;
  f.attrs = {
      text("", "solver", "heat"),
      integer("run", "steps", 3),
      integer("heat", "nx", 12),
      integer("heat", "ny", 10),
      integer("heat", "nz", 8),
      real("heat", "dx", 0.01),
      real("heat", "dy", 0.01),
      real("heat", "dz", 0.01),
      real("heat", "diffusivity", 1e-4),
      real("heat", "dt", 0.1),
      text("heat", "boundary", "dirichlet"),
      text("heat", "initial", "sine"),
  };
  return f;
}

void write_integer_array(hid_t where, const std::string& name, const std::vector<std::int64_t>& v) {
  const hsize_t n = v.size();
  h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  h5::Handle attr(
      H5Acreate2(where, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (!space.valid() || !attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_INT64, v.data()) < 0) {
    throw Error("HDF5: writing the array attribute " + name + " failed");
  }
}

void write_u0(hid_t heat, const std::vector<hsize_t>& dims, bool last_is_nan) {
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  std::vector<double> data(static_cast<size_t>(n));
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i % 7) / 7.0;
  if (last_is_nan && !data.empty()) data.back() = std::numeric_limits<double>::quiet_NaN();
  h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  h5::Handle ds(
      H5Dcreate2(heat, "u0", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose);
  if (!space.valid() || !ds.valid() ||
      H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0) {
    throw Error("HDF5: writing dataset /heat/u0 failed");
  }
}

void write_input(const std::string& path, const InputFile& f) {
  h5::Handle file = h5::create_file(path);
  std::vector<std::pair<std::string, h5::Handle>> groups;
  const auto group = [&](const std::string& name) -> hid_t {
    if (name.empty()) return file.get();
    for (auto& g : groups) {
      if (g.first == name) return g.second.get();
    }
    groups.emplace_back(name, h5::create_group(file.get(), name));
    return groups.back().second.get();
  };
  for (const Attr& a : f.attrs) {
    const hid_t where = group(a.group);
    switch (a.kind) {
      case Attr::Kind::Integer:
        h5::write_attribute(where, a.key, a.integer);
        break;
      case Attr::Kind::Real:
        h5::write_attribute(where, a.key, a.real);
        break;
      case Attr::Kind::Text:
        h5::write_attribute(where, a.key, a.text);
        break;
      case Attr::Kind::IntegerArray:
        write_integer_array(where, a.key, a.array);
        break;
    }
  }
  if (!f.u0_dims.empty()) write_u0(group("heat"), f.u0_dims, f.u0_last_is_nan);
  for (const std::string& g : f.extra_groups) group(g);
}

// An MD input with atoms from datasets: 4 atoms in an 8^3 box, one of them
// (row 2) moved to `row2_y`; `columns` positions per row (3 is right); with
// `stray`, a dataset of that name beside them too.
void write_md_dataset_input(const std::string& path, double row2_y, std::uint64_t columns,
                            const std::string& stray = "") {
  h5::Handle file = h5::create_file(path);
  h5::write_attribute(file.get(), "solver", std::string("md"));
  h5::Handle run = h5::create_group(file.get(), "run");
  h5::write_attribute(run.get(), "steps", std::int64_t{3});
  h5::Handle md = h5::create_group(file.get(), "md");
  h5::write_attribute(md.get(), "initial", std::string("dataset"));
  for (const char* box : {"box_x", "box_y", "box_z"}) h5::write_attribute(md.get(), box, 8.0);
  std::vector<double> x(4 * columns, 1.0), v(4 * 3, 0.0);
  for (std::uint64_t i = 0; i < 4; ++i) x[i * columns] = 1.0 + 2.0 * static_cast<double>(i);
  if (columns > 1) x[2 * columns + 1] = row2_y;
  h5::write_array(md.get(), "positions", {4, columns}, x.data());
  h5::write_array(md.get(), "velocities", {4, 3}, v.data());
  if (!stray.empty()) h5::write_array(md.get(), stray, {4, 3}, v.data());
}

void write_text(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw Error(path + ": cannot write");
}

struct Case {
  std::string file;
  std::string what;
  std::function<void(const std::string& path)> write;
};

// A case that is good.h5 with one change.
Case variant(const std::string& file, const std::string& what,
             const std::function<void(InputFile&)>& change) {
  return {file, what, [change](const std::string& path) {
            InputFile f = good_input();
            change(f);
            write_input(path, f);
          }};
}

std::vector<Case> cases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {
      variant("good.h5", "a valid input: every other file is this one with one change",
              [](InputFile&) {}),
      {"md_dataset_good.h5", "a valid MD input: 4 atoms from /md/positions and /md/velocities",
       [](const std::string& p) { write_md_dataset_input(p, 1.0, 3); }},
      {"md_dataset_misspelt.h5", "MD: md_dataset_good.h5 with /md/velocity beside /md/velocities",
       [](const std::string& p) { write_md_dataset_input(p, 1.0, 3, "velocity"); }},
      {"md_atom_outside.h5", "MD: row 2 of /md/positions has y = 8.5 in a box of 8",
       [](const std::string& p) { write_md_dataset_input(p, 8.5, 3); }},
      {"md_positions_two_columns.h5", "MD: /md/positions of shape [4][2]",
       [](const std::string& p) { write_md_dataset_input(p, 1.0, 2); }},
      {"not_hdf5.h5", "a text file named .h5",
       [](const std::string& p) { write_text(p, "solver = heat\nnx = 12\n"); }},
      {"empty.h5", "a file of zero bytes", [](const std::string& p) { write_text(p, ""); }},
      variant("no_solver.h5", "root attribute /solver missing",
              [](InputFile& f) { f.remove("", "solver"); }),
      variant("wrong_solver.h5", "/solver = \"wave\"",
              [](InputFile& f) { f.set(text("", "solver", "wave")); }),
      variant("solver_integer.h5", "/solver = 1 (an integer)",
              [](InputFile& f) { f.set(integer("", "solver", 1)); }),
      variant("no_steps.h5", "/run/steps missing", [](InputFile& f) { f.remove("run", "steps"); }),
      variant("no_heat_group.h5", "no group /heat at all",
              [](InputFile& f) { f.remove_group("heat"); }),
      variant("no_nx.h5", "/heat/nx missing", [](InputFile& f) { f.remove("heat", "nx"); }),
      variant("nx_string.h5", "/heat/nx = \"12\" (a string)",
              [](InputFile& f) { f.set(text("heat", "nx", "12")); }),
      variant("nx_float.h5", "/heat/nx = 12.0 (a float)",
              [](InputFile& f) { f.set(real("heat", "nx", 12.0)); }),
      variant("nx_zero.h5", "/heat/nx = 0", [](InputFile& f) { f.set(integer("heat", "nx", 0)); }),
      variant("nx_negative.h5", "/heat/nx = -12",
              [](InputFile& f) { f.set(integer("heat", "nx", -12)); }),
      variant("nx_too_large.h5", "/heat/nx = 2^21",
              [](InputFile& f) { f.set(integer("heat", "nx", std::int64_t{1} << 21)); }),
      variant("nx_array.h5", "/heat/nx = [12, 10, 8] (an array)",
              [](InputFile& f) {
                f.set(integer_array("heat", "nx", {12, 10, 8}));
              }),
      variant("dx_negative.h5", "/heat/dx = -0.01",
              [](InputFile& f) { f.set(real("heat", "dx", -0.01)); }),
      variant("dx_zero.h5", "/heat/dx = 0", [](InputFile& f) { f.set(real("heat", "dx", 0.0)); }),
      variant("dt_nan.h5", "/heat/dt = NaN",
              [nan](InputFile& f) { f.set(real("heat", "dt", nan)); }),
      variant("dt_unstable.h5", "/heat/dt = 1 s, above the stability limit 1/6 s",
              [](InputFile& f) { f.set(real("heat", "dt", 1.0)); }),
      variant("boundary_unknown.h5", "/heat/boundary = \"neumann\"",
              [](InputFile& f) { f.set(text("heat", "boundary", "neumann")); }),
      variant("initial_unknown.h5", "/heat/initial = \"step\"",
              [](InputFile& f) { f.set(text("heat", "initial", "step")); }),
      variant("backend_unknown.h5", "/run/backend = \"gpu\"",
              [](InputFile& f) { f.set(text("run", "backend", "gpu")); }),
      variant("dataset_without_u0.h5", "/heat/initial = \"dataset\" but no /heat/u0",
              [](InputFile& f) { f.set(text("heat", "initial", "dataset")); }),
      variant("u0_transposed.h5",
              "/heat/u0 of shape [nx][ny][nz] = [12][10][8] instead of [8][10][12]",
              [](InputFile& f) {
                f.set(text("heat", "initial", "dataset"));
                f.u0_dims = {12, 10, 8};
              }),
      variant("u0_nan.h5", "/heat/u0 of the right shape whose last value is NaN",
              [](InputFile& f) {
                f.set(text("heat", "initial", "dataset"));
                f.u0_dims = {8, 10, 12};
                f.u0_last_is_nan = true;
              }),
      variant("victim.h5", "a valid input that a test tries to overwrite with --output",
              [](InputFile&) {}),
      variant("u0_2d.h5", "/heat/u0 of shape [80][12] (two-dimensional)",
              [](InputFile& f) {
                f.set(text("heat", "initial", "dataset"));
                f.u0_dims = {80, 12};
              }),
      variant("hint_3x1x1.h5", "/run/px,py,pz = 3,1,1 (3 ranks; the tests run 2)",
              [](InputFile& f) {
                f.set(integer("run", "px", 3));
                f.set(integer("run", "py", 1));
                f.set(integer("run", "pz", 1));
              }),
      variant("hint_px3.h5", "/run/px = 3, py and pz free (3 does not divide 2 ranks)",
              [](InputFile& f) { f.set(integer("run", "px", 3)); }),
      variant("nx_one.h5",
              "/heat/nx = 1: two ranks cannot split one cell along x (so they split z)",
              [](InputFile& f) { f.set(integer("heat", "nx", 1)); }),
      variant("unknown_keys.h5",
              "valid, plus an unknown attribute /heat/conductivity and an unknown group /notes",
              [](InputFile& f) {
                f.set(real("heat", "conductivity", 401.0));
                f.extra_groups.push_back("notes");
              }),
  };
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage = "usage: make_bad_inputs OUTDIR | --list\n";
  if (argc != 2) {
    std::fputs(usage.c_str(), stderr);
    return 2;
  }
  const std::string arg = argv[1];
  try {
    if (arg == "--list") {
      for (const Case& c : cases()) std::printf("%s  %s\n", c.file.c_str(), c.what.c_str());
      return 0;
    }
    if (!arg.empty() && arg[0] == '-') {
      std::fputs(usage.c_str(), stderr);
      return 2;
    }
    for (const Case& c : cases()) c.write(arg + "/" + c.file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_bad_inputs: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
