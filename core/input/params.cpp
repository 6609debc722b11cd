#include "params.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/nearest_names.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/input/deck.hpp>
#include <mpsfw/core/io/input_file.hpp>

namespace mpsfw {
namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

bool parse_integer(const std::string& text, std::int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_real(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

ParamSpec integer_param(std::string group, std::string key, bool required, std::string fallback,
                        double min, double max, std::string meaning) {
  ParamSpec s;
  s.group = std::move(group);
  s.key = std::move(key);
  s.type = ParamType::Integer;
  s.required = required;
  s.fallback = std::move(fallback);
  s.min = min;
  s.max = max;
  s.meaning = std::move(meaning);
  return s;
}

ParamSpec real_param(std::string group, std::string key, bool required, std::string fallback,
                     double min, bool min_exclusive, std::string meaning, double max) {
  ParamSpec s = integer_param(std::move(group), std::move(key), required, std::move(fallback), min,
                              max, std::move(meaning));
  s.type = ParamType::Real;
  s.min_exclusive = min_exclusive;
  return s;
}

ParamSpec text_param(std::string group, std::string key, bool required, std::string fallback,
                     std::vector<std::string> choices, std::string meaning) {
  ParamSpec s = integer_param(std::move(group), std::move(key), required, std::move(fallback), 0, 0,
                              std::move(meaning));
  s.type = ParamType::Text;
  s.min = -std::numeric_limits<double>::infinity();
  s.max = std::numeric_limits<double>::infinity();
  s.choices = std::move(choices);
  return s;
}

std::string attribute_path(const ParamSpec& spec) {
  return spec.group.empty() ? "/" + spec.key : "/" + spec.group + "/" + spec.key;
}

std::string ParamSpec::expected() const {
  std::string what;
  switch (type) {
    case ParamType::Integer:
      what = "an integer";
      break;
    case ParamType::Real:
      what = "a number";
      break;
    case ParamType::Text:
      what = choices.empty() ? "a string" : "one of " + join(choices, "|");
      break;
  }
  if (type != ParamType::Text) {
    const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
    if (has_min && has_max) {
      what += std::string(" in ") + (min_exclusive ? "(" : "[") + exact_number(min) + ", " +
              exact_number(max) + "]";
    } else if (has_min) {
      what += (min_exclusive ? " > " : " >= ") + exact_number(min);
    } else if (has_max) {
      what += " <= " + exact_number(max);
    }
  }
  return meaning.empty() ? what : what + " (" + meaning + ")";
}

void Params::read_file(const std::string& file, std::vector<std::string>* warnings) {
  std::vector<std::string> settings, origins;
  read(read_input(file, &settings, &origins), warnings);
  for (size_t i = 0; i < settings.size(); ++i) apply_override(settings[i], origins[i]);
}

void Params::read(const InputAttributes& input, std::vector<std::string>* warnings) {
  file_ = input.file;
  deck_ = input.deck;
  std::set<std::string> groups;
  for (const ParamSpec& s : schema_) groups.insert(s.group);

  for (const auto& [group, attributes] : input.groups) {
    if (groups.count(group) == 0) continue;  // reported below as an unknown member
    for (const auto& [attr, s] : attributes) {
      const auto it = std::find_if(schema_.begin(), schema_.end(), [&](const ParamSpec& spec) {
        return spec.group == group && spec.key == attr;
      });
      const std::string where =
          input.file + ": attribute " + (group.empty() ? "" : "/" + group) + "/" + attr;
      if (it == schema_.end()) {
        if (warnings) {
          std::vector<std::string> keys;
          for (const ParamSpec& spec : schema_) {
            if (spec.group == group) keys.push_back(spec.key);
          }
          warnings->push_back(where + " is not a known key and is ignored" +
                              did_you_mean(attr, keys));
        }
        continue;
      }
      ParamValue v;
      v.type = it->type;
      v.origin = where;
      const auto mistyped = [&] {
        return InputError(where + ": expected " + it->expected() + ", got " +
                          (s.kind == h5::Scalar::Kind::Text ? "the string \"" + s.text + "\""
                                                            : "a " + s.type_name));
      };
      switch (it->type) {
        case ParamType::Integer:
          if (s.kind != h5::Scalar::Kind::Integer) throw mistyped();
          v.integer = s.integer;
          break;
        case ParamType::Real:
          // Integers are fine where a real is expected (h5py writes dt=1 as int64).
          if (s.kind == h5::Scalar::Kind::Real) {
            v.real = s.real;
          } else if (s.kind == h5::Scalar::Kind::Integer) {
            v.real = static_cast<double>(s.integer);
          } else {
            throw mistyped();
          }
          break;
        case ParamType::Text:
          if (s.kind != h5::Scalar::Kind::Text) throw mistyped();
          v.text = s.text;
          break;
      }
      values_[it->name()] = v;
    }
  }
  // Groups in the file that the schema does not know.
  for (const std::string& member : input.members) {
    if (groups.count(member) == 0 && warnings) {
      warnings->push_back(input.file + ": /" + member +
                          " is not a group or dataset this solver reads; ignored");
    }
  }
}

void Params::set_from_text(const ParamSpec& s, const std::string& text, const std::string& origin) {
  ParamValue v;
  v.type = s.type;
  v.origin = origin;
  bool ok = true;
  switch (s.type) {
    case ParamType::Integer:
      ok = parse_integer(text, &v.integer);
      break;
    case ParamType::Real:
      ok = parse_real(text, &v.real);
      break;
    case ParamType::Text:
      v.text = text;
      break;
  }
  if (!ok) throw InputError(origin + ": expected " + s.expected() + ", got '" + text + "'");
  values_[s.name()] = v;
}

void Params::apply_override(const std::string& assignment, const std::string& given_origin) {
  const std::string origin = given_origin.empty() ? "--set " + assignment : given_origin;
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(origin + ": expected group.key=value, e.g. --set heat.nx=128");
  }
  const std::string name = assignment.substr(0, eq);
  const auto it = std::find_if(schema_.begin(), schema_.end(),
                               [&](const ParamSpec& s) { return s.name() == name; });
  if (it == schema_.end()) {
    // The near names, then the group's keys, rather than every key there is.
    std::vector<std::string> known, in_group;
    const std::string group = name.substr(0, name.find('.'));
    for (const ParamSpec& s : schema_) {
      known.push_back(s.name());
      if (name.find('.') != std::string::npos && s.group == group) in_group.push_back(s.name());
    }
    throw InputError(origin + ": unknown key '" + name + "'" + did_you_mean(name, known) +
                     (in_group.empty() ? "; --list-keys lists every key"
                                       : "; the keys of /" + group + ": " + join(in_group, ", ")));
  }
  set_from_text(*it, assignment.substr(eq + 1), origin);
}

void Params::check_range(const ParamSpec& s, const ParamValue& v) const {
  bool ok = true;
  std::string got;
  switch (s.type) {
    case ParamType::Integer:
    case ParamType::Real: {
      const double x = s.type == ParamType::Integer ? static_cast<double>(v.integer) : v.real;
      ok = std::isfinite(x) && (s.min_exclusive ? x > s.min : x >= s.min) && x <= s.max;
      got = s.type == ParamType::Integer ? std::to_string(v.integer) : exact_number(v.real);
      break;
    }
    case ParamType::Text:
      ok = s.choices.empty() ||
           std::find(s.choices.begin(), s.choices.end(), v.text) != s.choices.end();
      got = "\"" + v.text + "\"";
      break;
  }
  if (!ok) throw InputError(v.origin + ": expected " + s.expected() + ", got " + got);
}

void Params::finalize() {
  const std::string source = file_.empty() ? std::string("input") : file_;
  if (deck_) {
    // Every required key a deck lacks at once: a new deck is written in one go.
    std::string lacking;
    for (const ParamSpec& s : schema_) {
      if (s.required && !has(s.name())) lacking += "\n  " + s.name() + ": " + s.expected();
    }
    if (!lacking.empty()) {
      throw InputError(source + ": a deck needs a line for every required key; missing:" + lacking);
    }
  }
  for (const ParamSpec& s : schema_) {
    if (!has(s.name())) {
      if (s.required) {
        throw InputError(source + ": attribute " + attribute_path(s) + " is missing: expected " +
                         s.expected());
      }
      set_from_text(s, s.fallback, "default of " + s.name());
    }
    check_range(s, values_.at(s.name()));
  }
}

const ParamValue& Params::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw Error("internal: parameter '" + name + "' was not set");
  return it->second;
}

std::int64_t Params::integer(const std::string& name) const { return value(name).integer; }
double Params::real(const std::string& name) const { return value(name).real; }
const std::string& Params::text(const std::string& name) const { return value(name).text; }

std::string Params::as_text(const std::string& name) const {
  const ParamValue& v = value(name);
  switch (v.type) {
    case ParamType::Integer:
      return std::to_string(v.integer);
    case ParamType::Real:
      return exact_number(v.real);
    case ParamType::Text:
      return v.text;
  }
  return "";
}

}  // namespace mpsfw
