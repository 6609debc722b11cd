#include "param_attributes.hpp"

#include <map>
#include <string>

#include <mpsfw/core/io/h5_io.hpp>

namespace mpsfw {

void write_param_attributes(hid_t file, const Params& params) {
  std::map<std::string, h5::Handle> groups;
  for (const ParamSpec& s : params.schema()) {
    hid_t where = file;
    if (!s.group.empty()) {
      auto it = groups.find(s.group);
      if (it == groups.end()) {
        it = groups
                 .emplace(s.group, h5::has_group(file, s.group) ? h5::open_group(file, s.group)
                                                                : h5::create_group(file, s.group))
                 .first;
      }
      where = it->second.get();
    }
    const ParamValue& v = params.value(s.name());
    switch (s.type) {
      case ParamType::Integer:
        h5::write_attribute(where, s.key, v.integer);
        break;
      case ParamType::Real:
        h5::write_attribute(where, s.key, v.real);
        break;
      case ParamType::Text:
        h5::write_attribute(where, s.key, v.text);
        break;
    }
  }
}

}  // namespace mpsfw
