// FieldLayouts: class layouts from the profiling API and metadata; slots and values read from
// objects inside the collection.
#include "field_layouts.h"

#include <algorithm>
#include <cstring>

#include "ecma_signature.h"
#include "type_names.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace dotnet {
namespace {

using agent::FieldKind;
using agent::TypeShape;
using agent::WalkResult;

constexpr int kMaxStructDepth = 8;   // nesting of embedded structs flattened
constexpr size_t kMaxFields = 4096;  // per class, flattened (the agent keeps its own maximum)
constexpr int kMaxSigDepth = 16;     // nesting in a signature (arrays of arrays, generic args)
constexpr uint32_t kMaxStringUnits = protocol::kMaxStringCap;

// A value of kind k at p, widened as heap_walker.h's ValueBits says (little-endian device).
uint64_t ReadBits(const uint8_t* p, FieldKind k) {
  switch (k) {
    case FieldKind::kBoolean:
      return p[0] != 0;
    case FieldKind::kSByte:
      return static_cast<uint64_t>(int64_t{static_cast<int8_t>(p[0])});
    case FieldKind::kByte:
      return p[0];
    case FieldKind::kInt16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return static_cast<uint64_t>(int64_t{v});
    }
    case FieldKind::kChar:
    case FieldKind::kUInt16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case FieldKind::kInt32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return static_cast<uint64_t>(int64_t{v});
    }
    case FieldKind::kUInt32:
    case FieldKind::kSingle: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case FieldKind::kIntPtr:
      if (sizeof(void*) == 4) {
        int32_t v;
        std::memcpy(&v, p, 4);
        return static_cast<uint64_t>(int64_t{v});
      }
      break;
    case FieldKind::kUIntPtr:
      if (sizeof(void*) == 4) {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
      }
      break;
    default:
      break;
  }
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uintptr_t ReadPointer(uintptr_t address) {
  uintptr_t v;
  std::memcpy(&v, reinterpret_cast<const void*>(address), sizeof v);
  return v;
}

// The index of a word equal to `ref` in words[0, count), searched from *cursor on, then from the
// start (the runtime reports elements in order: each one is usually the next word), reading at
// most *budget words in all (an array's search stays linear whatever the order); kNoSlot if none.
uint32_t MatchWord(const uintptr_t* words, size_t count, uint64_t ref, size_t* cursor,
                   size_t* budget) {
  for (size_t pass = 0; pass < 2; ++pass) {
    const size_t from = pass == 0 ? *cursor : 0;
    const size_t to = pass == 0 ? count : std::min(*cursor, count);
    for (size_t j = from; j < to; ++j) {
      if (*budget == 0) return agent::kNoSlot;
      --*budget;
      if (words[j] == ref) {
        *cursor = j + 1;
        return static_cast<uint32_t>(std::min<size_t>(j, UINT32_MAX - 1));
      }
    }
  }
  return agent::kNoSlot;
}

// Words an array's slot search may read: its references found in order take at most one pass.
constexpr size_t kScanPasses = 4;

}  // namespace

void FieldLayouts::FindStringClass(cor::ClassID any) {
  // System.Object (the top of any class's chain) is in the base library, as System.String.
  cor::ClassID c = any;
  cor::ModuleID module = 0;
  for (int i = 0; i < kMaxBaseChain && c != 0; ++i) {
    cor::mdToken type_def = 0;
    cor::ClassID parent = 0;
    cor::ULONG nargs = 0;
    if (cor::Failed(info_->GetClassIDInfo2(c, &module, &type_def, &parent, 0, &nargs, nullptr)))
      return;  // an array: another class will do
    if (parent == 0) break;
    c = parent;
  }
  // An interface has no parent either: the top is the base library's only if it defines
  // System.String (else another class will do).
  cor::IMetaDataImport* md = module ? metadata_.Get(module) : nullptr;
  cor::mdToken string_def = 0;
  if (!md || cor::Failed(md->FindTypeDefByName(u"System.String", 0, &string_def)) ||
      string_def == 0)
    return;
  string_searched_ = true;
  base_library_ = module;
  cor::ULONG length_offset = 0, buffer_offset = 0;
  if (cor::Failed(info_->GetStringLayout2(&length_offset, &buffer_offset))) return;
  string_def_ = string_def;
  string_length_offset_ = length_offset;
  string_buffer_offset_ = buffer_offset;
}

