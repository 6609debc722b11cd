#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "number_text.hpp"

namespace mpsfw {

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::key_prefix(const std::string& key) {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
    out_ += "\n" + std::string(2 * first_.size(), ' ');
  }
  if (!key.empty()) out_ += json_escape(key) + ": ";
}

JsonWriter& JsonWriter::begin_object(const std::string& key) {
  key_prefix(key);
  out_ += "{";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  first_.pop_back();
  out_ += "\n" + std::string(2 * first_.size(), ' ') + "}";
  return *this;
}

JsonWriter& JsonWriter::begin_array(const std::string& key) {
  key_prefix(key);
  out_ += "[";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  first_.pop_back();
  out_ += "\n" + std::string(2 * first_.size(), ' ') + "]";
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, const std::string& v) {
  key_prefix(key);
  out_ += json_escape(v);
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, double v) {
  key_prefix(key);
  if (!std::isfinite(v)) {
    out_ += "null";  // JSON has no inf/nan
  } else {
    out_ += exact_number(v);
  }
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, std::int64_t v) {
  key_prefix(key);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, bool v) {
  key_prefix(key);
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::element(const std::string& v) { return value("", v); }
JsonWriter& JsonWriter::element(double v) { return value("", v); }
JsonWriter& JsonWriter::element(std::int64_t v) { return value("", v); }

}  // namespace mpsfw
