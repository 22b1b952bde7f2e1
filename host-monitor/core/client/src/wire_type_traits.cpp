// Wire type traits into the model's (wire_type_traits.h).
#include "xrpm/client/wire_type_traits.h"

#include <string>

#include "xrpm/model/type_name.h"
#include "xrpm/protocol/utf8.h"

namespace xrpm::client {

TypeTraits ModelTypeTraits(protocol::TypeKind kind, protocol::FieldKind enum_underlying,
                           uint32_t array_rank, std::string_view element_type) {
  TypeTraits t;
  switch (kind) {
    case protocol::TypeKind::kClass:
      t.kind = TypeKind::kClass;
      break;
    case protocol::TypeKind::kValueType:
      t.kind = TypeKind::kValueType;
      break;
    case protocol::TypeKind::kEnum:
      t.kind = TypeKind::kEnum;
      if (protocol::IsValueKind(enum_underlying))
        t.enum_underlying = std::string("System.") + protocol::FieldKindName(enum_underlying);
      break;
    case protocol::TypeKind::kArray:
      t.kind = TypeKind::kArray;
      t.array_rank = array_rank;
      if (!element_type.empty()) {
        const std::string written(element_type);  // SanitizeUtf8 reads a C string
        t.element_type = CanonicalTypeName(protocol::SanitizeUtf8(written.c_str(), written.size()));
      }
      break;
    case protocol::TypeKind::kUnknown:
      break;
  }
  return t;
}

}  // namespace xrpm::client
