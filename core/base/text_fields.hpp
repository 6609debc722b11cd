#pragma once
// The fields of a one-line text record ("a,b,c", tab- or newline-separated
// lists): what the ranks exchange as strings and what session files hold.
#include <string>
#include <vector>

namespace mpsfw {

// Every field between separators, empty ones included ("a,,b," -> a, "", b, "").
inline std::vector<std::string> split_fields(const std::string& text, char separator) {
  std::vector<std::string> fields;
  size_t from = 0;
  for (size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, from)) {
    fields.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  fields.push_back(text.substr(from));
  return fields;
}

}  // namespace mpsfw
