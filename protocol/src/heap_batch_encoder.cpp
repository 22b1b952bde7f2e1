// BatchEncoder: walk callbacks -> RawBatch -> HeapBatch (see heap_batch.h).
#include <algorithm>
#include <type_traits>

#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {

template <class V>
static size_t Bytes(const V& v) {
  return v.capacity() * sizeof(typename V::value_type);
}

namespace {

// Calls f(column) for every column vector of `b`: the one list Clear, ClearReleasingUnused and
// CapacityBytes go through, so a new column cannot be missed by one of them.
template <class Batch, class F>
void ForEachColumn(Batch& b, F&& f) {
  f(b.types);
  f(b.containers);
  f(b.root_object);
  f(b.root_flags);
  f(b.root_container);
  f(b.object_id);
  f(b.object_type);
  f(b.object_size);
  f(b.object_ref_count);
  f(b.refs);
  f(b.origin_methods);
  f(b.site_depth);
  f(b.site_method);
  f(b.object_site);
  f(b.object_frame);
  f(b.layouts);
  f(b.enums);
  f(b.root_slot);
  f(b.ref_slot);
  f(b.object_value_count);
  f(b.values);
  f(b.domain_names);
}

// The scalars back to a new batch's.
void ClearScalars(RawBatch& b) {
  b.cont_object = 0;
  b.cont_refs = 0;
  b.has_clock = false;
  b.capture_frame = 0;
  b.sample_bytes = 0;
  b.cont_prev_slot = kNoSlot;
}

}  // namespace

size_t RawBatch::CapacityBytes() const {
  size_t b = 0;
  ForEachColumn(*this, [&b](const auto& v) { b += Bytes(v); });
  for (const RawType& t : types) b += t.name.capacity();
  for (const RawContainer& c : containers) b += c.label.capacity();
  for (const std::string& d : domain_names) b += d.capacity();
  for (const std::string& m : origin_methods) b += m.capacity();
  for (const RawLayout& l : layouts) {
    b += Bytes(l.fields) + Bytes(l.statics) + l.element_type_name.capacity();
    for (const RawField& f : l.fields) b += f.name.capacity() + f.type_name.capacity();
    for (const RawStaticField& f : l.statics) b += f.name.capacity() + f.type_name.capacity();
  }
  for (const RawEnum& e : enums) {
    b += e.name.capacity() + Bytes(e.member_names) + Bytes(e.member_values);
    for (const std::string& m : e.member_names) b += m.capacity();
  }
  return b;
}

void RawBatch::Clear() {
  ForEachColumn(*this, [](auto& v) { v.clear(); });
  ClearScalars(*this);
}

void RawBatch::ClearReleasingUnused() {
  // A column the batch did not use gives its buffer back; the others keep theirs.
  ForEachColumn(*this, [](auto& v) {
    if (v.empty())
      std::decay_t<decltype(v)>().swap(v);
    else
      v.clear();
  });
  ClearScalars(*this);
}

bool RawBatch::Empty() const {
  return types.empty() && containers.empty() && root_object.empty() && object_id.empty() &&
         refs.empty() && !has_clock && origin_methods.empty() && site_depth.empty() &&
         layouts.empty() && enums.empty() && domain_names.empty();
}

uint64_t RawBatch::HeapBytes() const {
  uint64_t b = 0;
  for (uint32_t s : object_size) b += s;
  return b;
}

BatchEncoder::BatchEncoder(size_t batch_bytes) : budget_(Budget(batch_bytes)) {}

size_t BatchEncoder::FootprintBytes() const {
  return raw_.CapacityBytes() + Bytes(scratch_.roots) + Bytes(scratch_.frames) +
         Bytes(scratch_.slots);
}

bool BatchEncoder::AddType(uint32_t id, const char* name, size_t len, uint32_t domain,
                           bool has_finalizer) {
  RawType t;
  t.id = id;
  t.name.assign(name, len);
  t.domain = domain;
  t.has_finalizer = has_finalizer;
  return AddType(std::move(t));
}

