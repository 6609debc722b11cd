// Numbers in files are the shortest exact text: run.json (JsonWriter) and
// input descriptions write 0.1 as "0.1", not "0.10000000000000001", and every
// value reads back as the same double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>

#include <mpsfw/core/base/json_writer.hpp>
#include <mpsfw/core/base/number_text.hpp>

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

// Strings: valid UTF-8 stays as it is, a byte that is not UTF-8 (a path in
// Latin-1) becomes \u00XX, so a JSON parser reads the file.
TEST(JsonText, NonUtf8BytesAreEscapedValidUtf8Kept) {
  EXPECT_EQ(json_escape("caf\xc3\xa9/\xe2\x82\xac"), "\"caf\xc3\xa9/\xe2\x82\xac\"");
  EXPECT_EQ(json_escape("caf\xe9.h5"), "\"caf\\u00e9.h5\"");
  EXPECT_EQ(json_escape("\xc3"), "\"\\u00c3\"");                        // cut short
  EXPECT_EQ(json_escape("\xc0\xaf"), "\"\\u00c0\\u00af\"");             // overlong '/'
  EXPECT_EQ(json_escape("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");  // a surrogate
  EXPECT_EQ(json_escape("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
}

}  // namespace
}  // namespace mpsfw