bool FieldLayouts::IsStringClass(cor::ClassID klass) {
  if (string_class_ != 0) return klass == string_class_;
  if (string_def_ == 0) return false;
  cor::ModuleID module = 0;
  cor::mdToken type_def = 0;
  cor::ClassID parent = 0;
  cor::ULONG nargs = 0;
  if (cor::Failed(info_->GetClassIDInfo2(klass, &module, &type_def, &parent, 0, &nargs, nullptr)) ||
      module != base_library_ || type_def != string_def_)
    return false;
  string_class_ = klass;
  return true;
}

void FieldLayouts::Prepare(const std::vector<cor::ClassID>& classes) {
  TypeNames names(info_);
  ForgetRecent();  // layouts_ changes below; Find fills it again in the collection
  for (size_t i = 0; i < classes.size() && !string_searched_ && i < 64; ++i)
    FindStringClass(classes[i]);
  // The classes by type definition (and generic arguments): the classes of embedded structs
  // (the runtime loads a field's struct before the class that holds it).
  for (cor::ClassID klass : classes) {
    cor::ModuleID module = 0;
    cor::mdToken type_def = 0;
    cor::ClassID parent = 0;
    cor::ULONG nargs = 0;
    cor::ClassID args[kMaxTypeArgs];
    if (cor::Failed(info_->GetClassIDInfo2(klass, &module, &type_def, &parent, kMaxTypeArgs, &nargs,
                                           args)) ||
        module == 0 || type_def == 0)
      continue;
    if (nargs == 0) {
      by_def_.emplace(std::make_pair(module, type_def), klass);
    } else if (nargs <= kMaxTypeArgs) {
      std::vector<uintptr_t> key{module, type_def};
      key.insert(key.end(), args, args + nargs);
      by_inst_.emplace(std::move(key), klass);
    }
  }
  for (cor::ClassID klass : classes) {
    auto it = layouts_.find(klass);
    if (it != layouts_.end() && it->second) continue;
    auto l = std::make_unique<Layout>();
    if (!Compute(klass, l.get(), names)) continue;
    layouts_[klass] = std::move(l);
  }
  // Classes the last collection met without a layout: again now (the world runs).
  for (auto it = layouts_.begin(); it != layouts_.end();) {
    if (it->second) {
      ++it;
      continue;
    }
    auto l = std::make_unique<Layout>();
    if (Compute(it->first, l.get(), names)) {
      it->second = std::move(l);
      ++it;
    } else {
      it = layouts_.erase(it);
    }
  }
}

bool FieldLayouts::ArrayLayout(cor::ClassID klass, Layout* out) {
  cor::CorElementType element_type = 0;
  cor::ClassID element = 0;
  cor::ULONG rank = 0;
  if (info_->IsArrayClass(klass, &element_type, &element, &rank) != cor::S_OK) return false;
  out->shape = TypeShape::kArray;
  out->element_type = element_type;
  out->element_class = element;
  out->rank = std::max<cor::ULONG>(1, std::min(rank, kMaxRank));
  out->element_kind = PrimitiveKind(element_type);
  if (element_type == kEtGenericInst) out->element_kind = FieldKind::kUnknown;
  return true;
}

bool FieldLayouts::Compute(cor::ClassID klass, Layout* out, TypeNames& names) {
  if (ArrayLayout(klass, out)) return true;
  if (IsStringClass(klass)) {
    out->shape = TypeShape::kString;
    return true;
  }
  // The class and its bases, base first.
  std::vector<cor::ClassID> chain;
  bool value_type = false;
  for (cor::ClassID c = klass; c != 0 && chain.size() < kMaxBaseChain;) {
    cor::ModuleID module = 0;
    cor::mdToken type_def = 0;
    cor::ClassID parent = 0;
    cor::ULONG nargs = 0;
    if (cor::Failed(info_->GetClassIDInfo2(c, &module, &type_def, &parent, 0, &nargs, nullptr)))
      return false;
    if (c != klass && names.ClassName(c) == "System.ValueType") value_type = true;
    chain.push_back(c);
    c = parent;
  }
  if (value_type && names.ClassName(klass) == "System.Enum") value_type = false;
  uint32_t base = 0;
  if (value_type) {
    cor::ULONG box = 0;
    if (cor::Failed(info_->GetBoxClassLayout(klass, &box))) return false;
    out->shape = TypeShape::kValueType;
    base = box;
  }
  std::reverse(chain.begin(), chain.end());
  for (cor::ClassID c : chain) AddOwnFields(c, "", base, 0, out, names);
  std::sort(out->refs.begin(), out->refs.end());
  return true;
}

