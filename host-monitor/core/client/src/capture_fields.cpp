#include "capture_fields.h"

#include <cstring>

#include "xrpm/model/fork_join.h"
#include "xrpm/model/object_fields.h"
#include "xrpm/protocol/utf8.h"

namespace xrpm::client {
namespace {

using protocol::RawContainer;
using PK = protocol::FieldKind;

std::string Clean(const std::string& s) {
  return protocol::SanitizeUtf8(s.c_str(), s.size());
}

// The model's kind of a wire kind (fields.h numbering -> heap_fields.h numbering).
FieldKind ModelKind(PK k) {
  switch (k) {
    case PK::kBoolean:
      return FieldKind::kBoolean;
    case PK::kChar:
      return FieldKind::kChar;
    case PK::kSByte:
      return FieldKind::kSByte;
    case PK::kByte:
      return FieldKind::kByte;
    case PK::kInt16:
      return FieldKind::kInt16;
    case PK::kUInt16:
      return FieldKind::kUInt16;
    case PK::kInt32:
      return FieldKind::kInt32;
    case PK::kUInt32:
      return FieldKind::kUInt32;
    case PK::kInt64:
      return FieldKind::kInt64;
    case PK::kUInt64:
      return FieldKind::kUInt64;
    case PK::kIntPtr:
      return FieldKind::kIntPtr;
    case PK::kUIntPtr:
      return FieldKind::kUIntPtr;
    case PK::kSingle:
      return FieldKind::kSingle;
    case PK::kDouble:
      return FieldKind::kDouble;
    case PK::kReference:
    case PK::kUnknown:
      break;
  }
  return FieldKind::kReference;
}

TypeShape ModelShape(protocol::TypeShape s) {
  switch (s) {
    case protocol::TypeShape::kClass:
    case protocol::TypeShape::kValueType:
      return TypeShape::kClass;
    case protocol::TypeShape::kString:
      return TypeShape::kString;
    case protocol::TypeShape::kArray:
      return TypeShape::kArray;
  }
  return TypeShape::kUnknown;
}

}  // namespace

CaptureFields::CaptureFields(bool fields, bool values, uint32_t string_cap, uint32_t pointer_bytes)
    : checker_(fields, values, string_cap, pointer_bytes),
      fields_(fields),
      values_(values),
      string_cap_(string_cap),
      pointer_bytes_(pointer_bytes) {}

bool CaptureFields::Check(const protocol::RawBatch& b, uint32_t seq, std::string* error) {
  return checker_.Check(b, seq, error);
}

uint32_t CaptureFields::Label(const std::string& text, Snapshot& snap) {
  auto [it, fresh] = label_index_.try_emplace(text, 0);
  if (fresh) {
    it->second = static_cast<uint32_t>(snap.fields.root_labels.size());
    snap.fields.root_labels.push_back(text);
  }
  return it->second;
}

void CaptureFields::Append(const protocol::RawBatch& b, const std::vector<RawContainer>& containers,
                           size_t first_root, size_t first_ref, size_t first_object,
                           Snapshot& snap) {
  if (!fields_) return;
  HeapFields& f = snap.fields;
  for (const auto& t : b.types) type_name_.try_emplace(t.id, t.name);
  // Roots: a static root names its static field, a frame root its method and thread.
  f.root_label.resize(first_root, kNoSlot);  // earlier roots (none in a fields capture)
  for (size_t i = 0; i < b.root_object.size(); ++i) {
    const RawContainer& c = containers[b.root_container[i]];
    const uint32_t slot = i < b.root_slot.size() ? b.root_slot[i] : protocol::kNoSlot;
    std::string text;
    if (slot != protocol::kNoSlot) {
      const protocol::RawLayout* l = checker_.Layout(static_cast<uint32_t>(c.id1));
      if (l && slot < l->statics.size()) {
        const auto type = type_name_.find(static_cast<uint32_t>(c.id1));
        text = (type == type_name_.end() ? "" : Clean(type->second) + ".") +
               Clean(l->statics[slot].name);
      }
    } else if (!c.label.empty()) {
      text = "in " + Clean(c.label);
      if (c.has_thread) text += ", thread " + std::to_string(c.thread_id);
    }
    f.root_label.push_back(text.empty() ? kNoSlot : Label(text, snap));
  }
  // References: one slot per entry of refs (continued ones included), in order.
  f.ref_slot.resize(first_ref, kNoSlot);
  if (b.ref_slot.empty())
    f.ref_slot.resize(first_ref + b.refs.size(), kNoSlot);
  else
    f.ref_slot.append(b.ref_slot.data(), b.ref_slot.data() + b.ref_slot.size());
  if (values_) AppendValues(b, first_object, snap);
}

const CaptureFields::ValuePlan& CaptureFields::PlanFor(uint32_t type_id,
                                                       const protocol::RawLayout& l) {
  if (const ValuePlan* known = plan_by_id_.Find(type_id)) return *known;
  auto [it, fresh] = plans_.try_emplace(type_id);
  if (fresh)
    for (const protocol::RawField& fd : l.fields) {
      if (fd.kind == PK::kReference) continue;
      const uint32_t width = FieldKindWidth(ModelKind(fd.kind));
      it->second.fields.emplace_back(fd.kind, width);
      it->second.bytes += width;
    }
  plan_by_id_.Set(type_id, &it->second);
  return it->second;
}

void CaptureFields::AppendValues(const protocol::RawBatch& b, size_t first_object, Snapshot& snap) {
  HeapFields& f = snap.fields;
  while (f.values.size() < first_object) f.AddValues({});
  const uint64_t* w = b.values.data();
  for (size_t i = 0; i < b.object_id.size(); ++i) {
    const uint32_t n = i < b.object_value_count.size() ? b.object_value_count[i] : 0;
    const uint64_t* words = w;
    w += n;
    const protocol::RawLayout* l = n ? checker_.Layout(b.object_type[i]) : nullptr;
    if (!l) {
      f.AddValues({});
      continue;
    }
    scratch_.clear();
    switch (l->shape) {
      case protocol::TypeShape::kString: {
        const uint32_t length = static_cast<uint32_t>(words[0]);
        units_.clear();
        for (uint32_t k = 1; k < n; ++k) units_.push_back(static_cast<char16_t>(words[k]));
        const std::vector<uint8_t> v =
            HeapFields::EncodeString(Utf16ToUtf8(units_), length, units_.size() < length);
        f.AddValues(v);
        continue;
      }
      case protocol::TypeShape::kArray:
        f.AddValues(HeapFields::EncodeArrayLength(static_cast<uint32_t>(words[0])));
        continue;
      case protocol::TypeShape::kClass:
      case protocol::TypeShape::kValueType: {
        const ValuePlan& plan = PlanFor(b.object_type[i], *l);
        if (scratch_.size() < plan.bytes) scratch_.resize(plan.bytes);
        uint8_t* out = scratch_.data();
        const size_t fields = std::min<size_t>(plan.fields.size(), n);  // n: checked equal
        for (size_t k = 0; k < fields; ++k) {
          uint64_t bits = 0;
          protocol::WordToValue(plan.fields[k].first, words[k], pointer_bytes_, &bits);  // checked
          std::memcpy(out, &bits, plan.fields[k].second);  // little-endian host
          out += plan.fields[k].second;
        }
        f.AddValues({scratch_.data(), static_cast<size_t>(out - scratch_.data())});
        continue;
      }
    }
    f.AddValues({});
  }
}

bool CaptureFields::Finish(Snapshot& snap, std::string* error) {
  if (!fields_) return true;
  HeapFields& f = snap.fields;
  f.values_captured = values_;
  f.string_cap = string_cap_;
  f.root_label.resize(snap.root_count(), kNoSlot);
  f.ref_slot.resize(snap.ref_count(), kNoSlot);
  if (values_)
    while (f.values.size() < snap.object_count()) f.AddValues({});
  std::unordered_map<uint32_t, uint32_t> enum_index;
  f.layouts.assign(snap.type_count(), TypeLayout{});
  for (size_t t = 0; t < snap.type_count(); ++t) {
    const protocol::RawLayout* l = checker_.Layout(snap.types[t].id);
    if (!l) continue;
    TypeLayout& out = f.layouts[t];
    out.shape = ModelShape(l->shape);
    for (const protocol::RawField& fd : l->fields) {
      FieldLayout fl;
      fl.name = Clean(fd.name);
      fl.type_name = Clean(fd.type_name);
      fl.offset = fd.offset;
      fl.kind = ModelKind(fd.kind);
      if (fd.is_enum && fl.kind != FieldKind::kReference) {
        fl.underlying = fl.kind;
        fl.kind = FieldKind::kEnum;
        if (const protocol::RawEnum* e = fd.enum_id ? checker_.Enum(fd.enum_id) : nullptr) {
          auto [it, fresh] = enum_index.try_emplace(fd.enum_id, 0);
          if (fresh) {
            it->second = static_cast<uint32_t>(f.enums.size());
            EnumTypeInfo info;
            info.name = Clean(e->name);
            for (size_t m = 0; m < e->member_names.size() && m < e->member_values.size(); ++m)
              info.members.push_back(
                  {static_cast<int64_t>(e->member_values[m]), Clean(e->member_names[m])});
            f.enums.push_back(std::move(info));
          }
          fl.enum_type = it->second;
        }
      }
      out.fields.push_back(std::move(fl));
    }
    for (const protocol::RawStaticField& s : l->statics)
      out.statics.push_back({Clean(s.name), Clean(s.type_name)});
    PackLayout(out);
  }
  // The model's own check, on every core: it runs after the last batch, so it is the capture's
  // last step before the snapshot is handed over.
  const std::string problem = CheckFields(snap, nullptr, ResolveThreads(0));
  if (!problem.empty()) {
    *error = "the capture's object contents are inconsistent: " + problem;
    return false;
  }
  return true;
}

}  // namespace xrpm::client
