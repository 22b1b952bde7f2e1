#include "shared/fields.h"

#include <cmath>

#include "shared/common.h"

namespace xrpm::cli {

nlohmann::json ValueJson(const FieldValue& v) {
  using K = FieldValue::Kind;
  switch (v.kind) {
    case K::kBool:
      return v.b;
    case K::kSigned:
      return v.i;
    case K::kUnsigned:
      return v.u;
    case K::kFloat:
      if (std::isnan(v.d)) return "NaN";
      if (std::isinf(v.d)) return v.d > 0 ? "Infinity" : "-Infinity";
      // A Single as the double its shortest text names (591.8129, not 591.81292724609375).
      return v.single ? std::stod(FormatValue(v)) : v.d;
    case K::kChar: {
      const std::string s = FormatValue(v);  // 'A'
      return s.substr(1, s.size() - 2);
    }
    case K::kEnum:
      if (!v.enum_name.empty()) return std::string(v.enum_name);
      return v.i;
    case K::kRef:
      return FormatHexDigits(v.ref);
    case K::kNull:
    case K::kMissing:
      return nullptr;
  }
  return nullptr;
}

nlohmann::json CellJson(const analysis::GraphIndex& g, const FieldValue& v) {
  if (v.kind != FieldValue::Kind::kRef) return ValueJson(v);
  nlohmann::json j{{"ref", FormatHexDigits(v.ref)}};
  const uint32_t n = g.Find(v.ref);
  if (n != kNoIndex)
    if (const auto s = StringOf(g.snapshot(), n)) j["text"] = std::string(s->text);
  return j;
}

std::string ShortText(const StringValue& s, size_t max_chars) {
  return QuoteString(s.text, max_chars, s.cut);
}

std::string CellText(const analysis::GraphIndex& g, const FieldValue& v) {
  if (v.kind != FieldValue::Kind::kRef) return FormatValue(v);
  const uint32_t n = g.Find(v.ref);
  if (n == kNoIndex) return FormatHexDigits(v.ref) + " (not in the snapshot)";
  std::string s = g.group_name(g.group_of(n)) + "@" + FormatHexDigits(v.ref);
  if (const auto t = StringOf(g.snapshot(), n)) s += " " + ShortText(*t);
  return s;
}

}  // namespace xrpm::cli