void FieldLayouts::AddOwnFields(cor::ClassID klass, const std::string& prefix, uint32_t base,
                                int depth, Layout* out, TypeNames& names) {
  cor::ULONG count = 0, size = 0;
  if (cor::Failed(info_->GetClassLayout(klass, nullptr, 0, &count, &size)) || count == 0) return;
  std::vector<cor::FieldOffset> offsets(count);
  if (cor::Failed(info_->GetClassLayout(klass, offsets.data(), count, &count, &size))) return;
  offsets.resize(std::min<size_t>(count, offsets.size()));
  cor::ModuleID module = 0;
  cor::mdToken type_def = 0;
  cor::ClassID parent = 0;
  cor::ULONG nargs = 0;
  std::vector<cor::ClassID> args(kMaxTypeArgs);
  if (cor::Failed(info_->GetClassIDInfo2(klass, &module, &type_def, &parent, kMaxTypeArgs, &nargs,
                                         args.data())))
    return;
  args.resize(std::min<size_t>(nargs, kMaxTypeArgs));
  cor::IMetaDataImport* md = metadata_.Get(module);
  if (!md) return;
  for (const cor::FieldOffset& fo : offsets) {
    if (out->fields.size() >= kMaxFields) return;
    cor::WCHAR name[kMetadataNameCapacity];
    cor::ULONG len = 0;
    cor::DWORD attributes = 0;
    const uint8_t* sig = nullptr;
    cor::ULONG sig_bytes = 0;
    if (cor::Failed(md->GetFieldProps(fo.field, nullptr, name, kMetadataNameCapacity, &len,
                                      &attributes, &sig, &sig_bytes, nullptr, nullptr, nullptr)) ||
        (attributes & cor::kFieldStatic))
      continue;
    const std::string field =
        prefix + Utf8(name, len > 0 ? std::min(len, kMetadataNameCapacity) - 1 : 0);  // len: + NUL
    if (!sig || sig_bytes < 2 || (sig[0] & 0x0f) != kSigField) continue;
    size_t i = 1;
    const SigType t = Decode(md, module, sig, sig_bytes, &i, args, names, 0);
    const uint32_t offset = base + fo.offset;
    if (t.kind == FieldKind::kUnknown) {
      if (t.struct_class != 0 && depth < kMaxStructDepth)  // flattened: "position.X"
        AddOwnFields(t.struct_class, field + ".", offset, depth + 1, out, names);
      continue;  // a kind not known: left out (see the header)
    }
    const auto index = static_cast<uint32_t>(out->fields.size());
    out->fields.push_back(Field{field, t.name, offset, t.kind, t.enum_id});
    if (t.kind == FieldKind::kReference)
      out->refs.emplace_back(offset, index);
    else
      out->values.emplace_back(offset, t.kind);
  }
}

std::string FieldLayouts::TokenName(cor::IMetaDataImport* md, cor::mdToken token) {
  if ((token & 0xff000000) == cor::kTokenTypeDef) return TypeNames::TypeDefName(md, token);
  if ((token & 0xff000000) == cor::kTokenTypeRef) {
    cor::WCHAR buf[kMetadataNameCapacity];
    cor::ULONG len = 0;
    cor::mdToken scope = 0;
    if (!cor::Failed(md->GetTypeRefProps(token, &scope, buf, kMetadataNameCapacity, &len)))
      return WithoutArity(Utf8(buf, len > 0 ? std::min(len, kMetadataNameCapacity) - 1 : 0));
  }
  return "?";
}