bool BatchEncoder::AddType(RawType t) {
  // Without domains, finalizers or traits: sealed as it always was.
  size_t cost = t.name.size() + (t.domain ? 24 : 16) + (t.has_finalizer ? 2 : 0);
  if (t.kind != TypeKind::kUnknown) cost += 6 + t.element_type.size();
  if (raw_.types.size() >= kMaxBatchTypes || !Fits(cost)) return false;
  raw_.types.push_back(std::move(t));
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddDomain(const std::string& name) {
  const size_t cost = name.size() + 8;
  if (raw_.domain_names.size() >= kMaxCaptureDomains || !Fits(cost)) return false;
  raw_.domain_names.push_back(name);
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddContainer(const RawContainer& c) {
  const size_t cost = 48 + c.label.size();
  if (raw_.containers.size() >= kMaxBatchContainers || !Fits(cost)) return false;
  raw_.containers.push_back(c);
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddRoot(uint64_t object, uint32_t flags, uint32_t container_index,
                           uint32_t slot) {
  size_t cost = VarintLength(ZigZag(static_cast<int64_t>(object - prev_root_))) +
                VarintLength(flags) +
                VarintLength(ZigZag(static_cast<int64_t>(container_index) - prev_container_));
  if (fields_on_) cost += slot == kNoSlot ? 1 : VarintLength(uint64_t{slot} + 1);
  if (raw_.root_object.size() >= kMaxBatchRoots || !Fits(cost)) return false;
  raw_.root_object.push_back(object);
  raw_.root_flags.push_back(flags);
  raw_.root_container.push_back(container_index);
  if (fields_on_) raw_.root_slot.push_back(slot);
  prev_root_ = object;
  prev_container_ = container_index;
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddClock(uint64_t capture_frame, uint32_t sample_bytes) {
  if (origins_on_) return true;  // once per capture
  const size_t cost = 24;
  if (!Fits(cost)) return false;
  raw_.has_clock = true;
  raw_.capture_frame = capture_frame;
  raw_.sample_bytes = sample_bytes;
  // Objects already in this batch get unknown origins, so the columns cover every object.
  raw_.object_site.assign(raw_.object_id.size(), 0);
  raw_.object_frame.assign(raw_.object_id.size(), 0);
  origins_on_ = true;
  estimate_ += cost + 2 * raw_.object_id.size();
  return true;
}

bool BatchEncoder::AddOriginMethod(const std::string& name) {
  const size_t cost = name.size() + 8;
  if (raw_.origin_methods.size() >= kMaxBatchOriginMethods || !Fits(cost)) return false;
  raw_.origin_methods.push_back(name);
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddSite(const uint32_t* method_ids, uint32_t depth) {
  size_t cost = 1 + 2;  // depth varint, and the column tags
  for (uint32_t i = 0; i < depth; ++i) cost += VarintLength(method_ids[i]);
  if (raw_.site_depth.size() >= kMaxBatchSites || !Fits(cost)) return false;
  raw_.site_depth.push_back(depth);
  raw_.site_method.Append(method_ids, depth);
  estimate_ += cost;
  return true;
}

void BatchEncoder::EnableFields(bool values) {
  fields_on_ = true;
  values_on_ = values;
}

// Upper bound of a layout's encoded size: names, and a few varints and tags per field.
static size_t LayoutCost(const RawLayout& l) {
  size_t c = 24 + l.element_type_name.size();
  for (const RawField& f : l.fields) c += f.name.size() + f.type_name.size() + 24;
  for (const RawStaticField& f : l.statics) c += f.name.size() + f.type_name.size() + 12;
  return c;
}

bool BatchEncoder::AddLayout(const RawLayout& layout) {
  const size_t cost = LayoutCost(layout);
  if (raw_.layouts.size() >= kMaxBatchLayouts || !FitsOrFirst(cost)) return false;
  raw_.layouts.push_back(layout);
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddEnum(const RawEnum& e) {
  size_t cost = 16 + e.name.size();
  for (const std::string& m : e.member_names) cost += m.size() + 14;
  if (raw_.enums.size() >= kMaxBatchEnums || !FitsOrFirst(cost)) return false;
  raw_.enums.push_back(e);
  estimate_ += cost;
  return true;
}

bool BatchEncoder::AddObject(uint64_t id, uint32_t type, uint32_t size, uint32_t ref_count,
                             uint32_t site, uint64_t frame, const uint64_t* values,
                             uint32_t value_count) {
  ObjectDetail d;
  d.values = values;
  d.value_count = value_count;
  return AddObject(id, type, size, ref_count, site, frame, d);
}

// The varint length of a 16-bit code unit (1-3 bytes), without a count of leading zeros.
static inline size_t UnitVarintLength(uint16_t u) {
  return 1 + (u >= 0x80) + (u >= 0x4000);
}

bool BatchEncoder::AddObject(uint64_t id, uint32_t type, uint32_t size, uint32_t ref_count,
                             uint32_t site, uint64_t frame, const ObjectDetail& detail) {
  if (pending_refs_ != 0) return false;  // the previous object's refs are not complete
  const uint64_t prev_end = raw_.object_id.empty() ? id : prev_end_;
  size_t cost = VarintLength(ZigZag(static_cast<int64_t>(id - prev_end))) + VarintLength(type) +
                VarintLength(size) + VarintLength(ref_count);
  if (origins_on_) {
    cost += VarintLength(site);
    if (site != 0)
      cost += frame_started_ ? VarintLength(ZigZag(static_cast<int64_t>(frame - prev_frame_)))
                             : 10 + 1;  // frame_base, and the first delta (0)
  }
  const uint64_t* values = detail.values;
  const uint16_t* units = values ? nullptr : detail.units;
  uint32_t value_count = detail.value_count;
  if (!values_on_ || (values == nullptr && units == nullptr) || (units && value_count == 0))
    value_count = 0;
  if (values_on_) {
    cost += VarintLength(value_count);
    if (units) {
      cost += VarintLength(detail.string_length);
      for (uint32_t i = 0; i + 1 < value_count; ++i) cost += UnitVarintLength(units[i]);
    } else {
      for (uint32_t i = 0; i < value_count; ++i) cost += VarintLength(values[i]);
    }
  }
  if (raw_.object_id.size() >= kMaxBatchObjects ||
      raw_.values.size() + value_count > kMaxBatchValues || !FitsOrFirst(cost))
    return false;
  raw_.object_id.push_back(id);
  raw_.object_type.push_back(type);
  raw_.object_size.push_back(size);
  raw_.object_ref_count.push_back(ref_count);
  if (origins_on_) {
    raw_.object_site.push_back(site);
    raw_.object_frame.push_back(site != 0 ? frame : 0);
    if (site != 0) {
      frame_started_ = true;
      prev_frame_ = frame;
    }
  }
  if (values_on_) {
    raw_.object_value_count.push_back(value_count);
    if (units && value_count) {
      raw_.values.push_back(detail.string_length);
      raw_.values.AppendRange(units, units + (value_count - 1));  // widened
    } else {
      raw_.values.Append(values, value_count);
    }
  }
  prev_end_ = id + size;
  owner_ = id;
  pending_refs_ = ref_count;
  prev_slot_ = kNoSlot;
  estimate_ += cost;
  return true;
}

size_t BatchEncoder::AddRefs(const uint64_t* refs, size_t n, const uint32_t* slots) {
  n = static_cast<size_t>(std::min<uint64_t>(n, pending_refs_));
  n = std::min(n, kMaxBatchRefs - raw_.refs.size());
  const bool continuation = raw_.object_id.empty();
  // Most lists fit whole: their cost in one pass, then one copy of each column.
  size_t all = 0;
  uint32_t prev = prev_slot_;
  for (size_t i = 0; i < n; ++i) {
    all += VarintLength(ZigZag(static_cast<int64_t>(refs[i] - owner_)));
    if (fields_on_) all += VarintLength(SlotToWord(slots ? slots[i] : kNoSlot, &prev));
  }
  size_t taken = 0;
  if (Fits(all)) {
    estimate_ += all;
    raw_.refs.Append(refs, n);
    if (fields_on_) {
      if (slots)
        raw_.ref_slot.Append(slots, n);
      else
        raw_.ref_slot.resize(raw_.ref_slot.size() + n, kNoSlot);
      prev_slot_ = prev;
    }
    taken = n;
  } else {
    for (; taken < n; ++taken) {
      size_t cost = VarintLength(ZigZag(static_cast<int64_t>(refs[taken] - owner_)));
      uint32_t slot = kNoSlot;
      prev = prev_slot_;
      if (fields_on_) {
        slot = slots ? slots[taken] : kNoSlot;
        cost += VarintLength(SlotToWord(slot, &prev));
      }
      if (!Fits(cost)) break;
      estimate_ += cost;
      raw_.refs.push_back(refs[taken]);
      if (fields_on_) {
        raw_.ref_slot.push_back(slot);
        prev_slot_ = prev;
      }
    }
  }
  pending_refs_ -= taken;
  if (continuation) raw_.cont_refs += static_cast<uint32_t>(taken);
  return taken;
}

// The optional origin fields (definitions, then the two object columns). O(objects + sites).
static void EncodeOrigins(const RawBatch& b, wire::HeapBatch* out, std::vector<uint64_t>* deltas) {
  if (b.has_clock) {
    out->mutable_origin_clock()->set_capture_frame(b.capture_frame);
    out->mutable_origin_clock()->set_sample_bytes(b.sample_bytes);
  }
  for (const std::string& m : b.origin_methods) out->add_origin_methods(m);
  if (!b.site_depth.empty()) {
    out->set_site_count(static_cast<uint32_t>(b.site_depth.size()));
    EncodeColumn(b.site_depth.data(), b.site_depth.size(), out->mutable_site_depths());
    if (!b.site_method.empty())
      EncodeColumn(b.site_method.data(), b.site_method.size(), out->mutable_site_methods());
  }
  if (b.object_site.empty()) return;
  EncodeColumn(b.object_site.data(), b.object_site.size(), out->mutable_object_sites());
  deltas->clear();
  uint64_t prev = 0;
  for (size_t i = 0; i < b.object_site.size(); ++i) {
    if (b.object_site[i] == 0) continue;
    if (deltas->empty()) out->set_frame_base(prev = b.object_frame[i]);
    deltas->push_back(ZigZag(static_cast<int64_t>(b.object_frame[i] - prev)));
    prev = b.object_frame[i];
  }
  if (!deltas->empty()) EncodeColumn(deltas->data(), deltas->size(), out->mutable_object_frames());
}

static void SetKind(FieldKind k, wire::FieldKind* out) {
  *out = static_cast<wire::FieldKind>(static_cast<int>(k));
}

// Layouts, enums, and the slot and value columns. O(fields + roots + refs + values).
static void EncodeFields(const RawBatch& b, wire::HeapBatch* out, std::vector<uint64_t>* words) {
  for (const RawLayout& l : b.layouts) {
    wire::TypeLayout* w = out->add_layouts();
    w->set_type_id(l.type_id);
    w->set_shape(static_cast<wire::TypeShape>(static_cast<int>(l.shape)));
    for (const RawField& f : l.fields) {
      wire::FieldDef* d = w->add_fields();
      d->set_name(f.name);
      d->set_type_name(f.type_name);
      d->set_offset(f.offset);
      wire::FieldKind k;
      SetKind(f.kind, &k);
      d->set_kind(k);
      d->set_is_enum(f.is_enum);
      d->set_enum_id(f.enum_id);
    }
    for (const RawStaticField& f : l.statics) {
      wire::StaticFieldDef* d = w->add_statics();
      d->set_name(f.name);
      d->set_type_name(f.type_name);
      wire::FieldKind k;
      SetKind(f.kind, &k);
      d->set_kind(k);
    }
    wire::FieldKind ek;
    SetKind(l.element_kind, &ek);
    w->set_element_kind(ek);
    w->set_element_type_name(l.element_type_name);
    w->set_cut(l.cut);
  }
  for (const RawEnum& e : b.enums) {
    wire::EnumDef* w = out->add_enums();
    w->set_id(e.id);
    w->set_name(e.name);
    wire::FieldKind k;
    SetKind(e.underlying, &k);
    w->set_underlying(k);
    for (const std::string& m : e.member_names) w->add_member_names(m);
    for (uint64_t v : e.member_values) w->add_member_values(v);
  }
  if (!b.root_slot.empty()) {
    words->resize(b.root_slot.size());
    for (size_t i = 0; i < b.root_slot.size(); ++i)
      (*words)[i] = b.root_slot[i] == kNoSlot ? 0 : uint64_t{b.root_slot[i]} + 1;
    EncodeColumn(words->data(), words->size(), out->mutable_root_slots());
  }
  if (!b.ref_slot.empty()) {
    // The objects' reference lists, as the refs are transformed in EncodeRawBatch.
    words->resize(b.ref_slot.size());
    size_t r = 0;
    uint32_t prev = b.cont_prev_slot;
    if (b.cont_prev_slot != kNoSlot) out->set_cont_slot(b.cont_prev_slot + 1);
    for (; r < b.cont_refs && r < b.ref_slot.size(); ++r)
      (*words)[r] = SlotToWord(b.ref_slot[r], &prev);
    for (size_t i = 0; i < b.object_id.size() && r < b.ref_slot.size(); ++i) {
      prev = kNoSlot;
      const size_t end = std::min<size_t>(b.ref_slot.size(), r + b.object_ref_count[i]);
      for (; r < end; ++r) (*words)[r] = SlotToWord(b.ref_slot[r], &prev);
    }
    EncodeColumn(words->data(), words->size(), out->mutable_ref_slots());
  }
  if (!b.object_value_count.empty()) {
    EncodeColumn(b.object_value_count.data(), b.object_value_count.size(),
                 out->mutable_object_value_counts());
    out->set_value_count(static_cast<uint32_t>(b.values.size()));
    if (!b.values.empty()) EncodeColumn(b.values.data(), b.values.size(), out->mutable_values());
  }
}

void EncodeRawBatch(RawBatch& b, uint32_t capture_id, uint32_t seq, wire::HeapBatch* out,
                    EncodeScratch* scratch) {
  std::vector<uint64_t>& roots = scratch->roots;
  out->Clear();
  out->set_capture_id(capture_id);
  out->set_seq(seq);

  // Common alignment of every address, size and reference: O(values).
  uint64_t bits = b.cont_object;
  for (uint64_t v : b.object_id) bits |= v;
  for (uint32_t v : b.object_size) bits |= v;
  for (uint64_t v : b.refs) bits |= v;
  for (uint64_t v : b.root_object) bits |= v;
  const uint32_t shift = bits == 0 ? 0 : std::min<uint32_t>(__builtin_ctzll(bits), kMaxShift);
  out->set_shift(shift);

  for (const RawType& t : b.types) {
    wire::TypeEntry* e = out->add_types();
    e->set_id(t.id);
    e->set_name(t.name);
    if (t.domain != 0) e->set_domain(t.domain);
    if (t.has_finalizer) e->set_has_finalizer(true);
    if (t.kind != TypeKind::kUnknown) e->set_kind(static_cast<wire::TypeKind>(t.kind));
    if (t.kind == TypeKind::kEnum)
      e->set_enum_underlying(static_cast<wire::FieldKind>(t.enum_underlying));
    if (t.kind == TypeKind::kArray) {
      e->set_array_rank(t.array_rank);
      e->set_element_type_name(t.element_type);
    }
  }
  for (const std::string& d : b.domain_names) out->add_domain_names(d);
  for (const RawContainer& c : b.containers) {
    wire::Container* e = out->add_containers();
    e->set_kind(c.kind);
    e->set_id1(c.id1);
    e->set_id2(c.id2);
    e->set_descriptor(c.descriptor);
    e->set_has_thread(c.has_thread);
    e->set_thread_id(c.thread_id);
    if (!c.label.empty()) e->set_label(c.label);
  }

  // Roots (few): through a scratch column, so the roots keep their values.
  const size_t nroots = b.root_object.size();
  out->set_root_count(static_cast<uint32_t>(nroots));
  if (nroots) {
    roots.resize(nroots);
    uint64_t prev = 0;
    for (size_t i = 0; i < nroots; ++i) {
      roots[i] = ZigZag(static_cast<int64_t>(b.root_object[i] - prev)) >> shift;
      prev = b.root_object[i];
    }
    EncodeColumn(roots.data(), nroots, out->mutable_root_objects());
    EncodeColumn(b.root_flags.data(), nroots, out->mutable_root_flags());
    uint32_t prevc = 0;
    for (size_t i = 0; i < nroots; ++i) {
      roots[i] = ZigZag(static_cast<int64_t>(b.root_container[i]) - prevc);
      prevc = b.root_container[i];
    }
    EncodeColumn(roots.data(), nroots, out->mutable_root_containers());
  } else {
    std::vector<uint64_t>().swap(roots);  // the roots are over (or were never here)
  }

  out->set_cont_object(b.cont_object);
  out->set_cont_refs(b.cont_refs);

  // Objects and references are transformed in place (no copy of the big columns): references
  // first, while the object ids are still addresses, then the ids, then the sizes.
  const size_t nobj = b.object_id.size();
  const size_t nrefs = b.refs.size();
  out->set_object_count(static_cast<uint32_t>(nobj));
  out->set_ref_count(static_cast<uint32_t>(nrefs));
  if (nrefs) {
    size_t r = 0;
    for (; r < b.cont_refs; ++r)
      b.refs[r] = ZigZag(static_cast<int64_t>(b.refs[r] - b.cont_object)) >> shift;
    for (size_t i = 0; i < nobj && r < nrefs; ++i) {
      const uint64_t owner = b.object_id[i];
      const size_t end = std::min<size_t>(nrefs, r + b.object_ref_count[i]);
      for (; r < end; ++r) b.refs[r] = ZigZag(static_cast<int64_t>(b.refs[r] - owner)) >> shift;
    }
  }
  if (nobj) {
    out->set_id_base(b.object_id[0]);
    uint64_t prev_end = b.object_id[0];
    for (size_t i = 0; i < nobj; ++i) {
      const uint64_t id = b.object_id[i];
      b.object_id[i] = ZigZag(static_cast<int64_t>(id - prev_end)) >> shift;
      prev_end = id + b.object_size[i];
    }
    for (uint32_t& size : b.object_size) size >>= shift;
    EncodeColumn(b.object_id.data(), nobj, out->mutable_object_gaps());
    EncodeColumn(b.object_type.data(), nobj, out->mutable_object_types());
    EncodeColumn(b.object_size.data(), nobj, out->mutable_object_sizes());
    EncodeColumn(b.object_ref_count.data(), nobj, out->mutable_object_ref_counts());
  }
  if (nrefs) EncodeColumn(b.refs.data(), nrefs, out->mutable_refs());
  EncodeOrigins(b, out, &scratch->frames);
  EncodeFields(b, out, &scratch->slots);
}

void BatchEncoder::Reset() {
  raw_.ClearReleasingUnused();  // a phase of the walk (types, roots, objects) ends
  estimate_ = 0;
  prev_end_ = 0;
  prev_root_ = 0;
  prev_container_ = 0;
  frame_started_ = false;
  prev_frame_ = 0;
  if (pending_refs_ != 0) {
    raw_.cont_object = owner_;  // the next batch continues this object, and its slots
    if (fields_on_) raw_.cont_prev_slot = prev_slot_;
  } else {
    prev_slot_ = kNoSlot;
  }  // the next batch continues this object
}

void BatchEncoder::Seal(uint32_t capture_id, uint32_t seq, wire::HeapBatch* out,
                        uint64_t* checksum) {
  *checksum = ChecksumBatch(raw_, *checksum);  // before EncodeRawBatch transforms the columns
  EncodeRawBatch(raw_, capture_id, seq, out, &scratch_);
  Reset();
}

void BatchEncoder::TakeBatch(RawBatch* out) {
  std::swap(raw_, *out);
  Reset();  // clears what was in `out` (now raw_), keeping its capacity
}

}  // namespace protocol
}  // namespace xrpm
