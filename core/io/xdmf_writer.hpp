#pragma once
// XDMF 3 description of a FieldOutput file, so ParaView/VisIt read the HDF5
// snapshots as a time series. Values are node-centred: node (i,j,k) sits at the
// centre of cell (i,j,k), so the mesh has nx*ny*nz nodes and no extra layer.
#include <array>
#include <string>
#include <vector>

#include <mpsfw/core/base/number_text.hpp>  // exact_number, as XML wants it
#include <mpsfw/core/mesh/box.hpp>

namespace mpsfw {

struct XdmfSnapshot {
  long step = 0;
  double time = 0;
};

struct XdmfSeries {
  std::string h5_basename;                 // HDF5 file name, relative to the .xmf file
  Int3 cells;                              // nx, ny, nz
  std::array<double, 3> origin{0, 0, 0};   // x, y, z of cell (0,0,0)
  std::array<double, 3> spacing{1, 1, 1};  // dx, dy, dz
  std::vector<XdmfSnapshot> snapshots;     // each one is dataset /<field>/<step as %08ld>
  std::vector<std::string> fields{"u"};    // one XDMF attribute per field, named after it
};

// `text` with & < > " ' escaped for an XML attribute or element.
std::string xml_escape(const std::string& text);

// Name of the dataset that holds snapshot `step` of `field`, e.g. "/u/00000010".
std::string snapshot_dataset(long step, const std::string& field = "u");

// The XDMF file written beside output `h5_path`: "run.h5" -> "run.xmf"; any
// other name gets ".xmf" appended ("run.hdf5" -> "run.hdf5.xmf"), so it can
// never be the output itself.
std::string xdmf_path_of(const std::string& h5_path);

// The pieces every XDMF file of mpsfw is made of: a document holding one
// temporal collection `name` of `grids` (their <Grid> elements, as
// xdmf_grid_start begins them), a grid at one time, an attribute (on the
// points: `center` Node) and an HDF5 dataset as a DataItem.
std::string xdmf_temporal_collection(const std::string& name, const std::string& grids);
std::string xdmf_grid_start(const std::string& name, double time);
// A spatial collection at one time (grids side by side; closed like a grid).
std::string xdmf_collection_start(const std::string& name, double time);
std::string xdmf_attribute(const std::string& name, const std::string& type,
                           const std::string& data_item);
std::string xdmf_hdf_item(const std::string& dimensions, const std::string& number_type,
                          const std::string& h5_basename, const std::string& dataset);

// The XDMF file describing `series` (FieldOutput commits it with its HDF5 file).
std::string xdmf_text(const XdmfSeries& series);

}  // namespace mpsfw