FieldLayouts::SigType FieldLayouts::Decode(cor::IMetaDataImport* md, cor::ModuleID module,
                                           const uint8_t* sig, size_t bytes, size_t* i,
                                           const std::vector<cor::ClassID>& args, TypeNames& names,
                                           int depth) {
  SigType t;
  while (*i < bytes && (sig[*i] == kEtCmodReqd || sig[*i] == kEtCmodOpt)) {
    ++*i;
    cor::mdToken ignored = 0;
    if (!ReadTypeToken(sig, bytes, i, &ignored)) return t;
  }
  if (*i >= bytes || depth > kMaxSigDepth) return t;
  const uint8_t et = sig[(*i)++];
  if (const char* primitive = PrimitiveName(et)) {
    t.kind = PrimitiveKind(et);
    t.name = primitive;
    Definition d;
    if (LibraryDef(t.name, &d)) t.klass = ClassOf(d);  // for a generic argument
    return t;
  }
  switch (et) {
    case kEtPtr: {
      const SigType pointee = Decode(md, module, sig, bytes, i, args, names, depth + 1);
      t.kind = FieldKind::kUIntPtr;
      t.name = pointee.name + "*";
      return t;
    }
    case kEtFnPtr:
      t.kind = FieldKind::kUIntPtr;
      t.name = "method pointer";
      *i = bytes;  // the method signature is not followed
      return t;
    case kEtClass: {
      cor::mdToken token = 0;
      if (!ReadTypeToken(sig, bytes, i, &token)) return t;
      t.kind = FieldKind::kReference;
      t.name = TokenName(md, token);
      Definition d;
      if (ResolveDef(md, module, token, t.name, &d)) t.klass = ClassOf(d);
      return t;
    }
    case kEtValueType: {
      cor::mdToken token = 0;
      if (!ReadTypeToken(sig, bytes, i, &token)) return t;
      return ValueTypeFromToken(md, module, token);
    }
    case kEtSzArray: {
      const SigType element = Decode(md, module, sig, bytes, i, args, names, depth + 1);
      t.kind = FieldKind::kReference;
      t.name = (element.name.empty() ? "?" : element.name) + "[]";
      return t;
    }
    case kEtArray: {
      const SigType element = Decode(md, module, sig, bytes, i, args, names, depth + 1);
      uint32_t rank = 1;
      ReadCompressed(sig, bytes, i, &rank);
      uint32_t n = 0, v = 0;  // sizes, then lower bounds: skipped
      if (ReadCompressed(sig, bytes, i, &n))
        for (uint32_t k = 0; k < n && ReadCompressed(sig, bytes, i, &v); ++k) {
        }
      if (ReadCompressed(sig, bytes, i, &n))
        for (uint32_t k = 0; k < n && ReadCompressed(sig, bytes, i, &v); ++k) {
        }
      t.kind = FieldKind::kReference;
      t.name = (element.name.empty() ? "?" : element.name) + "[" +
               std::string(rank > 1 && rank < kMaxRank ? rank - 1 : 0, ',') + "]";
      return t;
    }
    case kEtGenericInst: {
      if (*i >= bytes) return t;
      const uint8_t what = sig[(*i)++];
      cor::mdToken token = 0;
      uint32_t argc = 0;
      if (!ReadTypeToken(sig, bytes, i, &token) || !ReadCompressed(sig, bytes, i, &argc)) return t;
      const std::string generic = TokenName(md, token);
      std::string name = generic + "<";
      // The instantiation's class among the loaded ones: its definition and its arguments'
      // classes (a generic struct is flattened through it; without it, left out).
      Definition d;
      std::vector<uintptr_t> key;
      if (ResolveDef(md, module, token, generic, &d)) key = {d.module, d.type_def};
      for (uint32_t k = 0; k < argc && k < kMaxTypeArgs; ++k) {
        const SigType a = Decode(md, module, sig, bytes, i, args, names, depth + 1);
        name += (k ? ", " : "") + (a.name.empty() ? std::string("?") : a.name);
        if (a.klass == 0) key.clear();
        if (!key.empty()) key.push_back(a.klass);
      }
      t.name = name + ">";
      if (!key.empty()) {
        auto found = by_inst_.find(key);
        if (found != by_inst_.end()) t.klass = found->second;
      }
      if (what == kEtClass)
        t.kind = FieldKind::kReference;
      else
        t.struct_class = t.klass;
      return t;
    }
    case kEtVar: {
      uint32_t n = 0;
      if (!ReadCompressed(sig, bytes, i, &n) || n >= args.size() || args[n] == 0) return t;
      const cor::ClassID arg = args[n];
      t.klass = arg;
      t.name = names.ClassName(arg);
      t.kind = PrimitiveByName(t.name);
      if (t.kind != FieldKind::kUnknown) return t;
      cor::CorElementType element_type = 0;
      cor::ClassID element = 0;
      cor::ULONG rank = 0;
      if (info_->IsArrayClass(arg, &element_type, &element, &rank) == cor::S_OK) {
        t.kind = FieldKind::kReference;
        return t;
      }
      // A class is a reference; a struct (System.ValueType below it) is flattened.
      bool value_type = false;
      cor::ClassID c = arg;
      for (int k = 0; k < kMaxBaseChain && c != 0; ++k) {
        cor::ModuleID m = 0;
        cor::mdToken td = 0;
        cor::ClassID parent = 0;
        cor::ULONG nargs = 0;
        if (cor::Failed(info_->GetClassIDInfo2(c, &m, &td, &parent, 0, &nargs, nullptr))) break;
        if (c != arg && names.ClassName(c) == "System.ValueType") value_type = true;
        c = parent;
      }
      if (value_type)
        t.struct_class = arg;
      else
        t.kind = FieldKind::kReference;
      return t;
    }
    default:  // by-reference fields (ref structs: never on the heap), method type parameters
      *i = bytes;
      return t;
  }
}

