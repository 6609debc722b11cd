#include "number_text.hpp"

#include <cmath>
#include <cstdio>
#include <locale>
#include <sstream>

namespace mpsfw {

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string exact_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out.imbue(std::locale::classic());
  for (int digits : {15, 17}) {
    out.str("");
    out.precision(digits);
    out << v;
    std::istringstream in(out.str());
    in.imbue(std::locale::classic());
    double back = 0;
    if (in >> back && back == v) break;
  }
  return out.str();
}

std::string byte_text(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", b, unit[u]);
  return text;
}

}  // namespace mpsfw
