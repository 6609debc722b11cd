#include "input_file.hpp"

#include <string>

#include <mpsfw/core/base/error.hpp>

namespace mpsfw {

InputAttributes read_input_attributes(const std::string& file) {
  InputAttributes input;
  input.file = file;
  h5::Handle f = h5::open_file_readonly(file);
  const auto read_group = [&](hid_t object, const std::string& name) {
    auto& attributes = input.groups[name];
    for (const std::string& a : h5::attribute_names(object)) {
      try {
        attributes[a] = h5::read_scalar(object, a);
      } catch (const Error&) {
        attributes[a].type_name = "unreadable attribute";  // reported only if a key needs it
      }
    }
  };
  read_group(f.get(), "");
  input.members = h5::member_names(f.get());
  for (const std::string& member : input.members) {
    if (!h5::has_group(f.get(), member)) continue;  // a dataset
    h5::Handle g = h5::open_group(f.get(), member);
    read_group(g.get(), member);
  }
  return input;
}

}  // namespace mpsfw