bool FieldLayouts::ResolveDef(cor::IMetaDataImport* md, cor::ModuleID module, cor::mdToken token,
                              const std::string& name, Definition* out) {
  *out = Definition{};
  if ((token & 0xff000000) == cor::kTokenTypeDef) {
    out->md = md;
    out->module = module;
    out->type_def = token;
    return true;
  }
  if ((token & 0xff000000) != cor::kTokenTypeRef) return false;
  // The module the reference names (its reader, if the runtime gave it to the port before),
  // else the base library, where the reference assemblies forward most of theirs.
  cor::IUnknown* scope = nullptr;
  cor::mdToken type_def = 0;
  if (cor::Failed(md->ResolveTypeRef(token, cor::kIID_IMetaDataImport, &scope, &type_def)) ||
      !scope || type_def == 0) {
    if (scope) scope->Release();
    return LibraryDef(name, out);
  }
  auto* reader = static_cast<cor::IMetaDataImport*>(scope);
  if (!scopes_.insert(reader).second) reader->Release();  // kept once, released at the end
  const cor::ModuleID found = metadata_.ModuleOf(reader);
  if (found == 0 && LibraryDef(name, out)) return true;
  // Without its module (no class can be found for it) the definition still gives an enum.
  *out = Definition{reader, found, type_def};
  return true;
}

bool FieldLayouts::LibraryDef(const std::string& name, Definition* out) {
  cor::IMetaDataImport* lib = base_library_ ? metadata_.Get(base_library_) : nullptr;
  const std::u16string wide(name.begin(), name.end());  // type names are ASCII here
  cor::mdToken type_def = 0;
  if (!lib || cor::Failed(lib->FindTypeDefByName(wide.c_str(), 0, &type_def))) return false;
  *out = Definition{lib, base_library_, type_def};
  return true;
}

cor::ClassID FieldLayouts::ClassOf(const Definition& d) const {
  if (d.module == 0) return 0;
  auto found = by_def_.find(std::make_pair(d.module, d.type_def));
  return found != by_def_.end() ? found->second : 0;
}

