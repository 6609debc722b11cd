#pragma once
// A small streaming JSON writer for run reports (no parsing needed here).
#include <cstdint>
#include <string>
#include <vector>

namespace mpsfw {

class JsonWriter {
 public:
  JsonWriter& begin_object(const std::string& key = "");
  JsonWriter& end_object();
  JsonWriter& begin_array(const std::string& key = "");
  JsonWriter& end_array();
  JsonWriter& value(const std::string& key, const std::string& v);
  JsonWriter& value(const std::string& key, const char* v) { return value(key, std::string(v)); }
  JsonWriter& value(const std::string& key, double v);
  JsonWriter& value(const std::string& key, std::int64_t v);
  JsonWriter& value(const std::string& key, int v) { return value(key, std::int64_t{v}); }
  JsonWriter& value(const std::string& key, bool v);
  // An element of the current array.
  JsonWriter& element(const std::string& v);
  JsonWriter& element(double v);
  JsonWriter& element(std::int64_t v);
  JsonWriter& element(int v) { return element(std::int64_t{v}); }
  const std::string& text() const { return out_; }

 private:
  void key_prefix(const std::string& key);
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
};

std::string json_escape(const std::string& s);

}  // namespace mpsfw
