#pragma once
// Run parameters: a schema of typed scalar keys ("group.key"), read from the
// attributes of an input file's groups, overridden by --set group.key=value,
// then checked against the schema. Every error names where the value came
// from (file and attribute path, or the --set option) and what was expected.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace mpsfw {

struct InputAttributes;

enum class ParamType { Integer, Real, Text };

struct ParamSpec {
  std::string group;  // "" for root attributes
  std::string key;
  ParamType type = ParamType::Real;
  bool required = false;
  std::string fallback;  // default value as text, when not required
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;        // value > min instead of >= min
  std::vector<std::string> choices;  // allowed texts for Text
  std::string meaning;               // short description with units

  std::string name() const { return group.empty() ? key : group + "." + key; }
  std::string expected() const;  // "an integer in [1, 1048576] (cells along x)"
};

// Schema entries. A required key has no fallback; min/max are inclusive
// unless min_exclusive.
ParamSpec integer_param(std::string group, std::string key, bool required, std::string fallback,
                        double min, double max, std::string meaning);
ParamSpec real_param(std::string group, std::string key, bool required, std::string fallback,
                     double min, bool min_exclusive, std::string meaning,
                     double max = std::numeric_limits<double>::infinity());
ParamSpec text_param(std::string group, std::string key, bool required, std::string fallback,
                     std::vector<std::string> choices, std::string meaning);

struct ParamValue {
  ParamType type = ParamType::Real;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
  std::string origin;  // "in.h5: attribute /heat/nx", "--set heat.nx=8", "default"
};

class Params {
 public:
  explicit Params(std::vector<ParamSpec> schema) : schema_(std::move(schema)) {}

  // Reads every schema key present in `file` (an HDF5 input, or a deck whose
  // settings are applied as overrides); keys and groups the schema does not
  // know are reported in `warnings`. Mistyped values throw InputError.
  void read_file(const std::string& file, std::vector<std::string>* warnings);
  // The same from attributes already read (the runtime reads the file once).
  void read(const InputAttributes& input, std::vector<std::string>* warnings);
  // "group.key=value": the value is parsed as the key's type. `origin` names
  // where it came from in messages (default: "--set group.key=value").
  void apply_override(const std::string& assignment, const std::string& origin = "");
  // Fills defaults, then checks required keys, ranges and choices.
  void finalize();

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  const ParamValue& value(const std::string& name) const;
  const std::vector<ParamSpec>& schema() const { return schema_; }
  // Where the parameters came from (an HDF5 input or a deck; "" for none).
  const std::string& file() const { return file_; }
  // The HDF5 file that datasets are read from: "" when the parameters came
  // from a deck or no file.
  std::string dataset_file() const { return deck_ ? std::string() : file_; }
  // Value as text, e.g. for writing a file or printing the configuration.
  std::string as_text(const std::string& name) const;

 private:
  void set_from_text(const ParamSpec& spec, const std::string& text, const std::string& origin);
  void check_range(const ParamSpec& spec, const ParamValue& value) const;

  std::vector<ParamSpec> schema_;
  std::map<std::string, ParamValue> values_;
  std::string file_;
  bool deck_ = false;
};

// Where an attribute lives, as users see it: "/heat/nx" or "/solver".
std::string attribute_path(const ParamSpec& spec);

}  // namespace mpsfw
