#pragma once
// Snapshots of one or several distributed 3D fields in one HDF5 file, plus an XDMF file next
// to it so ParaView/VisIt open the series. The pair is complete or absent: both
// are written as `<path>.partial` and renamed together by commit() (a failure
// leaves the previous pair); if the FieldOutput is destroyed before commit() (a
// failed run), rank 0 removes the temporary file.
//
// Layout of the HDF5 file:
//   /            attributes: solver (fixed-length, null-terminated ASCII string),
//                nx, ny, nz (int64), dx, dy, dz, ox, oy, oz (float64: spacing and
//                the first cell's coordinate)
//   /<field>/<step>  float64 dataset [nz][ny][nx] (x fastest), step as 8
//                digits, attributes step (int64) and time (float64), for
//                each field name given (heat: the one field "u")
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <mpsfw/core/mesh/decomposition.hpp>

namespace mpsfw {

enum class OutputMode {
  Auto,         // Collective when HDF5 is parallel, else RankOrdered
  Collective,   // one MPI-IO collective write per snapshot (parallel HDF5 only)
  RankOrdered,  // ranks take turns writing their hyperslab (any HDF5)
};

bool hdf5_is_parallel();

struct GridGeometry {
  std::array<double, 3> spacing{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};  // coordinate of global cell (0,0,0)
};

class FieldOutput {
 public:
  // Collective over decomposition.comm(); the decomposition must outlive this.
  // Throws Error naming `path` if the file cannot be created, or if Collective
  // was asked of a serial HDF5.
  // `fields` names the fields each snapshot holds (datasets and XDMF
  // attributes are named after them).
  FieldOutput(std::string path, const CartDecomposition& decomposition, GridGeometry geometry,
              std::string solver_name, OutputMode mode = OutputMode::Auto,
              std::vector<std::string> fields = {"u"});
  ~FieldOutput();
  FieldOutput(const FieldOutput&) = delete;
  FieldOutput& operator=(const FieldOutput&) = delete;

  // Collective. `block` holds this rank's interior cells contiguously, x fastest:
  // local_cells().x * local_cells().y * local_cells().z values.
  void write(long step, double time, const double* block);
  // Several fields: one block per field name, in the constructor's order.
  void write(long step, double time, const std::vector<const double*>& blocks);
  // Collective: writes the XDMF file (xdmf_path_of(path)) and moves both files into place together
  // (move_group_into_place); on failure throws Error on every rank and the previous pair stays.
  // Nothing may be written after.
  void commit();

  OutputMode mode() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpsfw
