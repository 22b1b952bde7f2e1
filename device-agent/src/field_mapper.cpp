#include "field_mapper.h"

#include <algorithm>
#include <string>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/fields.h"

namespace xrpm {
namespace agent {
namespace {

using protocol::kMaxFieldNameBytes;

std::string Name(const char* p, size_t n) {
  if (!p) return std::string();
  return std::string(p, std::min<size_t>(n, kMaxFieldNameBytes));
}

// A runtime's kind, kUnknown when out of range.
FieldKind Wire(FieldKind k) {
  return static_cast<uint32_t>(k) <= protocol::kMaxFieldKind ? k : FieldKind::kUnknown;
}

bool ValueKind(FieldKind k) {
  return protocol::IsValueKind(Wire(k));
}

}  // namespace

FieldMapper::FieldMapper(const WalkDetail& detail, uint32_t pointer_bytes)
    : detail_(detail), pointer_bytes_(pointer_bytes == 4 ? 4 : 8) {}

void FieldMapper::NoteType(uint32_t type_id) {
  if (described_.empty() || type_id > described_.back()) {
    described_.push_back(type_id);
    return;
  }
  auto it = std::lower_bound(described_.begin(), described_.end(), type_id);
  if (*it != type_id) described_.insert(it, type_id);
}

bool FieldMapper::Described(uint32_t type_id) const {
  return std::binary_search(described_.begin(), described_.end(), type_id);
}

bool FieldMapper::MapEnum(uint32_t enum_id, const char* name, size_t name_len, FieldKind underlying,
                          const EnumMemberInfo* members, size_t count, protocol::RawEnum* out) {
  const protocol::FieldKind k = Wire(underlying);
  if (enum_id == 0 || enums_.count(enum_id) || !protocol::IsValueKind(k) ||
      k == protocol::FieldKind::kBoolean || k == protocol::FieldKind::kSingle ||
      k == protocol::FieldKind::kDouble)
    return false;
  enums_.emplace(enum_id, true);
  out->id = enum_id;
  out->name.assign(name ? name : "",
                   name ? std::min<size_t>(name_len, protocol::kMaxTypeNameBytes) : 0);
  out->underlying = k;
  out->member_names.clear();
  out->member_values.clear();
  size_t bytes = 0;
  for (size_t i = 0; i < count && i < protocol::kMaxEnumMembers; ++i) {
    std::string m = Name(members[i].name, members[i].name_len);
    bytes += m.size();
    if (bytes > protocol::kMaxLayoutBytes) break;
    out->member_names.push_back(std::move(m));
    out->member_values.push_back(members[i].value);
  }
  return true;
}

bool FieldMapper::MapLayout(uint32_t type_id, const TypeLayoutInfo& l, protocol::RawLayout* out) {
  if (!Described(type_id) || types_.count(type_id) ||
      static_cast<uint32_t>(l.shape) > protocol::kMaxTypeShape)
    return false;
  TypeFields& t = types_[type_id];
  recent_[type_id % kRecent] = {};  // it may be cached as a type without a layout
  t.has_layout = true;
  t.shape = l.shape;
  t.runtime_fields = static_cast<uint32_t>(std::min<size_t>(l.field_count, UINT32_MAX));
  t.element_kind = l.element_kind;
  *out = protocol::RawLayout{};
  out->type_id = type_id;
  out->shape = l.shape;
  out->element_kind = Wire(l.element_kind);
  out->element_type_name = Name(l.element_type_name, l.element_type_name_len);
  size_t bytes = out->element_type_name.size();
  for (size_t i = 0; i < l.field_count; ++i) {
    const FieldInfo& f = l.fields[i];
    t.runtime_values += ValueKind(f.kind);
    const protocol::FieldKind k = Wire(f.kind);
    if (out->cut) continue;
    protocol::RawField r;
    r.name = Name(f.name, f.name_len);
    r.type_name = Name(f.type_name, f.type_name_len);
    bytes += r.name.size() + r.type_name.size();
    if (i >= protocol::kMaxLayoutFields || bytes > protocol::kMaxLayoutBytes ||
        k == protocol::FieldKind::kUnknown) {
      out->cut = true;  // an unknown kind cannot be skipped: the slots after it would shift
      continue;
    }
    r.offset = f.offset;
    r.kind = k;
    const bool integral = protocol::IsValueKind(k) && k != protocol::FieldKind::kBoolean &&
                          k != protocol::FieldKind::kSingle && k != protocol::FieldKind::kDouble;
    r.is_enum = f.is_enum && integral;
    r.enum_id = r.is_enum && enums_.count(f.enum_id) ? f.enum_id : 0;
    out->fields.push_back(std::move(r));
    t.kinds.push_back(static_cast<uint8_t>(k));
    if (protocol::IsValueKind(k)) t.value_kinds.push_back(k);
  }
  for (size_t i = 0; i < l.static_count && !out->cut; ++i) {
    const StaticFieldInfo& f = l.statics[i];
    protocol::RawStaticField r{Name(f.name, f.name_len), Name(f.type_name, f.type_name_len),
                               Wire(f.kind)};
    bytes += r.name.size() + r.type_name.size();
    if (i >= protocol::kMaxLayoutFields || bytes > protocol::kMaxLayoutBytes ||
        r.kind == protocol::FieldKind::kUnknown) {
      out->cut = true;
      break;
    }
    out->statics.push_back(std::move(r));
  }
  // Statics after a cut in the instance fields are not sent: their slots are unknown.
  t.kept_statics = static_cast<uint32_t>(out->statics.size());
  kinds_bytes_ += t.kinds.capacity() + t.value_kinds.capacity();
  return true;
}

uint32_t FieldMapper::RootSlot(ContainerType container, uint64_t id1, uint32_t slot) const {
  if (container != ContainerType::kClass || slot == kNoSlot || id1 > UINT32_MAX) return kNoSlot;
  auto it = types_.find(static_cast<uint32_t>(id1));
  if (it == types_.end() || !it->second.has_layout || slot >= it->second.kept_statics)
    return kNoSlot;
  return slot;
}

bool FieldMapper::SetValues(uint64_t object, const uint64_t* bits, size_t count) {
  if (pending_) ++dropped_;  // the previous values had no object
  pending_ = count <= protocol::kMaxObjectValues;
  if (!pending_) {
    ++dropped_;
    return false;
  }
  pending_string_ = false;
  pending_object_ = object;
  const size_t cap = pending_values_.capacity();
  pending_values_.assign(bits, bits + count);
  return pending_values_.capacity() != cap;
}

bool FieldMapper::SetString(uint64_t object, uint32_t length, const uint16_t* units, size_t count) {
  if (pending_) ++dropped_;
  pending_ = count == std::min<uint64_t>(length, detail_.string_cap);
  if (!pending_) {
    ++dropped_;
    return false;
  }
  pending_string_ = true;
  pending_object_ = object;
  pending_length_ = length;
  const size_t cap = pending_units_.capacity();
  pending_units_.assign(units, units + count);
  return pending_units_.capacity() != cap;
}

// *d <- the pending values mapped by the layout (in place); false when they do not match it.
bool FieldMapper::MapValues(const TypeFields& t, uint32_t size, uint64_t* array_length,
                            protocol::ObjectDetail* d) {
  switch (t.shape) {
    case TypeShape::kString:
      if (!pending_string_ || pending_length_ > size / 2) return false;
      d->units = pending_units_.data();
      d->string_length = pending_length_;
      d->value_count = static_cast<uint32_t>(pending_units_.size() + 1);
      return true;
    case TypeShape::kArray: {
      if (pending_string_ || pending_values_.size() != 1) return false;
      const uint32_t elem = t.element_kind == FieldKind::kReference
                                ? pointer_bytes_
                                : protocol::FieldKindBytes(Wire(t.element_kind), pointer_bytes_);
      if (pending_values_[0] > size || (elem && pending_values_[0] > size / elem)) return false;
      *array_length = pending_values_[0];
      d->values = pending_values_.data();
      d->value_count = 1;
      return true;
    }
    default: {
      if (pending_string_ || pending_values_.size() != t.runtime_values) return false;
      // The kept value fields are a prefix of the runtime's (a cut drops the rest).
      const size_t n = t.value_kinds.size();
      uint64_t* w = pending_values_.data();
      for (size_t k = 0; k < n; ++k) w[k] = protocol::ValueToWord(t.value_kinds[k], w[k]);
      d->values = w;
      d->value_count = static_cast<uint32_t>(n);
      return true;
    }
  }
}

const uint32_t* FieldMapper::MapSlots(const TypeFields& t, const uint32_t* slots, size_t n,
                                      uint64_t array_length, bool* bad) {
  if (!slots) return nullptr;
  bool copy = false;
  switch (t.shape) {  // one check per slot, the shape's
    case TypeShape::kString:
      for (size_t i = 0; i < n; ++i)
        if (slots[i] != kNoSlot) {
          *bad = true;
          return nullptr;
        }
      return slots;
    case TypeShape::kArray:
      for (size_t i = 0; i < n && array_length != UINT64_MAX; ++i)
        if (slots[i] != kNoSlot && slots[i] >= array_length) {
          *bad = true;
          return nullptr;
        }
      return slots;
    default: {
      const size_t kept = t.kinds.size();
      const uint8_t* kinds = t.kinds.data();
      constexpr auto kRef = static_cast<uint8_t>(protocol::FieldKind::kReference);
      for (size_t i = 0; i < n; ++i) {
        const uint32_t s = slots[i];
        if (s < kept) {
          if (kinds[s] != kRef) {
            *bad = true;
            return nullptr;
          }
        } else if (s != kNoSlot) {
          if (s >= t.runtime_fields) {
            *bad = true;
            return nullptr;
          }
          copy = true;  // past a cut: unknown
        }
      }
    }
  }
  if (!copy) return slots;
  slots_.assign(slots, slots + n);
  for (uint32_t& s : slots_)
    if (s != kNoSlot && s >= t.kinds.size()) s = kNoSlot;
  return slots_.data();
}

const FieldMapper::TypeFields* FieldMapper::Find(uint32_t type_id) {
  std::pair<uint32_t, const TypeFields*>& c = recent_[type_id % kRecent];
  if (c.second && c.first == type_id) return c.second;
  static const TypeFields kNoLayout{};  // cached as such: a miss per object costs a hash lookup
  auto it = types_.find(type_id);
  c = {type_id, it == types_.end() ? &kNoLayout : &it->second};  // map nodes do not move
  return c.second;
}

protocol::ObjectDetail FieldMapper::Take(uint64_t object, uint32_t type_id, uint32_t size,
                                         const uint32_t* slots, size_t ref_count) {
  protocol::ObjectDetail d;
  const bool had_values = pending_;
  const bool mine = pending_ && pending_object_ == object;
  pending_ = false;
  const TypeFields* found = Find(type_id);
  part_type_ = nullptr;
  part_slots_bad_ = false;
  part_counted_ = false;
  if (!found->has_layout) {
    if (had_values || slots) {
      // Values or slots for a type without a layout: nothing to check them against.
      bool any = had_values;
      for (size_t i = 0; slots && i < ref_count && !any; ++i) any = slots[i] != kNoSlot;
      dropped_ += any;
      part_counted_ = any;
    }
    return d;
  }
  const TypeFields& t = *found;
  bool bad = had_values && !mine;
  uint64_t array_length = UINT64_MAX;
  if (mine && detail_.values && !MapValues(t, size, &array_length, &d)) {
    d = protocol::ObjectDetail{};
    bad = true;
  }
  bool slots_bad = false;
  d.slots = MapSlots(t, slots, ref_count, array_length, &slots_bad);
  bad = bad || slots_bad;
  dropped_ += bad;
  part_type_ = &t;
  part_array_length_ = array_length;
  part_slots_bad_ = slots_bad;
  part_counted_ = bad;
  return d;
}

const uint32_t* FieldMapper::TakePart(const uint32_t* slots, size_t n) {
  if (!slots || part_slots_bad_) return nullptr;
  bool bad = false;
  const uint32_t* mapped = nullptr;
  if (!part_type_) {  // no layout: slots that say something are counted, none travel
    for (size_t i = 0; i < n && !bad; ++i) bad = slots[i] != kNoSlot;
  } else {
    mapped = MapSlots(*part_type_, slots, n, part_array_length_, &bad);
  }
  if (bad) {
    part_slots_bad_ = true;
    dropped_ += !part_counted_;  // an object counts once
    part_counted_ = true;
    return nullptr;
  }
  return mapped;
}

size_t FieldMapper::FootprintBytes() const {
  return sizeof(recent_) + described_.capacity() * sizeof(uint32_t) +
         types_.size() * (sizeof(TypeFields) + 32) + kinds_bytes_ + enums_.size() * 32 +
         pending_values_.capacity() * sizeof(uint64_t) +
         pending_units_.capacity() * sizeof(uint16_t) + slots_.capacity() * sizeof(uint32_t);
}

}  // namespace agent
}  // namespace xrpm
