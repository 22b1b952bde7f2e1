// FieldChecker (see field_checker.h).
#include "xrpm/protocol/field_checker.h"

#include <algorithm>

#include "report_error.h"
#include "xrpm/protocol/hex_id.h"

namespace xrpm {
namespace protocol {
namespace {

constexpr uint32_t kClassContainer = 11;  // agent::ContainerType::kClass

std::string Quote(const std::string& s) {
  return "'" + s.substr(0, 200) + "'";
}

}  // namespace

FieldChecker::FieldChecker(bool fields, bool values, uint32_t string_cap, uint32_t pointer_bytes)
    : fields_(fields),
      values_(fields && values),
      string_cap_(string_cap),
      pointer_bytes_(pointer_bytes == 4 ? 4 : 8) {}

const FieldChecker::TypeInfo* FieldChecker::Info(uint32_t type) const {
  if (dense_.Covers(type)) return dense_.Find(type);  // the common case: one load per object
  auto it = types_.find(type);
  return it == types_.end() ? nullptr : &it->second;
}

const RawLayout* FieldChecker::Layout(uint32_t type_id) const {
  return LayoutOf(Info(type_id));
}

const RawEnum* FieldChecker::Enum(uint32_t enum_id) const {
  auto it = enums_.find(enum_id);
  return it == enums_.end() ? nullptr : &it->second;
}

std::string FieldChecker::Where(uint64_t object, uint32_t type) const {
  auto it = types_.find(type);
  return batch_ + "object " + HexId(object) + " (" +
         (it == types_.end() ? "type " + std::to_string(type) : Quote(it->second.name)) + ")";
}

bool FieldChecker::CheckSlot(uint64_t owner, uint32_t type, const RawLayout* l, uint32_t slot,
                             uint64_t array_length, size_t ref, std::string* error) const {
  if (slot == kNoSlot) return true;
  // The message is built only on failure: this runs once per reference of the capture.
  auto where = [&] { return Where(owner, type) + ", reference " + std::to_string(ref) + ": "; };
  if (!l)
    return ReportError(error,
                       where() + "slot " + std::to_string(slot) + " but its type has no layout");
  switch (l->shape) {
    case TypeShape::kString:
      return ReportError(
          error, where() + "a string has no reference slots (found " + std::to_string(slot) + ")");
    case TypeShape::kArray:
      if (array_length != UINT64_MAX && slot >= array_length)
        return ReportError(error, where() + "element index " + std::to_string(slot) +
                                      " out of range for an array of length " +
                                      std::to_string(array_length));
      return true;
    default:
      if (slot >= l->fields.size())
        return ReportError(error, where() + "field id " + std::to_string(slot) +
                                      " out of range for its type (" +
                                      std::to_string(l->fields.size()) + " fields)");
      if (l->fields[slot].kind != FieldKind::kReference)
        return ReportError(error, where() + "field id " + std::to_string(slot) + " (" +
                                      Quote(l->fields[slot].name) + ") is a " +
                                      FieldKindName(l->fields[slot].kind) + ", not a reference");
      return true;
  }
}

bool FieldChecker::SlotsValid(const TypeInfo* info, const uint32_t* slots, size_t n,
                              uint64_t array_length) {
  size_t bad = 0;  // counted without a branch per slot
  if (!info || info->layout < 0 || info->shape == TypeShape::kString) {
    for (size_t i = 0; i < n; ++i) bad += slots[i] != kNoSlot;
  } else if (info->shape == TypeShape::kArray) {
    if (array_length == UINT64_MAX) return true;
    for (size_t i = 0; i < n; ++i) bad += slots[i] != kNoSlot && slots[i] >= array_length;
  } else {
    const uint8_t* is_ref = info->reference_field.data();
    const size_t fields = info->reference_field.size();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t s = slots[i];
      bad += s != kNoSlot && (s >= fields || !is_ref[s]);
    }
  }
  return bad == 0;
}

// The object's extent and values; last_length_ gets an array's length when known, *type_info
// its type (null: not described).
bool FieldChecker::CheckObject(size_t i, const RawBatch& b, size_t* value_at,
                               const TypeInfo** type_info, std::string* error) {
  const uint64_t id = b.object_id[i];
  const uint32_t type = b.object_type[i];
  const uint32_t size = b.object_size[i];
  const TypeInfo* info = Info(type);
  const RawLayout* l = LayoutOf(info);
  *type_info = info;
  if (l && l->shape != TypeShape::kArray && info->extent > size)
    return ReportError(error, Where(id, type) + ": its layout has a field up to byte " +
                                  std::to_string(info->extent) + ", outside the object's " +
                                  std::to_string(size) + " bytes");
  last_length_ = UINT64_MAX;
  if (!values_ || b.object_value_count.empty()) return true;
  const uint32_t n = b.object_value_count[i];
  const uint64_t* w = b.values.data() + *value_at;
  *value_at += n;
  if (n == 0) return true;
  // The message is built only on failure: this runs once per object of the capture.
  auto where = [&] { return Where(id, type) + ": "; };
  if (!l)
    return ReportError(error,
                       where() + std::to_string(n) + " value words but its type has no layout");
  switch (l->shape) {
    case TypeShape::kString: {
      const uint64_t length = w[0];
      if (length > size / 2)
        return ReportError(error, where() + "string length " + std::to_string(length) +
                                      " code units is beyond its object (" + std::to_string(size) +
                                      " bytes)");
      const uint64_t sent = std::min<uint64_t>(length, string_cap_);
      if (n - 1 != sent)
        return ReportError(error, where() + std::to_string(n - 1) + " code units sent, expected " +
                                      std::to_string(sent) + " (length " + std::to_string(length) +
                                      ", cap " + std::to_string(string_cap_) + ")");
      for (uint32_t k = 1; k < n; ++k)
        if (w[k] > 0xFFFF)
          return ReportError(error, where() + "code unit " + std::to_string(k - 1) + " is " +
                                        std::to_string(w[k]) + ", wider than 16 bits");
      return true;
    }
    case TypeShape::kArray: {
      if (n != 1)
        return ReportError(error,
                           where() + std::to_string(n) + " value words for an array, expected 1");
      const uint64_t elem = l->element_kind == FieldKind::kReference
                                ? pointer_bytes_
                                : FieldKindBytes(l->element_kind, pointer_bytes_);
      if (w[0] > size || (elem && w[0] > size / elem))
        return ReportError(error, where() + "array length " + std::to_string(w[0]) +
                                      " is beyond its object (" + std::to_string(size) + " bytes)");
      last_length_ = w[0];
      return true;
    }
    default: {
      if (n != info->value_words)
        return ReportError(error, where() + std::to_string(n) + " value words, its layout has " +
                                      std::to_string(info->value_words) + " value fields");
      size_t wide = 0;  // one comparison per word; the field loop below only to name a bad one
      for (uint32_t k = 0; k < n; ++k) wide += w[k] > info->max_word[k];
      if (wide == 0) return true;
      uint32_t k = 0;
      for (const RawField& f : l->fields) {
        if (!IsValueKind(f.kind)) continue;
        uint64_t bits;
        if (!WordToValue(f.kind, w[k], pointer_bytes_, &bits))
          return ReportError(error, where() + "field " + Quote(f.name) + " (" +
                                        FieldKindName(f.kind) + "): value word " +
                                        std::to_string(w[k]) + " has the wrong width");
        ++k;
      }
      return true;
    }
  }
}

bool FieldChecker::Check(const RawBatch& b, uint32_t seq, std::string* error) {
  batch_ = "batch " + std::to_string(seq) + ": ";
  bool labels = false;
  for (const RawContainer& c : b.containers) labels |= !c.label.empty();
  if (!fields_ && (!b.layouts.empty() || !b.enums.empty() || !b.root_slot.empty() ||
                   !b.ref_slot.empty() || labels))
    return ReportError(error, batch_ + "layouts, slots or labels in a capture without fields");
  if (!values_ && b.HasValueColumns())
    return ReportError(error, batch_ + "values in a capture without values");
  if (fields_ && ((!b.root_object.empty() && b.root_slot.size() != b.root_object.size()) ||
                  (!b.refs.empty() && b.ref_slot.size() != b.refs.size())))
    return ReportError(error, batch_ + "a fields capture's batch without its slot columns");
  if (values_ && !b.object_id.empty() && b.object_value_count.size() != b.object_id.size())
    return ReportError(error, batch_ + "a values capture's batch without its value columns");

  // Types and layouts may be added below (layouts_ may move).
  for (const RawType& t : b.types) {
    TypeInfo& info = types_[t.id];  // map nodes do not move: dense_ keeps pointers
    info.name = t.name;
    dense_.Set(t.id, &info);
  }
  for (const RawContainer& c : b.containers) containers_.emplace_back(c.kind, c.id1);
  for (const RawEnum& e : b.enums)
    if (!enums_.emplace(e.id, e).second)
      return ReportError(error, batch_ + "enum " + std::to_string(e.id) + " defined twice");
  for (const RawLayout& l : b.layouts) {
    auto it = types_.find(l.type_id);
    if (it == types_.end())
      return ReportError(error, batch_ + "a layout (" + std::to_string(l.fields.size()) +
                                    " fields, " + std::to_string(l.statics.size()) +
                                    " static fields) for type " + std::to_string(l.type_id) +
                                    ", which the capture does not hold");
    if (it->second.layout >= 0)
      return ReportError(error, batch_ + "a second layout for type " + Quote(it->second.name));
    uint64_t extent = 0;
    for (const RawField& f : l.fields) {
      if (f.enum_id != 0 && !enums_.count(f.enum_id))
        return ReportError(error, batch_ + "layout of " + Quote(it->second.name) + ": field " +
                                      Quote(f.name) + " names enum " + std::to_string(f.enum_id) +
                                      ", which is not defined");
      const uint64_t width =
          f.kind == FieldKind::kReference ? pointer_bytes_ : FieldKindBytes(f.kind, pointer_bytes_);
      extent = std::max<uint64_t>(extent, uint64_t{f.offset} + width);
    }
    TypeInfo& info = it->second;
    info.layout = static_cast<int32_t>(layouts_.size());
    info.extent = extent;
    info.value_words = l.ValueFieldCount();
    info.shape = l.shape;
    info.reference_field.clear();
    info.max_word.clear();
    if (l.shape != TypeShape::kString && l.shape != TypeShape::kArray)  // as CheckObject's default
      for (const RawField& f : l.fields) {
        info.reference_field.push_back(f.kind == FieldKind::kReference);
        if (IsValueKind(f.kind)) info.max_word.push_back(MaxWord(f.kind, pointer_bytes_));
      }
    layouts_.push_back(l);
  }

  for (size_t i = 0; i < b.root_slot.size(); ++i) {
    const uint32_t slot = b.root_slot[i];
    if (slot == kNoSlot) continue;
    const uint32_t c = b.root_container[i];
    auto where = [&] {
      return batch_ + "root " + std::to_string(i) + " (" + HexId(b.root_object[i]) +
             "): static field " + std::to_string(slot);
    };
    if (c >= containers_.size() || containers_[c].first != kClassContainer)
      return ReportError(error, where() + " on a container that is not a type's statics");
    const uint64_t type = containers_[c].second;
    const RawLayout* l = type <= 0xFFFFFFFFu ? Layout(static_cast<uint32_t>(type)) : nullptr;
    if (!l)
      return ReportError(error,
                         where() + " of type " + std::to_string(type) + ", which has no layout");
    if (slot >= l->statics.size())
      return ReportError(error, where() + " out of range for its type (" +
                                    std::to_string(l->statics.size()) + " static fields)");
  }

  // Each object's slots in one pass without a message (SlotsValid); CheckSlot only to name
  // the first bad one.
  size_t r = 0, value_at = 0;
  const bool slots = !b.ref_slot.empty();
  auto check_slots = [&](uint64_t owner, uint32_t type, const TypeInfo* info, size_t end) {
    if (!slots || SlotsValid(info, b.ref_slot.data() + r, end - r, last_length_)) {
      r = end;
      return true;
    }
    for (const RawLayout* l = LayoutOf(info); r < end; ++r)
      if (!CheckSlot(owner, type, l, b.ref_slot[r], last_length_, r, error)) return false;
    return true;
  };
  const TypeInfo* info = slots && b.cont_refs ? Info(last_type_) : nullptr;
  if (!check_slots(last_object_, last_type_, info, std::min<size_t>(b.cont_refs, b.refs.size())))
    return false;
  for (size_t i = 0; i < b.object_id.size(); ++i) {
    if (!CheckObject(i, b, &value_at, &info, error)) return false;
    const size_t end = std::min(b.refs.size(), r + b.object_ref_count[i]);
    if (!check_slots(b.object_id[i], b.object_type[i], info, end)) return false;
    last_object_ = b.object_id[i];
    last_type_ = b.object_type[i];
  }
  return true;
}

}  // namespace protocol
}  // namespace xrpm
