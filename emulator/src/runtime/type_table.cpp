#include "xrpm/emulator/type_table.h"

#include <cstdio>
#include <cstdlib>

namespace xrpm::emulator {

uint32_t FieldSize(FieldType t) {
  switch (t) {
    case FieldType::kRef:
    case FieldType::kInt32:
    case FieldType::kFloat:
    case FieldType::kBool:
      return 4;
    case FieldType::kInt64:
    case FieldType::kVector2:
      return 8;
  }
  return 4;
}

const char* DeclaredTypeName(const FieldDesc& f) {
  if (!f.type_name.empty()) return f.type_name.c_str();
  switch (f.type) {
    case FieldType::kInt32:
      return "System.Int32";
    case FieldType::kFloat:
      return "System.Single";
    case FieldType::kBool:
      return "System.Boolean";
    case FieldType::kInt64:
      return "System.Int64";
    case FieldType::kVector2:
      return "Microsoft.Xna.Framework.Vector2";
    case FieldType::kRef:
      break;
  }
  return "System.Object";
}

TypeTable::TypeTable() {
  TypeDesc free_block;
  free_block.name = "<free>";
  free_block.kind = TypeKind::kFree;
  Add(free_block);
  free_block.name = "<free4>";
  free_block.instance_size = 4;
  Add(free_block);
}

TypeIndex TypeTable::Add(TypeDesc d) {
  auto idx = static_cast<TypeIndex>(types_.size());
  if (idx > kTypeMask) {
    std::fprintf(stderr, "xrpm-emulator: too many types (%u)\n", idx);
    std::abort();
  }
  by_name_.emplace(d.name, idx);
  types_.push_back(std::move(d));
  return idx;
}

TypeIndex TypeTable::DefineClass(std::string name, std::string_view assembly, TypeIndex parent,
                                 std::initializer_list<FieldSpec> fields, ClassOptions options) {
  return DefineClass(std::move(name), assembly, parent, std::vector<FieldSpec>(fields), options);
}

TypeIndex TypeTable::DefineClass(std::string name, std::string_view assembly, TypeIndex parent,
                                 const std::vector<FieldSpec>& fields, ClassOptions options) {
  TypeDesc d;
  d.name = std::move(name);
  d.assembly = std::string(assembly);
  d.kind = TypeKind::kClass;
  d.parent = parent;
  d.options = options;
  uint32_t offset = kHeaderBytes;
  if (parent != 0) {
    const TypeDesc& p = types_[parent];
    d.fields = p.fields;
    d.ref_offsets = p.ref_offsets;
    offset = p.instance_size;
    if (p.options.finalizable && !options.finalizable) {
      d.options.finalizable = true;
      d.options.finalizer = p.options.finalizer;
    }
  }
  for (const FieldSpec& f : fields) {
    d.fields.push_back(
        FieldDesc{f.name, f.type, static_cast<uint16_t>(offset), f.type_name ? f.type_name : ""});
    if (f.type == FieldType::kRef) d.ref_offsets.push_back(static_cast<uint16_t>(offset));
    offset += FieldSize(f.type);
  }
  d.instance_size = AlignObject(offset);
  return Add(std::move(d));
}

TypeIndex TypeTable::DefineVariableSize(std::string name, std::string_view assembly, TypeKind kind,
                                        uint32_t element_size, bool element_is_ref) {
  TypeDesc d;
  d.name = std::move(name);
  d.assembly = std::string(assembly);
  d.kind = kind;
  d.instance_size = kArrayHeaderBytes;
  d.element_size = element_size;
  d.element_is_ref = element_is_ref;
  return Add(std::move(d));
}

TypeIndex TypeTable::DefineArray(std::string name, std::string_view assembly, uint32_t element_size,
                                 bool element_is_ref) {
  return DefineVariableSize(std::move(name), assembly, TypeKind::kArray, element_size,
                            element_is_ref);
}

TypeIndex TypeTable::DefineRefArray(TypeIndex element, std::string_view assembly) {
  return DefineArray(types_[element].name + "[]", assembly, kPointerBytes, true);
}

TypeIndex TypeTable::DefineString(std::string_view assembly) {
  return DefineVariableSize("System.String", assembly, TypeKind::kString, 2, false);
}

TypeIndex TypeTable::Find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? kNoType : it->second;
}

uint16_t TypeTable::Offset(TypeIndex t, std::string_view field) const {
  for (const FieldDesc& f : types_[t].fields)
    if (f.name == field) return f.offset;
  std::fprintf(stderr, "xrpm-emulator: type %s has no field %.*s\n", types_[t].name.c_str(),
               static_cast<int>(field.size()), field.data());
  std::abort();
}

}  // namespace xrpm::emulator
