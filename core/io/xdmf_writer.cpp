#include "xdmf_writer.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

#include <mpsfw/core/base/number_text.hpp>

namespace mpsfw {

std::string xdmf_path_of(const std::string& h5_path) {
  std::filesystem::path p(h5_path);
  if (p.extension() == ".h5") return p.replace_extension(".xmf").string();
  return h5_path + ".xmf";
}

std::string snapshot_dataset(long step, const std::string& field) {
  char name[32];
  std::snprintf(name, sizeof name, "/%08ld", step);
  return "/" + field + name;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// XDMF lists vectors slowest dimension first: z y x.
std::string zyx(const std::array<double, 3>& v) {
  return exact_number(v[2]) + " " + exact_number(v[1]) + " " + exact_number(v[0]);
}

}  // namespace

std::string xdmf_temporal_collection(const std::string& name, const std::string& grids) {
  return "<?xml version=\"1.0\" ?>\n"
         "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
         "<Xdmf Version=\"3.0\">\n"
         "  <Domain>\n"
         "    <Grid Name=\"" +
         xml_escape(name) + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n" + grids +
         "    </Grid>\n"
         "  </Domain>\n"
         "</Xdmf>\n";
}

std::string xdmf_grid_start(const std::string& name, double time) {
  return "      <Grid Name=\"" + xml_escape(name) + "\" GridType=\"Uniform\">\n" +
         "        <Time Value=\"" + exact_number(time) + "\"/>\n";
}

std::string xdmf_collection_start(const std::string& name, double time) {
  return "      <Grid Name=\"" + xml_escape(name) +
         "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n" + "        <Time Value=\"" +
         exact_number(time) + "\"/>\n";
}

std::string xdmf_attribute(const std::string& name, const std::string& type,
                           const std::string& data_item) {
  return "        <Attribute Name=\"" + xml_escape(name) + "\" AttributeType=\"" + type +
         "\" Center=\"Node\">\n          " + data_item + "\n        </Attribute>\n";
}

std::string xdmf_hdf_item(const std::string& dimensions, const std::string& number_type,
                          const std::string& h5_basename, const std::string& dataset) {
  return "<DataItem Dimensions=\"" + dimensions + "\" NumberType=\"" + number_type +
         "\" Precision=\"8\" Format=\"HDF\">" + xml_escape(h5_basename) + ":" +
         xml_escape(dataset) + "</DataItem>";
}

std::string xdmf_text(const XdmfSeries& s) {
  const std::string dims =
      std::to_string(s.cells.z) + " " + std::to_string(s.cells.y) + " " + std::to_string(s.cells.x);
  std::ostringstream x;
  char step_name[32];
  for (const XdmfSnapshot& snap : s.snapshots) {
    std::snprintf(step_name, sizeof step_name, "%08ld", snap.step);
    x << xdmf_grid_start(step_name, snap.time)
      << "        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims << "\"/>\n"
      << "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" "
         "Precision=\"8\" Format=\"XML\">"
      << zyx(s.origin) << "</DataItem>\n"
      << "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" "
         "Precision=\"8\" Format=\"XML\">"
      << zyx(s.spacing) << "</DataItem>\n"
      << "        </Geometry>\n";
    for (const std::string& field : s.fields) {
      x << xdmf_attribute(
          field, "Scalar",
          xdmf_hdf_item(dims, "Float", s.h5_basename, snapshot_dataset(snap.step, field)));
    }
    x << "      </Grid>\n";
  }
  return xdmf_temporal_collection(s.fields.empty() ? "u" : s.fields[0], x.str());
}

}  // namespace mpsfw
