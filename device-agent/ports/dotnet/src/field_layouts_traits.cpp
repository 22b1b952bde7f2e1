// FieldLayouts::Traits: what a class is (array and its rank, enum and its underlying integer,
// value type, class with or without a finalizer), from the profiling API and metadata, cached
// per class. Thread-safety: the capture thread, as FieldLayouts's walk (field_layouts.h).
#include <algorithm>

#include "field_layouts.h"
#include "type_names.h"

namespace xrpm {
namespace dotnet {

void FieldLayouts::Traits(cor::ClassID klass, const std::string& name, TypeNames& names,
                          agent::TypeTraits* out) {
  auto cached = traits_.find(klass);
  if (cached != traits_.end()) {
    *out = cached->second;
  } else {
    bool settled = true;
    *out = ComputeTraits(klass, name, names, &settled);
    if (settled) traits_.emplace(klass, *out);  // else asked again when the layout is known
  }
  if (out->kind == agent::TypeKind::kArray) {
    const size_t open = name.rfind('[');
    if (open != std::string::npos && open > 0 && name.back() == ']') {
      out->element_type_name = name.data();
      out->element_type_name_len = open;
    }
  }
}

agent::TypeTraits FieldLayouts::ComputeTraits(cor::ClassID klass, const std::string& name,
                                              TypeNames& names, bool* settled) {
  agent::TypeTraits out;
  cor::CorElementType element_type = 0;
  cor::ClassID element = 0;
  cor::ULONG rank = 0;
  if (info_->IsArrayClass(klass, &element_type, &element, &rank) == cor::S_OK) {
    out.kind = agent::TypeKind::kArray;
    out.array_rank = std::max<cor::ULONG>(1, std::min(rank, kMaxRank));
    return out;
  }
  cor::ModuleID module = 0;
  cor::mdToken type_def = 0;
  cor::ClassID parent = 0;
  cor::ULONG nargs = 0;
  if (cor::Failed(info_->GetClassIDInfo2(klass, &module, &type_def, &parent, 0, &nargs, nullptr)))
    return out;  // not said
  out.kind = agent::TypeKind::kClass;
  if (parent == 0) return out;
  const std::string& base = names.ClassName(parent);
  if (base == "System.ValueType" && name != "System.Enum") {
    out.kind = agent::TypeKind::kValueType;
  } else if (base == "System.Enum") {
    out.kind = agent::TypeKind::kValueType;  // an enum whose layout is not known (yet)
    *settled = false;
    auto it = layouts_.find(klass);
    if (it != layouts_.end() && it->second)
      for (const Field& f : it->second->fields)
        if (f.name == "value__" && protocol::IsValueKind(f.kind)) {
          out.kind = agent::TypeKind::kEnum;
          out.enum_underlying = f.kind;
          *settled = true;
        }
  } else {
    out.has_finalizer = HasFinalizer(klass, names);
  }
  return out;
}

bool FieldLayouts::HasFinalizer(cor::ClassID klass, TypeNames& names) {
  // Some class below System.Object declares an instance Finalize() without parameters (what a
  // C# destructor compiles to); System.Object's own does nothing and does not count.
  cor::ClassID c = klass;
  for (int depth = 0; depth < kMaxBaseChain && c != 0; ++depth) {
    cor::ModuleID module = 0;
    cor::mdToken type_def = 0;
    cor::ClassID parent = 0;
    cor::ULONG nargs = 0;
    if (cor::Failed(info_->GetClassIDInfo2(c, &module, &type_def, &parent, 0, &nargs, nullptr)) ||
        parent == 0 || names.ClassName(c) == "System.Object")
      return false;
    if (cor::IMetaDataImport* md = metadata_.Get(module)) {
      void* e = nullptr;
      cor::mdToken methods[4];
      cor::ULONG count = 0;
      const bool found =
          !cor::Failed(md->EnumMethodsWithName(&e, type_def, u"Finalize", methods, 4, &count));
      if (e) md->CloseEnum(e);
      for (cor::ULONG i = 0; found && i < count && i < 4; ++i) {
        const uint8_t* sig = nullptr;
        cor::ULONG sig_bytes = 0;
        cor::DWORD attributes = 0;
        if (!cor::Failed(md->GetMethodProps(methods[i], nullptr, nullptr, 0, nullptr, &attributes,
                                            &sig, &sig_bytes, nullptr, nullptr)) &&
            sig && sig_bytes >= 2 && (sig[0] & 0x20) != 0 && sig[1] == 0)  // HASTHIS, no params
          return true;
      }
    }
    c = parent;
  }
  return false;
}

}  // namespace dotnet
}  // namespace xrpm
