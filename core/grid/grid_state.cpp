#include "grid_state.hpp"

#include <cmath>
#include <cstdint>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/comm/region_copy.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {

void write_grid_checkpoint(const std::string& path, const Params& params, long step, double time,
                           const std::vector<std::string>& overrides, const CartDecomposition& d,
                           const std::vector<SavedField>& fields) {
  const h5::BlockSlab slab = h5::block_slab(d.global_cells(), d.offset(), d.local_cells());
  const std::string context = "checkpoint '" + path + "'";
  write_checkpoint_file(
      path, params, step, time, overrides, d.comm(), [&](const std::string& partial) {
        for (const SavedField& field : fields) {
          std::vector<double> block;
          // Agreed before the collective write.
          agree_on_error(d.comm(), error_of([&] { block = field.interior(); }, context));
          h5::write_block_datasets(partial, d.comm(), hdf5_is_parallel(), slab,
                                   {{field.dataset, block.data()}}, context);
        }
      });
}

bool has_grid_dataset(const std::string& file, const std::string& dataset) {
  if (file.empty()) return false;  // parameters that came from no file
  h5::Handle f = h5::open_file_readonly(file);
  h5::QuietErrors quiet;
  // Each link of the path must exist before the next is asked for.
  for (size_t slash = dataset.find('/', 1);; slash = dataset.find('/', slash + 1)) {
    const std::string link = dataset.substr(0, slash);
    if (H5Lexists(f.get(), link.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
  }
  return H5Oexists_by_name(f.get(), dataset.c_str(), H5P_DEFAULT) > 0;
}

void check_grid_dataset(const std::string& file, const std::string& dataset, Int3 cells,
                        const std::string& needed_by) {
  const std::string where = file + ": dataset " + dataset;
  const std::string shape = "[nz][ny][nx] = [" + std::to_string(cells.z) + "][" +
                            std::to_string(cells.y) + "][" + std::to_string(cells.x) + "]";
  if (!has_grid_dataset(file, dataset)) {
    throw InputError(where + " is missing: " + needed_by + " needs a float64 dataset of shape " +
                     shape);
  }
  h5::Handle f = h5::open_file_readonly(file);
  const h5::DatasetInfo info = h5::dataset_info(f.get(), dataset);
  const std::vector<std::uint64_t> want = {static_cast<std::uint64_t>(cells.z),
                                           static_cast<std::uint64_t>(cells.y),
                                           static_cast<std::uint64_t>(cells.x)};
  if (info.dims != want) {
    std::string got;
    for (std::uint64_t n : info.dims) got += "[" + std::to_string(n) + "]";
    throw InputError(where + ": expected shape " + shape + ", got " +
                     (got.empty() ? "a scalar" : got));
  }
  if (!info.is_float && !info.is_integer) {
    throw InputError(where + ": expected a numeric (float64) dataset, got " + info.type_name);
  }
}

std::vector<double> read_grid_block(const std::string& file, const std::string& dataset,
                                    const CartDecomposition& d, const FieldLayout& layout,
                                    double fill) {
  check_grid_dataset(file, dataset, d.global_cells(), "this run");
  const Int3 n = layout.n, off = d.offset();
  std::vector<double> block(static_cast<size_t>(n.product()));
  {
    h5::Handle f = h5::open_file_readonly(file);
    h5::read_block(f.get(), dataset,
                   {static_cast<std::uint64_t>(off.z), static_cast<std::uint64_t>(off.y),
                    static_cast<std::uint64_t>(off.x)},
                   {static_cast<std::uint64_t>(n.z), static_cast<std::uint64_t>(n.y),
                    static_cast<std::uint64_t>(n.x)},
                   block.data());
  }
  return block_of(
      layout, off,
      [&](Int3 g) {
        const double v = block[static_cast<size_t>(
            (std::int64_t{g.z - off.z} * n.y + (g.y - off.y)) * n.x + (g.x - off.x))];
        if (!std::isfinite(v)) {
          throw InputError(file + ": dataset " + dataset + ": expected finite values, got " +
                           std::to_string(v) + " at [" + std::to_string(g.z) + "][" +
                           std::to_string(g.y) + "][" + std::to_string(g.x) + "] ([z][y][x])");
        }
        return v;
      },
      fill);
}

std::vector<double> interior_on_host(const Array<double>& field, const FieldLayout& layout) {
  PackedBoxes interior;
  interior.add(layout.interior());
  std::vector<double> host(static_cast<size_t>(interior.cells));
  if (field.space() == Backend::Host) {
    copy_regions(Backend::Host, ScalarType::Float64,
                 pack_copies(field.data(), layout, interior, host.data()));
  } else {
    Array<double> packed(field.space(), host.size());
    copy_regions(field.space(), ScalarType::Float64,
                 pack_copies(field.data(), layout, interior, packed.data()));
    packed.copy_to_host(host.data());
  }
  return host;
}

std::vector<double> gather_grid(const CartDecomposition& d, const std::vector<double>& mine) {
  MPI_Comm comm = d.comm();
  // MPI_Gatherv counts in int: every rank refuses alike (the global size is
  // the same on all) rather than wrapping.
  mpi_count(d.global_cells().product(), "gathering the whole field to rank 0",
            "checkpoints and snapshots write each rank's block instead");
  const int ranks = d.size();
  const int me = d.rank();
  // Each rank's offset and size, then the blocks themselves.
  const Int3 off = d.offset(), n = d.local_cells();
  const int geometry[6] = {off.x, off.y, off.z, n.x, n.y, n.z};
  std::vector<int> all_geometry(me == 0 ? 6 * static_cast<size_t>(ranks) : 0);
  MPSFW_MPI_CHECK(MPI_Gather(geometry, 6, MPI_INT, all_geometry.data(), 6, MPI_INT, 0, comm));
  std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  std::vector<double> blocks;
  if (me == 0) {
    int total = 0;
    for (int r = 0; r < ranks; ++r) {
      const int* g = &all_geometry[6 * static_cast<size_t>(r)];
      counts[static_cast<size_t>(r)] = g[3] * g[4] * g[5];
      displs[static_cast<size_t>(r)] = total;
      total += counts[static_cast<size_t>(r)];
    }
    blocks.resize(static_cast<size_t>(total));
  }
  MPSFW_MPI_CHECK(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, blocks.data(),
                              counts.data(), displs.data(), MPI_DOUBLE, 0, comm));
  if (me != 0) return {};
  const Int3 global = d.global_cells();
  std::vector<double> field(static_cast<size_t>(global.product()));
  for (int r = 0; r < ranks; ++r) {
    const int* g = &all_geometry[6 * static_cast<size_t>(r)];
    size_t t = static_cast<size_t>(displs[static_cast<size_t>(r)]);
    for (int k = 0; k < g[5]; ++k)
      for (int j = 0; j < g[4]; ++j)
        for (int i = 0; i < g[3]; ++i) {
          const std::int64_t gi = g[0] + i, gj = g[1] + j, gk = g[2] + k;
          field[static_cast<size_t>((gk * global.y + gj) * global.x + gi)] = blocks[t++];
        }
  }
  return field;
}

}  // namespace mpsfw
