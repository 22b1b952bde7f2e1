#include "field_layouts.h"

#include <mono/metadata/appdomain.h>
#include <mono/metadata/attrdefs.h>
#include <mono/metadata/blob.h>
#include <mono/metadata/class.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/metadata.h>
#include <mono/metadata/object.h>

#include <algorithm>
#include <cstring>

namespace xrpm {
namespace mono {
namespace {

using agent::FieldKind;
using agent::WalkResult;

constexpr int kMaxStructDepth = 8;   // nesting of embedded structs flattened
constexpr size_t kMaxFields = 4096;  // per class, flattened (the agent cuts at its limit)
constexpr uint32_t kBoxHeader = 2 * sizeof(void*);  // MonoObject: vtable + sync

std::string TypeName(MonoType* t) {
  char* n = mono_type_get_name(t);
  std::string s = n ? n : "?";
  if (n) mono_free(n);
  return s;
}

// The primitive kind of a type code, or kUnknown.
FieldKind Primitive(int code) {
  switch (code) {
    case MONO_TYPE_BOOLEAN:
      return FieldKind::kBoolean;
    case MONO_TYPE_CHAR:
      return FieldKind::kChar;
    case MONO_TYPE_I1:
      return FieldKind::kSByte;
    case MONO_TYPE_U1:
      return FieldKind::kByte;
    case MONO_TYPE_I2:
      return FieldKind::kInt16;
    case MONO_TYPE_U2:
      return FieldKind::kUInt16;
    case MONO_TYPE_I4:
      return FieldKind::kInt32;
    case MONO_TYPE_U4:
      return FieldKind::kUInt32;
    case MONO_TYPE_I8:
      return FieldKind::kInt64;
    case MONO_TYPE_U8:
      return FieldKind::kUInt64;
    case MONO_TYPE_I:
      return FieldKind::kIntPtr;
    case MONO_TYPE_U:
    case MONO_TYPE_PTR:
    case MONO_TYPE_FNPTR:
      return FieldKind::kUIntPtr;
    case MONO_TYPE_R4:
      return FieldKind::kSingle;
    case MONO_TYPE_R8:
      return FieldKind::kDouble;
    default:
      return FieldKind::kUnknown;
  }
}

// A value type's class (a struct or an enum), or null for reference and primitive types.
MonoClass* ValueClass(MonoType* t) {
  const int code = mono_type_get_type(t);
  if (code != MONO_TYPE_VALUETYPE && code != MONO_TYPE_GENERICINST) return nullptr;
  MonoClass* k = mono_class_from_mono_type(t);
  return k && mono_class_is_valuetype(k) ? k : nullptr;
}

bool IsReference(MonoType* t) {
  switch (mono_type_get_type(t)) {
    case MONO_TYPE_STRING:
    case MONO_TYPE_CLASS:
    case MONO_TYPE_OBJECT:
    case MONO_TYPE_SZARRAY:
    case MONO_TYPE_ARRAY:
    case MONO_TYPE_VAR:
    case MONO_TYPE_MVAR:
      return true;
    case MONO_TYPE_GENERICINST:
      return ValueClass(t) == nullptr;
    default:
      return false;
  }
}

// The field's kind: reference, primitive, or an enum's underlying primitive (*enum_class set).
FieldKind KindOf(MonoType* t, MonoClass** enum_class) {
  *enum_class = nullptr;
  if (IsReference(t)) return FieldKind::kReference;
  MonoClass* vc = ValueClass(t);
  if (vc && mono_class_is_enum(vc)) {
    *enum_class = vc;
    return Primitive(mono_type_get_type(mono_class_enum_basetype(vc)));
  }
  return Primitive(mono_type_get_type(t));
}

uint64_t ReadBits(const char* p, FieldKind k) {
  switch (k) {
    case FieldKind::kBoolean:
      return *reinterpret_cast<const uint8_t*>(p) != 0;
    case FieldKind::kSByte:
      return static_cast<uint64_t>(int64_t{*reinterpret_cast<const int8_t*>(p)});
    case FieldKind::kByte:
      return *reinterpret_cast<const uint8_t*>(p);
    default:
      break;
  }
  if (k == FieldKind::kInt16) {
    int16_t v;
    std::memcpy(&v, p, 2);
    return static_cast<uint64_t>(int64_t{v});
  }
  if (k == FieldKind::kChar || k == FieldKind::kUInt16) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  if (k == FieldKind::kInt32 || (k == FieldKind::kIntPtr && sizeof(void*) == 4)) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return static_cast<uint64_t>(int64_t{v});
  }
  if (k == FieldKind::kUInt32 || k == FieldKind::kSingle ||
      (k == FieldKind::kUIntPtr && sizeof(void*) == 4)) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  uint64_t v;  // 64-bit kinds
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

uint32_t FieldLayouts::EnumId(void* klass_ptr) {
  auto* klass = static_cast<MonoClass*>(klass_ptr);
  const auto key = reinterpret_cast<uintptr_t>(klass);
  auto it = enum_ids_.find(key);
  if (it != enum_ids_.end()) return it->second;
  Enum e;
  e.name = TypeName(mono_class_get_type(klass));
  e.underlying = Primitive(mono_type_get_type(mono_class_enum_basetype(klass)));
  // Members are the enum's constants: their values are metadata blobs (a compressed length,
  // then the value's little-endian bytes), read without a vtable or any managed call.
  const uint32_t width =
      e.underlying == FieldKind::kByte || e.underlying == FieldKind::kSByte ? 1
      : e.underlying == FieldKind::kInt16 || e.underlying == FieldKind::kUInt16 ||
              e.underlying == FieldKind::kChar
          ? 2
      : e.underlying == FieldKind::kInt64 || e.underlying == FieldKind::kUInt64 ? 8
                                                                                : 4;
  void* iter = nullptr;
  while (MonoClassField* f = mono_class_get_fields(klass, &iter)) {
    const uint32_t flags = mono_field_get_flags(f);
    if (!(flags & MONO_FIELD_ATTR_STATIC) || !(flags & MONO_FIELD_ATTR_LITERAL)) continue;
    const char* blob = mono_field_get_data(f);
    if (!blob) continue;
    const char* data = blob;
    if (mono_metadata_decode_blob_size(blob, &data) < width) continue;
    char raw[8] = {};
    for (uint32_t b = 0; b < width; ++b) raw[b] = data[b];  // little-endian, as on this host
    e.names.push_back(mono_field_get_name(f));
    e.values.push_back(ReadBits(raw, e.underlying));
  }
  enums_.push_back(std::move(e));
  Enum& kept = enums_.back();  // names are final (and stay put): point at them
  for (size_t k = 0; k < kept.names.size(); ++k)
    kept.members.push_back({kept.names[k].data(), kept.names[k].size(), kept.values[k]});
  const auto id = static_cast<uint32_t>(enums_.size());
  enum_ids_.emplace(key, id);
  return id;
}

void FieldLayouts::AddField(const std::string& prefix, void* type_ptr, uint32_t offset, int depth,
                            Layout* out) {
  auto* t = static_cast<MonoType*>(type_ptr);
  if (out->fields.size() >= kMaxFields) return;
  MonoClass* vc = ValueClass(t);
  if (vc && !mono_class_is_enum(vc) && depth < kMaxStructDepth) {
    // An embedded struct: its instance fields, flattened (their offsets are a boxed one's).
    void* iter = nullptr;
    while (MonoClassField* f = mono_class_get_fields(vc, &iter)) {
      if (mono_field_get_flags(f) & MONO_FIELD_ATTR_STATIC) continue;
      AddField(prefix + "." + mono_field_get_name(f), mono_field_get_type(f),
               offset + mono_field_get_offset(f) - kBoxHeader, depth + 1, out);
    }
    return;
  }
  MonoClass* enum_class = nullptr;
  const FieldKind k = KindOf(t, &enum_class);
  const auto index = static_cast<uint32_t>(out->fields.size());
  out->fields.push_back(Field{prefix, TypeName(t), offset, k, enum_class != nullptr,
                              enum_class ? EnumId(enum_class) : 0});
  if (k == FieldKind::kReference)
    out->ref_offsets.emplace_back(offset, index);
  else if (k != FieldKind::kUnknown)
    out->values.emplace_back(offset, k);
}

void FieldLayouts::Traits(void* k, const std::string& name, agent::TypeTraits* out) {
  auto* klass = static_cast<MonoClass*>(k);
  if (const int rank = mono_class_get_rank(klass); rank > 0) {
    out->kind = agent::TypeKind::kArray;
    out->array_rank = static_cast<uint32_t>(rank);
    const size_t open = name.rfind('[');
    if (open != std::string::npos && open > 0 && name.back() == ']') {
      out->element_type_name = name.data();
      out->element_type_name_len = open;
    }
  } else if (mono_class_is_enum(klass)) {
    MonoType* base = mono_class_enum_basetype(klass);
    out->enum_underlying = base ? Primitive(mono_type_get_type(base)) : FieldKind::kUnknown;
    // An enum whose base type Mono has not set up yet: said a value type, not an enum.
    out->kind = agent::TypeKind::kValueType;
    if (out->enum_underlying != FieldKind::kUnknown &&
        out->enum_underlying != FieldKind::kReference)
      out->kind = agent::TypeKind::kEnum;
  } else {
    out->kind =
        mono_class_is_valuetype(klass) ? agent::TypeKind::kValueType : agent::TypeKind::kClass;
  }
}

void FieldLayouts::Compute(void* klass_ptr, Layout* out) {
  auto* klass = static_cast<MonoClass*>(klass_ptr);
  if (mono_class_get_rank(klass) > 0) {
    out->shape = agent::TypeShape::kArray;
    MonoClass* elem = mono_class_get_element_class(klass);
    MonoClass* enum_class = nullptr;
    MonoType* et = mono_class_get_type(elem);
    out->element_kind = KindOf(et, &enum_class);
    out->element_type_name = TypeName(et);
    out->element_size = static_cast<uint32_t>(mono_array_element_size(klass));
    return;
  }
  if (klass == mono_get_string_class()) {
    out->shape = agent::TypeShape::kString;
    return;
  }
  out->shape =
      mono_class_is_valuetype(klass) ? agent::TypeShape::kValueType : agent::TypeShape::kClass;
  std::vector<MonoClass*> chain;  // the class and its parents, base first
  for (MonoClass* c = klass; c; c = mono_class_get_parent(c)) chain.push_back(c);
  // Has a finalizer: some class below System.Object declares Finalize() (a C# destructor).
  // What Mono's internal mono_class_has_finalizer tells, through the public metadata API.
  if (out->shape == agent::TypeShape::kClass)
    for (MonoClass* c = klass; c && c != mono_get_object_class(); c = mono_class_get_parent(c))
      if (MonoMethod* m = mono_class_get_method_from_name(c, "Finalize", 0);
          m && mono_method_get_class(m) == c) {
        out->has_finalizer = true;
        break;
      }
  std::reverse(chain.begin(), chain.end());
  for (MonoClass* c : chain) {
    void* iter = nullptr;
    while (MonoClassField* f = mono_class_get_fields(c, &iter)) {
      const uint32_t flags = mono_field_get_flags(f);
      if (!(flags & MONO_FIELD_ATTR_STATIC)) {
        AddField(mono_field_get_name(f), mono_field_get_type(f), mono_field_get_offset(f), 0, out);
        continue;
      }
      // Statics of the class itself (inherited ones are its bases'); constants are not stored.
      if (c != klass || (flags & MONO_FIELD_ATTR_LITERAL)) continue;
      MonoType* t = mono_field_get_type(f);
      MonoClass* enum_class = nullptr;
      const FieldKind k = KindOf(t, &enum_class);
      if (k == FieldKind::kUnknown) continue;  // struct statics: not modelled
      const auto index = static_cast<uint32_t>(out->statics.size());
      out->statics.push_back(Field{mono_field_get_name(f), TypeName(t), 0, k, false, 0});
      if (k == FieldKind::kReference)
        out->static_refs.emplace_back(static_cast<uint32_t>(mono_field_get_offset(f)), index);
    }
  }
  std::sort(out->ref_offsets.begin(), out->ref_offsets.end());
  std::sort(out->static_refs.begin(), out->static_refs.end());
}

const FieldLayouts::Layout* FieldLayouts::Find(uint32_t type_id) {
  if (type_id != last_type_ || !last_) {
    last_type_ = type_id;
    last_ = ByType(type_id);
  }
  return last_;
}

void FieldLayouts::Prepare(Registry& registry) {
  std::lock_guard<std::mutex> lock(registry.mutex());
  last_ = nullptr;
  // A freed class's address taken by a new class: forget what was cached under it (the old
  // type ids lose their layout; their class is gone) and compute the new class's below.
  for (const uintptr_t key : registry.TakeReplaced()) {
    auto it = layouts_.find(key);
    if (it != layouts_.end()) {
      std::replace(by_type_.begin(), by_type_.end(), static_cast<const Layout*>(&it->second),
                   static_cast<const Layout*>(nullptr));
      layouts_.erase(it);
    }
    enum_ids_.erase(key);  // a new enum id if it is an enum (the old stays, unused)
  }
  const std::vector<uintptr_t>& keys = registry.keys();
  const std::vector<uintptr_t>& domains = registry.type_domains();
  by_type_.resize(keys.size(), nullptr);
  for (size_t i = 0; i < keys.size(); ++i) {
    // Synthetic containers have no class; a type of an unloaded domain may name a freed one.
    if (by_type_[i] || keys[i] <= Registry::kMaxSyntheticKey || domains[i] == Registry::kGoneDomain)
      continue;
    auto it = layouts_.find(keys[i]);
    if (it == layouts_.end()) {
      it = layouts_.emplace(keys[i], Layout{}).first;
      Compute(reinterpret_cast<void*>(keys[i]), &it->second);
      Finish(&it->second);
    }
    by_type_[i] = &it->second;
  }
}

bool FieldLayouts::Bind(uint32_t type_id, uintptr_t klass) {
  auto it = layouts_.find(klass);
  if (type_id == 0 || it == layouts_.end()) return false;
  if (by_type_.size() < type_id) by_type_.resize(type_id, nullptr);
  if (described_.size() < type_id) described_.resize(type_id, 0);
  by_type_[type_id - 1] = &it->second;
  last_ = nullptr;
  return true;
}

void FieldLayouts::Finish(Layout* l) {
  constexpr uint32_t kWord = sizeof(void*);
  if (!l->ref_offsets.empty()) {
    l->slot_by_word.assign(l->ref_offsets.back().first / kWord + 1, agent::kNoSlot);
    for (const auto& [offset, index] : l->ref_offsets)
      if (offset % kWord == 0) l->slot_by_word[offset / kWord] = index;
  }
  l->field_info.reserve(l->fields.size());
  for (const Field& f : l->fields) {
    l->field_info.push_back({f.name.data(), f.name.size(), f.type_name.data(), f.type_name.size(),
                             f.offset, f.kind, f.is_enum, f.enum_id});
    if (f.enum_id &&
        std::find(l->enum_ids.begin(), l->enum_ids.end(), f.enum_id) == l->enum_ids.end())
      l->enum_ids.push_back(f.enum_id);
  }
  l->static_info.reserve(l->statics.size());
  for (const Field& f : l->statics)
    l->static_info.push_back(
        {f.name.data(), f.name.size(), f.type_name.data(), f.type_name.size(), f.kind});
}

void FieldLayouts::BeginWalk() {
  described_.assign(by_type_.size(), 0);
  enum_described_.assign(enums_.size(), 0);
}

bool FieldLayouts::DescribeNew(agent::HeapInfoCallback& sink, uint32_t type_id) {
  described_[type_id - 1] = 1;
  const Layout* found = by_type_[type_id - 1];
  if (!found) return true;
  const Layout& l = *found;
  for (const uint32_t id : l.enum_ids) {
    if (id - 1 >= enum_described_.size() || enum_described_[id - 1]) continue;
    enum_described_[id - 1] = 1;
    const Enum& e = enums_[id - 1];
    if (sink.DescribeEnum(id, e.name.data(), e.name.size(), e.underlying, e.members.data(),
                          e.members.size()) == WalkResult::kAbort)
      return false;
  }
  const agent::TypeLayoutInfo info{l.shape,
                                   l.field_info.data(),
                                   l.field_info.size(),
                                   l.static_info.data(),
                                   l.static_info.size(),
                                   l.element_kind,
                                   l.element_type_name.data(),
                                   l.element_type_name.size()};
  return sink.DescribeLayout(type_id, info) != WalkResult::kAbort;
}

uint32_t FieldLayouts::StaticSlot(uint32_t type_id, uintptr_t offset) const {
  const Layout* l = ByType(type_id);
  if (!l) return agent::kNoSlot;
  const auto& v = l->static_refs;
  auto s = std::lower_bound(v.begin(), v.end(), std::make_pair(static_cast<uint32_t>(offset), 0u));
  return s != v.end() && s->first == offset ? s->second : agent::kNoSlot;
}

const uint32_t* FieldLayouts::Slots(uint32_t type_id, const void* object, const uintptr_t* offsets,
                                    size_t n) {
  const Layout* found = Find(type_id);
  if (!found || found->shape != agent::TypeShape::kClass) {
    slots_.assign(n, agent::kNoSlot);
    if (!found) return slots_.data();
  } else if (slots_.size() < n) {
    slots_.resize(n);  // a class's slots are each written below
  }
  const Layout& l = *found;
  if (l.shape == agent::TypeShape::kArray) {
    if (l.element_size == 0) return slots_.data();
    auto* array = static_cast<MonoArray*>(const_cast<void*>(object));
    const uintptr_t data = static_cast<uintptr_t>(
        mono_array_addr_with_size(array, static_cast<int>(l.element_size), 0) -
        static_cast<char*>(const_cast<void*>(object)));
    for (size_t i = 0; i < n; ++i)
      if (offsets[i] >= data)
        slots_[i] = static_cast<uint32_t>((offsets[i] - data) / l.element_size);
    return slots_.data();
  }
  constexpr uintptr_t kWord = sizeof(void*);
  const uint32_t* table = l.slot_by_word.data();
  const size_t words = l.slot_by_word.size();
  uint32_t* out = slots_.data();
  for (size_t i = 0; i < n; ++i) {
    const uintptr_t o = offsets[i];
    if (o % kWord == 0 && o / kWord < words) {
      out[i] = table[o / kWord];
      continue;
    }
    auto s = std::lower_bound(l.ref_offsets.begin(), l.ref_offsets.end(),
                              std::make_pair(static_cast<uint32_t>(o), 0u));
    out[i] = s != l.ref_offsets.end() && s->first == o ? s->second : agent::kNoSlot;
  }
  return out;
}

WalkResult FieldLayouts::ReportValues(agent::HeapInfoCallback& sink, uint32_t type_id,
                                      const void* object, uint32_t string_cap) {
  const Layout* found = Find(type_id);
  if (!found) return WalkResult::kOk;
  const Layout& l = *found;
  switch (l.shape) {
    case agent::TypeShape::kString: {
      auto* s = static_cast<MonoString*>(const_cast<void*>(object));
      const auto length = static_cast<uint32_t>(mono_string_length(s));
      return sink.StringValue(reinterpret_cast<uint64_t>(object), length,
                              reinterpret_cast<const uint16_t*>(mono_string_chars(s)),
                              std::min(length, string_cap));
    }
    case agent::TypeShape::kArray: {
      const uint64_t length = mono_array_length(static_cast<MonoArray*>(const_cast<void*>(object)));
      return sink.ObjectValues(reinterpret_cast<uint64_t>(object), &length, 1);
    }
    default:
      break;
  }
  bits_.resize(l.values.size());  // no-op once as large as the widest layout's
  const char* base = static_cast<const char*>(object);
  uint64_t* out = bits_.data();
  for (const auto& [offset, kind] : l.values) *out++ = ReadBits(base + offset, kind);
  return sink.ObjectValues(reinterpret_cast<uint64_t>(object), bits_.data(), bits_.size());
}

}  // namespace mono
}  // namespace xrpm
