// Numbers in files are the shortest exact text: run.json (JsonWriter) and
// input descriptions write 0.1 as "0.1", not "0.10000000000000001", and every
// value reads back as the same double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>

#include "core/json_writer.hpp"
#include "core/number_text.hpp"

namespace mpsfw {
namespace {

std::string json_of(double v) {
  JsonWriter w;
  w.begin_array().element(v).end_array();
  std::string t = w.text();
  t = t.substr(t.find('[') + 1, t.rfind(']') - t.find('[') - 1);
  // The writer indents: the number alone.
  const size_t first = t.find_first_not_of(" \n"), last = t.find_last_not_of(" \n");
  return t.substr(first, last - first + 1);
}

TEST(NumberText, JsonWritesTheShortestExactText) {
  EXPECT_EQ(json_of(0.1), "0.1");
  EXPECT_EQ(json_of(0.0001), "0.0001");
  EXPECT_EQ(json_of(2.5), "2.5");
  for (const double v : {1.0 / 3.0, 0.1 + 0.2, 1e-300, 6.02214076e23, -2.0 / 7.0, 5e-324}) {
    const std::string text = json_of(v);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
    EXPECT_EQ(text, exact_number(v));
  }
  EXPECT_EQ(json_of(std::nan("")), "null");  // JSON has no NaN
}

}  // namespace
}  // namespace mpsfw
