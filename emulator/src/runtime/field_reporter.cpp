#include "field_reporter.h"

#include <algorithm>
#include <cstring>

namespace xrpm::emulator {
namespace {
using agent::FieldKind;
using agent::WalkResult;

FieldKind KindOf(FieldType t) {
  switch (t) {
    case FieldType::kRef:
      return FieldKind::kReference;
    case FieldType::kInt32:
      return FieldKind::kInt32;
    case FieldType::kFloat:
      return FieldKind::kSingle;
    case FieldType::kBool:
      return FieldKind::kBoolean;
    case FieldType::kInt64:
      return FieldKind::kInt64;
    case FieldType::kVector2:
      break;
  }
  return FieldKind::kSingle;  // each half of a Vector2
}

// Value arrays carry no element type in the type table: their name says it.
FieldKind ElementKind(const TypeDesc& t) {
  if (t.element_is_ref) return FieldKind::kReference;
  const std::string& n = t.name;
  if (n == "System.Byte[]") return FieldKind::kByte;
  if (n == "System.Char[]") return FieldKind::kChar;
  if (n == "System.Int32[]") return FieldKind::kInt32;
  if (n == "System.Single[]") return FieldKind::kSingle;
  if (n == "System.Int16[]") return FieldKind::kInt16;
  return FieldKind::kUnknown;  // structs (Vector2[], VertexPositionColor[])
}

template <class T>
T Read(const ManagedHeap& heap, Addr a, uint32_t off) {
  T v;
  std::memcpy(&v, heap.At(a) + off, sizeof v);
  return v;
}

}  // namespace

FieldReporter::FieldReporter(const TypeTable& types, const Statics& statics,
                             const MethodTable& methods, const agent::WalkDetail& detail)
    : types_(types), statics_(statics), methods_(methods), detail_(detail) {
  if (detail_.fields) Build();
}

void FieldReporter::Build() {
  plans_.resize(types_.size());
  for (TypeIndex ti = kFirstRealType; ti < types_.size(); ++ti) {
    const TypeDesc& t = types_[ti];
    Plan& p = plans_[ti];
    if (t.kind != TypeKind::kClass) continue;
    size_t vectors = 0;
    for (const FieldDesc& f : t.fields) vectors += f.type == FieldType::kVector2;
    p.names.reserve(2 * vectors);  // stable storage for the flattened names
    for (const FieldDesc& f : t.fields) {
      if (f.type == FieldType::kVector2) {
        for (int half = 0; half < 2; ++half) {
          p.names.push_back(f.name + (half ? ".Y" : ".X"));
          const std::string& n = p.names.back();
          const auto off = static_cast<uint32_t>(f.offset + 4 * half);
          p.fields.push_back(agent::FieldInfo{n.data(), n.size(), "System.Single", 13, off,
                                              FieldKind::kSingle, false, 0});
          p.values.emplace_back(static_cast<uint16_t>(off), FieldKind::kSingle);
        }
        continue;
      }
      const char* declared = DeclaredTypeName(f);
      const FieldKind k = KindOf(f.type);
      if (k == FieldKind::kReference)
        p.ref_slot.push_back(static_cast<uint32_t>(p.fields.size()));
      else
        p.values.emplace_back(f.offset, k);
      p.fields.push_back(agent::FieldInfo{f.name.data(), f.name.size(), declared,
                                          std::strlen(declared), f.offset, k, false, 0});
    }
  }
  for (const StaticSlot& s : statics_.slots()) {
    if (s.owner >= plans_.size()) continue;
    const char* declared = s.type_name.empty() ? "System.Object" : s.type_name.c_str();
    plans_[s.owner].statics.push_back(agent::StaticFieldInfo{
        s.name.data(), s.name.size(), declared, std::strlen(declared), FieldKind::kReference});
  }
}

bool FieldReporter::DescribeLayouts(agent::HeapInfoCallback& sink) {
  for (TypeIndex ti = kFirstRealType; ti < types_.size(); ++ti) {
    const TypeDesc& t = types_[ti];
    const Plan& p = plans_[ti];
    agent::TypeLayoutInfo l{};
    l.statics = p.statics.data();
    l.static_count = p.statics.size();
    l.element_kind = FieldKind::kUnknown;
    std::string element;
    switch (t.kind) {
      case TypeKind::kString:
        l.shape = agent::TypeShape::kString;
        break;
      case TypeKind::kArray:
        l.shape = agent::TypeShape::kArray;
        l.element_kind = ElementKind(t);
        element = t.name.size() > 2 ? t.name.substr(0, t.name.size() - 2) : t.name;
        l.element_type_name = element.data();
        l.element_type_name_len = element.size();
        break;
      default:
        l.shape = t.options.value_type ? agent::TypeShape::kValueType : agent::TypeShape::kClass;
        l.fields = p.fields.data();
        l.field_count = p.fields.size();
    }
    if (sink.DescribeLayout(ti, l) == WalkResult::kAbort) return false;
  }
  return true;
}

WalkResult FieldReporter::LabelContainer(agent::HeapInfoCallback& sink, agent::ContainerType type,
                                         uint64_t id2) const {
  if (agent::RootDescriptorFor(type) != 1) return WalkResult::kOk;
  const MethodId m = methods_.FromWireId(id2);
  if (m == kNoMethod) return WalkResult::kOk;
  const std::string& name = methods_[m].name;
  return sink.ContainerLabel(name.data(), name.size());
}

const uint32_t* FieldReporter::Slots(const TypeDesc& t, const uint32_t* slot_numbers, size_t n) {
  if (t.kind != TypeKind::kClass) return slot_numbers;  // an array's element indices
  const Plan& p = plans_[&t - &types_[0]];
  if (slots_.size() < n) slots_.resize(n);
  for (size_t i = 0; i < n; ++i) slots_[i] = p.ref_slot[slot_numbers[i]];
  return slots_.data();
}

WalkResult FieldReporter::ReportValues(agent::HeapInfoCallback& sink, const ManagedHeap& heap,
                                       Addr a, const uint32_t* h) {
  if (!detail_.values) return WalkResult::kOk;
  const TypeIndex ti = h[0] & kTypeMask;
  const TypeDesc& t = types_[ti];
  switch (t.kind) {
    case TypeKind::kString: {
      const uint32_t length = h[2];
      const auto* units = reinterpret_cast<const uint16_t*>(heap.At(a) + kArrayHeaderBytes);
      return sink.StringValue(a, length, units, std::min(length, detail_.string_cap));
    }
    case TypeKind::kArray: {
      const uint64_t length = h[2];
      return sink.ObjectValues(a, &length, 1);
    }
    case TypeKind::kClass:
      break;
    default:
      return WalkResult::kOk;
  }
  const Plan& p = plans_[ti];
  bits_.clear();
  for (const auto& [off, kind] : p.values) {
    switch (kind) {
      case FieldKind::kInt32:
        bits_.push_back(static_cast<uint64_t>(int64_t{Read<int32_t>(heap, a, off)}));
        break;
      case FieldKind::kSingle:
        bits_.push_back(Read<uint32_t>(heap, a, off));
        break;
      case FieldKind::kBoolean:
        bits_.push_back(Read<uint32_t>(heap, a, off) != 0);
        break;
      default:  // kInt64
        bits_.push_back(static_cast<uint64_t>(Read<int64_t>(heap, a, off)));
    }
  }
  return sink.ObjectValues(a, bits_.data(), bits_.size());
}

}  // namespace xrpm::emulator