FieldLayouts::SigType FieldLayouts::ValueTypeFromToken(cor::IMetaDataImport* md,
                                                       cor::ModuleID module, cor::mdToken token) {
  SigType t;
  t.name = TokenName(md, token);
  t.kind = PrimitiveByName(t.name);  // the base library declares its primitives as structs
  Definition d;
  if (!ResolveDef(md, module, token, t.name, &d)) return t;
  t.klass = ClassOf(d);
  if (t.kind != FieldKind::kUnknown) return t;
  cor::WCHAR buf[kMetadataNameCapacity];
  cor::ULONG len = 0;
  cor::DWORD flags = 0;
  cor::mdToken extends = 0;
  if (cor::Failed(
          d.md->GetTypeDefProps(d.type_def, buf, kMetadataNameCapacity, &len, &flags, &extends)))
    return t;
  if (TokenName(d.md, extends) == "System.Enum") {
    t.enum_id = EnumId(d.md, d.type_def, t.name, &t.kind);
    if (t.kind == FieldKind::kUnknown) t.enum_id = 0;
  } else {
    t.struct_class = t.klass;
  }
  return t;
}

uint32_t FieldLayouts::EnumId(cor::IMetaDataImport* md, cor::mdToken type_def,
                              const std::string& name, FieldKind* underlying) {
  auto it = enum_ids_.find(name);
  if (it != enum_ids_.end()) {
    *underlying = enums_[it->second - 1].underlying;
    return it->second;
  }
  Enum e;
  e.name = name;
  e.underlying = FieldKind::kUnknown;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> constants;
  void* en = nullptr;
  cor::mdToken fields[64];
  cor::ULONG n = 0;
  while (!cor::Failed(md->EnumFields(&en, type_def, fields, 64, &n)) && n > 0) {
    for (cor::ULONG k = 0; k < n; ++k) {
      cor::WCHAR buf[kMetadataNameCapacity];
      cor::ULONG len = 0;
      cor::DWORD attributes = 0, constant_type = 0;
      const uint8_t* sig = nullptr;
      cor::ULONG sig_bytes = 0, constant_len = 0;
      const void* constant = nullptr;
      if (cor::Failed(md->GetFieldProps(fields[k], nullptr, buf, kMetadataNameCapacity, &len,
                                        &attributes, &sig, &sig_bytes, &constant_type, &constant,
                                        &constant_len)))
        continue;
      if (!(attributes & cor::kFieldStatic)) {  // value__: the underlying primitive
        if (sig && sig_bytes >= 2) {
          size_t i = 1;
          while (i < sig_bytes && (sig[i] == kEtCmodReqd || sig[i] == kEtCmodOpt)) {
            ++i;
            cor::mdToken ignored = 0;
            if (!ReadTypeToken(sig, sig_bytes, &i, &ignored)) break;
          }
          if (i < sig_bytes) e.underlying = PrimitiveKind(sig[i]);
        }
        continue;
      }
      if (!(attributes & cor::kFieldLiteral) || !constant) continue;
      const auto* p = static_cast<const uint8_t*>(constant);
      const FieldKind constant_kind = PrimitiveKind(constant_type);
      if (constant_kind == FieldKind::kUnknown || constant_kind == FieldKind::kReference) continue;
      const size_t width = protocol::FieldKindBytes(constant_kind, sizeof(void*));
      constants.emplace_back(Utf8(buf, len > 0 ? std::min(len, kMetadataNameCapacity) - 1 : 0),
                             std::vector<uint8_t>(p, p + width));
    }
  }
  if (en) md->CloseEnum(en);
  *underlying = e.underlying;
  if (e.underlying == FieldKind::kUnknown || e.underlying == FieldKind::kReference) {
    *underlying = FieldKind::kUnknown;
    return 0;
  }
  std::vector<uint64_t> values;
  for (auto& c : constants) {
    uint8_t raw[8] = {};
    std::memcpy(raw, c.second.data(), std::min<size_t>(c.second.size(), 8));
    e.names.push_back(std::move(c.first));
    values.push_back(ReadBits(raw, e.underlying));
  }
  enums_.push_back(std::move(e));
  Enum& kept = enums_.back();  // names are final (and stay put): point at them
  for (size_t k = 0; k < kept.names.size(); ++k)
    kept.members.push_back({kept.names[k].data(), kept.names[k].size(), values[k]});
  const auto id = static_cast<uint32_t>(enums_.size());
  enum_ids_.emplace(name, id);
  return id;
}

