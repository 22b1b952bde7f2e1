// A type's traits as the wire (and the walker API) carry them, turned into the model's
// (type_traits.h): the enum's underlying kind as its type's name ("System.Int32"), the element
// type's name sanitised (UTF-8) and canonical. Used by the capture assembler and by the
// emulator's in-process dump, so a capture and a dump say the same.
//
// Thread-safety: a pure function, reentrant.
#pragma once

#include <cstdint>
#include <string_view>

#include "xrpm/model/type_traits.h"
#include "xrpm/protocol/fields.h"

namespace xrpm::client {

// kind kUnknown gives no traits; the other arguments count only for the kind they belong to.
TypeTraits ModelTypeTraits(protocol::TypeKind kind, protocol::FieldKind enum_underlying,
                           uint32_t array_rank, std::string_view element_type);

}  // namespace xrpm::client
