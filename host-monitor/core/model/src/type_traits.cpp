// Type traits in words (type_traits.h).
#include "xrpm/model/type_traits.h"

namespace xrpm {

const char* TypeKindName(TypeKind k) {
  switch (k) {
    case TypeKind::kClass:
      return "class";
    case TypeKind::kValueType:
      return "value type";
    case TypeKind::kEnum:
      return "enum";
    case TypeKind::kArray:
      return "array";
    case TypeKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string DescribeTypeTraits(const TypeTraits& t, bool has_finalizer) {
  std::string s;
  switch (t.kind) {
    case TypeKind::kUnknown:
      break;
    case TypeKind::kEnum:
      s = "enum";
      if (!t.enum_underlying.empty()) s += " of " + t.enum_underlying;
      break;
    case TypeKind::kArray:
      s = "array rank " + std::to_string(t.array_rank);
      if (!t.element_type.empty()) s += " of " + t.element_type;
      break;
    default:
      s = TypeKindName(t.kind);
  }
  if (has_finalizer) s += s.empty() ? "has finalizer" : ", has finalizer";
  return s;
}

}  // namespace xrpm