// ---- inside the collection ----

const FieldLayouts::Layout* FieldLayouts::Find(cor::ClassID klass) {
  std::pair<cor::ClassID, const Layout*>& cached = recent_[RecentSlot(klass)];
  if (cached.first == klass) return cached.second;
  auto it = layouts_.find(klass);
  const Layout* l = nullptr;
  if (it != layouts_.end()) {
    l = it->second.get();
  } else {
    // Not prepared: an array (allowed here, and arrays are made as they are first used), or a
    // class loaded since Prepare (none this time; Prepare computes it next time).
    auto a = std::make_unique<Layout>();
    if (ArrayLayout(klass, a.get()) || IsStringClass(klass)) {
      if (a->shape != TypeShape::kArray) a->shape = TypeShape::kString;
      l = a.get();
      layouts_.emplace(klass, std::move(a));
    } else {
      layouts_.emplace(klass, nullptr);
    }
  }
  cached = {klass, l};
  return l;
}

void FieldLayouts::Record(HeapRecord* r, RecordedObject* o) {
  const size_t n = o->ref_count;
  uint32_t* slots = nullptr;  // r->slots_from_zero is false: HeapRecord::BeginObject
  // The references' slots, each kNoSlot until matched (the scratch is kept at its largest: no
  // call per object).
  auto no_slots = [&] {
    if (r->slots.size() < n) r->slots.resize(n);
    slots = r->slots.data();
    std::fill_n(slots, n, agent::kNoSlot);
  };
  const Layout* l = Find(o->klass);
  // An array of references sets no slots until it is known to hold nulls: without any, its
  // references are its elements in order, and the stream needs no slot for them.
  const bool reference_array =
      l && l->shape == TypeShape::kArray && l->element_kind == FieldKind::kReference;
  if (!reference_array) no_slots();
  if (!l) return;
  const uintptr_t object = static_cast<uintptr_t>(o->id);
  const uint64_t* refs = n ? r->object_refs : nullptr;
  switch (l->shape) {
    case TypeShape::kString: {
      int32_t length = 0;
      std::memcpy(&length, reinterpret_cast<const void*>(object + string_length_offset_), 4);
      if (length < 0) return;
      r->values.push_back(static_cast<uint32_t>(length));
      const auto* units = reinterpret_cast<const uint16_t*>(object + string_buffer_offset_);
      r->text.insert(r->text.end(), units,
                     units + std::min<uint32_t>(static_cast<uint32_t>(length), kMaxStringUnits));
      o->value_count = 1;
      o->values = true;
      return;
    }
    case TypeShape::kArray: {
      cor::ULONG sizes[kMaxRank] = {};
      int32_t lower[kMaxRank] = {};
      uint8_t* data = nullptr;
      if (cor::Failed(info_->GetArrayObjectInfo(static_cast<cor::ObjectID>(o->id), l->rank, sizes,
                                                lower, &data)) ||
          !data) {
        if (reference_array) no_slots();
        return;
      }
      uint64_t length = 1;
      for (cor::ULONG d = 0; d < l->rank; ++d) length *= sizes[d];
      r->values.push_back(length);
      o->value_count = 1;
      o->values = true;
      if (reference_array && n == length) {  // no nulls: the k-th reference is element k
        r->slots_from_zero = true;
        return;
      }
      if (reference_array) no_slots();
      if (n == 0 || length == 0) return;
      const auto* words = reinterpret_cast<const uintptr_t*>(data);
      size_t cursor = 0;
      if (reference_array) {
        size_t budget = kScanPasses * length + n;
        for (size_t k = 0; k < n; ++k)
          slots[k] = MatchWord(words, length, refs[k], &cursor, &budget);
        return;
      }
      // Structs holding references: the word's element.
      size_t size = 0;
      if (cor::Failed(info_->GetObjectSize2(static_cast<cor::ObjectID>(o->id), &size))) return;
      const uintptr_t data_offset = reinterpret_cast<uintptr_t>(data) - object;
      if (size <= data_offset) return;
      const size_t element = (size - data_offset) / length;
      if (element < sizeof(uintptr_t)) return;
      const size_t count = length * element / sizeof(uintptr_t);
      size_t budget = kScanPasses * count + n;
      for (size_t k = 0; k < n; ++k) {
        const uint32_t word = MatchWord(words, count, refs[k], &cursor, &budget);
        if (word != agent::kNoSlot)
          slots[k] = static_cast<uint32_t>(word * sizeof(uintptr_t) / element);
      }
      return;
    }
    default:
      break;
  }
  for (const auto& v : l->values)
    r->values.push_back(ReadBits(reinterpret_cast<const uint8_t*>(object + v.first), v.second));
  o->value_count = static_cast<uint32_t>(l->values.size());
  o->values = true;
  if (n == 0 || l->refs.empty()) return;
  // Each reported reference is the value of one reference field: match them. A matched
  // field's value becomes 0, which no reported reference is (only non-null ones are), so two
  // fields holding the same object take one reference each.
  const size_t m = l->refs.size();
  if (held_.size() < m) held_.resize(m);
  uint64_t* held = held_.data();
  for (size_t j = 0; j < m; ++j) held[j] = ReadPointer(object + l->refs[j].first);
  size_t cursor = 0;
  for (size_t k = 0; k < n; ++k) {
    for (size_t step = 0, j = cursor; step < m; ++step, j = j + 1 == m ? 0 : j + 1) {
      // j = (cursor + step) mod m, without a division per step (cursor < m)
      if (held[j] == refs[k]) {
        held[j] = 0;
        slots[k] = l->refs[j].second;
        cursor = j + 1 == m ? 0 : j + 1;
        break;
      }
    }
  }
}

