#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "number_text.hpp"

namespace mpsfw {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0.
size_t utf8_sequence(const std::string& s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string json_escape(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto byte = static_cast<unsigned char>(c);
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
        if (byte < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", byte);
          out += buf;
        } else if (byte < 0x80) {
          out += c;
        } else if (const size_t n = utf8_sequence(s, i)) {
          out.append(s, i, n);
          i += n - 1;
        } else {
          // A byte that is not UTF-8 (a path in another encoding): as the
          // code point of the same number, so the file stays valid JSON.
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", byte);
          out += buf;
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
