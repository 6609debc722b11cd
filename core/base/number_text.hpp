#pragma once
// Numbers as text, the two ways mpsfw writes them.
#include <string>

namespace mpsfw {

// Six significant digits, for messages ("dt = 0.1 is unstable ...").
std::string short_number(double v);
// The shortest of 15 or 17 significant digits that reads back as the same
// double, in the "C" locale whatever the process locale is ('.' always);
// "nan", "inf", "-inf" for those. For files and for limits in messages.
std::string exact_number(double v);
// A byte count for people: "1.5 GiB".
std::string byte_text(double bytes);

}  // namespace mpsfw