// ---- the walk ----

bool FieldLayouts::Describe(agent::HeapInfoCallback& sink, uint32_t type_id, cor::ClassID klass,
                            const std::vector<agent::StaticFieldInfo>& statics, TypeNames& names) {
  auto it = layouts_.find(klass);
  const Layout* l = it != layouts_.end() ? it->second.get() : nullptr;
  if (!l) {  // met in the collection without one: its description at least (world running)
    auto computed = std::make_unique<Layout>();
    if (Compute(klass, computed.get(), names)) {
      l = computed.get();
      layouts_[klass] = std::move(computed);
      recent_[RecentSlot(klass)] = {0, nullptr};
    }
  }
  if (!l && statics.empty()) return true;
  info_fields_.clear();
  if (l) {
    for (const Field& f : l->fields) {
      if (f.enum_id != 0 && f.enum_id - 1 < enums_.size()) {
        if (enum_described_.size() < enums_.size()) enum_described_.resize(enums_.size(), 0);
        if (!enum_described_[f.enum_id - 1]) {
          enum_described_[f.enum_id - 1] = 1;
          const Enum& e = enums_[f.enum_id - 1];
          if (sink.DescribeEnum(f.enum_id, e.name.data(), e.name.size(), e.underlying,
                                e.members.data(), e.members.size()) == WalkResult::kAbort)
            return false;
        }
      }
      info_fields_.push_back(agent::FieldInfo{f.name.data(), f.name.size(), f.type_name.data(),
                                              f.type_name.size(), f.offset, f.kind, f.enum_id != 0,
                                              f.enum_id});
    }
  }
  agent::TypeLayoutInfo layout{};
  layout.shape = l ? l->shape : klass == string_class_ ? TypeShape::kString : TypeShape::kClass;
  layout.fields = info_fields_.data();
  layout.field_count = info_fields_.size();
  layout.statics = statics.data();
  layout.static_count = statics.size();
  std::string element_name;
  if (l && l->shape == TypeShape::kArray) {
    layout.element_kind = l->element_kind;
    if (l->element_class != 0) {
      element_name = names.ClassName(l->element_class);
    } else if (const char* p = PrimitiveName(l->element_type)) {
      element_name = p;
    }
    layout.element_type_name = element_name.data();
    layout.element_type_name_len = element_name.size();
  }
  return sink.DescribeLayout(type_id, layout) != WalkResult::kAbort;
}

}  // namespace dotnet
}  // namespace xrpm
