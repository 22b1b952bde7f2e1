#include "xrpm/model/human_parse.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace xrpm {
namespace {

// Splits "12.5ms" into 12.5 and "ms". False when there is no unsigned decimal number first.
bool SplitNumber(std::string_view text, double* value, std::string* unit) {
  size_t i = 0;
  bool digits = false, dot = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return false;
  *value = std::strtod(std::string(text.substr(0, i)).c_str(), nullptr);
  unit->clear();
  for (char c : text.substr(i))
    unit->push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return std::isfinite(*value);
}

std::string Found(std::string_view text) {
  return "found '" + std::string(text) + "'";
}

}  // namespace

bool ParseDuration(std::string_view text, double* seconds, std::string* error) {
  double v = 0;
  std::string unit;
  double scale = 0;
  if (SplitNumber(text, &v, &unit)) {
    if (unit.empty() || unit == "s")
      scale = 1;
    else if (unit == "ms")
      scale = 0.001;
    else if (unit == "m" || unit == "min")
      scale = 60;
    else if (unit == "h")
      scale = 3600;
  }
  if (scale == 0 || !(v * scale > 0) || v * scale > 1e9) {
    *error = "expected a positive duration such as 10s, 500ms, 2m or 1h, " + Found(text);
    return false;
  }
  *seconds = v * scale;
  return true;
}

bool ParseByteSize(std::string_view text, uint64_t* bytes, std::string* error) {
  double v = 0;
  std::string unit;
  double scale = 0;
  if (SplitNumber(text, &v, &unit)) {
    if (unit.size() > 1 && unit.back() == 'b') unit.pop_back();   // "MB" -> "m", "B" stays
    if (unit.size() == 2 && unit.back() == 'i') unit.pop_back();  // "MiB" -> "m"
    if (unit.empty() || unit == "b")
      scale = 1;
    else if (unit == "k")
      scale = 1024.0;
    else if (unit == "m")
      scale = 1024.0 * 1024;
    else if (unit == "g")
      scale = 1024.0 * 1024 * 1024;
  }
  const double b = v * scale;
  if (scale == 0 || !(b >= 1) || b > 9.0e18 || (scale == 1 && b != std::floor(b))) {
    *error = "expected a positive size such as 64MB, 512KB or 1048576 (bytes), " + Found(text);
    return false;
  }
  *bytes = static_cast<uint64_t>(std::llround(b));
  return true;
}

}  // namespace xrpm
