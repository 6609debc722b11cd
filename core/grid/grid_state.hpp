#pragma once
// A grid workload's state in a checkpoint and back: each field's global
// [nz][ny][nx] array as a float64 dataset of the checkpoint ("/heat/u0",
// "/wave/u"), each rank writing and reading its own block; no rank holds a
// whole field. A checkpoint is an input (core/input/checkpoint.hpp), so the same
// reader serves datasets a user wrote (heat's /heat/u0).
#include <functional>
#include <string>
#include <vector>

#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/mesh/field_layout.hpp>

namespace mpsfw {

// One field a checkpoint saves: its dataset and this rank's interior cells,
// x fastest, on the host (asked for one field at a time).
struct SavedField {
  std::string dataset;
  std::function<std::vector<double>()> interior;
};

// Collective over d.comm(): write_checkpoint_file(path, params, step, time,
// overrides) with every field of `fields` as its dataset. Throws AgreedError
// on every rank when any rank fails; the previous file at `path` stays.
void write_grid_checkpoint(const std::string& path, const Params& params, long step, double time,
                           const std::vector<std::string>& overrides, const CartDecomposition& d,
                           const std::vector<SavedField>& fields);

// Whether `file` holds `dataset` (an absolute path, "/wave/u"); false for
// file "" (parameters from no file).
bool has_grid_dataset(const std::string& file, const std::string& dataset);

// Checks that `file` holds `dataset` as a numeric array of shape
// [cells.z][cells.y][cells.x]; else InputError naming the file, the dataset
// and what was expected (`needed_by` says who needs it when it is missing:
// "heat.initial=dataset").
void check_grid_dataset(const std::string& file, const std::string& dataset, Int3 cells,
                        const std::string& needed_by);

// This rank's block of `dataset` (checked as above), placed into a field of
// `layout` on the host whose halo cells hold `fill`. Throws InputError
// naming the first value that is not finite and its [z][y][x].
std::vector<double> read_grid_block(const std::string& file, const std::string& dataset,
                                    const CartDecomposition& d, const FieldLayout& layout,
                                    double fill);

// A block of `layout` on the host (an initial state) whose interior cells
// hold value(g), g the global cell (`offset` is the block's first), and whose
// halo cells hold `fill`.
template <class F>
std::vector<double> block_of(const FieldLayout& layout, Int3 offset, F value, double fill = 0) {
  std::vector<double> block(static_cast<std::size_t>(layout.size()), fill);
  const Int3 h = layout.h;
  for (int k = 0; k < layout.n.z; ++k)
    for (int j = 0; j < layout.n.y; ++j)
      for (int i = 0; i < layout.n.x; ++i)
        block[static_cast<std::size_t>(layout.index(i + h.x, j + h.y, k + h.z))] =
            value(Int3{offset.x + i, offset.y + j, offset.z + k});
  return block;
}

// This rank's interior cells of `field` (laid out as `layout`, wherever it
// lives), x fastest, on the host.
std::vector<double> interior_on_host(const Array<double>& field, const FieldLayout& layout);

// Collective over d.comm(): the whole [nz][ny][nx] field on rank 0 from every
// rank's interior `block` (x fastest); empty on the other ranks. A field of
// 2^31 cells or more is refused alike on every rank (MPI counts in int).
std::vector<double> gather_grid(const CartDecomposition& d, const std::vector<double>& block);

}  // namespace mpsfw
