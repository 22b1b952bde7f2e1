// DecodeHeapBatch and ChecksumBatch (see heap_batch.h). Every count is checked against the
// limits in constants.h before anything is allocated for it.
#include <algorithm>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "report_error.h"
#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/heap_batch.h"

namespace xrpm {
namespace protocol {
namespace {

template <class T>
bool Column(const std::string& bytes, size_t n, PodColumn<T>* out, const char* name,
            std::string* error) {
  out->clear();
  out->Extend(n);  // every element is decoded below, or the batch is refused
  if (n == 0) {
    if (!bytes.empty())
      return ReportError(error, std::string(name) + ": bytes present for 0 values");
    return true;
  }
  if (!DecodeColumn(bytes, n, out->data()))
    return ReportError(error, std::string(name) + ": not a valid column of " + std::to_string(n) +
                                  " values (" + std::to_string(bytes.size()) + " bytes)");
  return true;
}

// The optional origin fields (heap_batch.h). Checks what one batch can check: counts against
// the batch limits, depths, method ids >= 1, column lengths; the capture-wide checks (ids
// defined before use, capture limits) are the assembler's. O(objects + sites).
bool DecodeOrigins(const wire::HeapBatch& in, RawBatch* out, std::string* error) {
  if (in.has_origin_clock()) {
    out->has_clock = true;
    out->capture_frame = in.origin_clock().capture_frame();
    out->sample_bytes = in.origin_clock().sample_bytes();
  }
  if (static_cast<size_t>(in.origin_methods_size()) > kMaxBatchOriginMethods)
    return ReportError(error, std::to_string(in.origin_methods_size()) +
                                  " origin method definitions, over the batch limit of " +
                                  std::to_string(kMaxBatchOriginMethods));
  out->origin_methods.reserve(in.origin_methods_size());
  for (const std::string& m : in.origin_methods()) {
    if (m.size() > kMaxMethodNameBytes)
      return ReportError(error, "origin method " + std::to_string(out->origin_methods.size()) +
                                    " is " + std::to_string(m.size()) +
                                    " bytes, over the limit of " +
                                    std::to_string(kMaxMethodNameBytes));
    out->origin_methods.push_back(m);
  }
  if (in.site_count() > kMaxBatchSites)
    return ReportError(error, std::to_string(in.site_count()) +
                                  " site definitions, over the batch limit of " +
                                  std::to_string(kMaxBatchSites));
  if (!Column(in.site_depths(), in.site_count(), &out->site_depth, "site depths", error))
    return false;
  size_t total = 0;
  for (size_t i = 0; i < out->site_depth.size(); ++i) {
    if (out->site_depth[i] > kMaxStackDepth)
      return ReportError(error, "site " + std::to_string(i) + " of the batch has depth " +
                                    std::to_string(out->site_depth[i]) + ", over the limit of " +
                                    std::to_string(kMaxStackDepth));
    total += out->site_depth[i];
  }
  if (!Column(in.site_methods(), total, &out->site_method, "site methods", error)) return false;
  for (uint32_t m : out->site_method)
    if (m == 0) return ReportError(error, "site methods: method id 0 (ids start at 1)");

  const size_t nobj = out->object_id.size();
  if (in.object_sites().empty()) {
    if (!in.object_frames().empty() || in.frame_base() != 0)
      return ReportError(error, "object frames without object sites");
    return true;
  }
  if (!Column(in.object_sites(), nobj, &out->object_site, "object sites", error)) return false;
  size_t known = 0;
  for (uint32_t site : out->object_site) known += site != 0;
  PodColumn<uint64_t> deltas;
  if (!Column(in.object_frames(), known, &deltas, "object frames", error)) return false;
  out->object_frame.assign(nobj, 0);
  uint64_t prev = in.frame_base();
  for (size_t i = 0, k = 0; i < nobj; ++i) {
    if (out->object_site[i] == 0) continue;
    prev += static_cast<uint64_t>(UnZigZag(deltas[k++]));
    out->object_frame[i] = prev;
  }
  return true;
}

bool KindInRange(int k, bool allow_unknown) {
  return (allow_unknown || k != 0) && k >= 0 && static_cast<uint32_t>(k) <= kMaxFieldKind;
}

bool IsIntegralKind(FieldKind k) {
  return IsValueKind(k) && k != FieldKind::kBoolean && k != FieldKind::kSingle &&
         k != FieldKind::kDouble;
}

bool NameOk(const std::string& name, size_t limit, const std::string& what, std::string* error) {
  if (name.size() <= limit) return true;
  return ReportError(error, what + " is " + std::to_string(name.size()) +
                                " bytes, over the limit of " + std::to_string(limit));
}

// One layout: counts, name lengths, kinds (what one message can check; the capture-wide
// checks, types and enums defined and slots and values consistent, are FieldChecker's).
bool DecodeLayout(const wire::TypeLayout& in, RawLayout* out, std::string* error) {
  const std::string where = "layout of type " + std::to_string(in.type_id()) + ": ";
  if (in.shape() < 0 || static_cast<uint32_t>(in.shape()) > kMaxTypeShape)
    return ReportError(error, where + "shape " + std::to_string(in.shape()) + " out of range");
  if (static_cast<size_t>(in.fields_size()) > kMaxLayoutFields ||
      static_cast<size_t>(in.statics_size()) > kMaxLayoutFields)
    return ReportError(error, where + std::to_string(in.fields_size()) + " fields and " +
                                  std::to_string(in.statics_size()) +
                                  " statics, over the limit of " +
                                  std::to_string(kMaxLayoutFields));
  out->type_id = in.type_id();
  out->shape = static_cast<TypeShape>(in.shape());
  out->cut = in.cut();
  if (!KindInRange(in.element_kind(), true))
    return ReportError(
        error, where + "element kind " + std::to_string(in.element_kind()) + " out of range");
  out->element_kind = static_cast<FieldKind>(in.element_kind());
  if (!NameOk(in.element_type_name(), kMaxFieldNameBytes, where + "element type name", error))
    return false;
  out->element_type_name = in.element_type_name();
  out->fields.resize(in.fields_size());
  for (int i = 0; i < in.fields_size(); ++i) {
    const wire::FieldDef& f = in.fields(i);
    RawField& r = out->fields[i];
    const std::string what = where + "field " + std::to_string(i);
    if (!NameOk(f.name(), kMaxFieldNameBytes, what + " name", error) ||
        !NameOk(f.type_name(), kMaxFieldNameBytes, what + " type name", error))
      return false;
    if (!KindInRange(f.kind(), false))
      return ReportError(error, what + ": kind " + std::to_string(f.kind()) + " out of range");
    r.name = f.name();
    r.type_name = f.type_name();
    r.offset = f.offset();
    r.kind = static_cast<FieldKind>(f.kind());
    r.is_enum = f.is_enum();
    r.enum_id = f.enum_id();
    if ((r.is_enum && !IsIntegralKind(r.kind)) || (r.enum_id != 0 && !r.is_enum))
      return ReportError(error, what + ": an enum of kind " + FieldKindName(r.kind) + " (enum id " +
                                    std::to_string(r.enum_id) + ")");
  }
  out->statics.resize(in.statics_size());
  for (int i = 0; i < in.statics_size(); ++i) {
    const wire::StaticFieldDef& f = in.statics(i);
    const std::string what = where + "static field " + std::to_string(i);
    if (!NameOk(f.name(), kMaxFieldNameBytes, what + " name", error) ||
        !NameOk(f.type_name(), kMaxFieldNameBytes, what + " type name", error))
      return false;
    if (!KindInRange(f.kind(), false))
      return ReportError(error, what + ": kind " + std::to_string(f.kind()) + " out of range");
    out->statics[i] = RawStaticField{f.name(), f.type_name(), static_cast<FieldKind>(f.kind())};
  }
  return true;
}

bool DecodeEnum(const wire::EnumDef& in, RawEnum* out, std::string* error) {
  const std::string where = "enum " + std::to_string(in.id()) + ": ";
  if (in.id() == 0) return ReportError(error, "enum id 0 (ids start at 1)");
  if (!NameOk(in.name(), kMaxTypeNameBytes, where + "name", error)) return false;
  if (!KindInRange(in.underlying(), false) ||
      !IsIntegralKind(static_cast<FieldKind>(in.underlying())))
    return ReportError(error, where + "underlying kind " + std::to_string(in.underlying()) +
                                  " is not an integral primitive");
  if (in.member_names_size() != in.member_values_size() ||
      static_cast<size_t>(in.member_names_size()) > kMaxEnumMembers)
    return ReportError(error, where + std::to_string(in.member_names_size()) +
                                  " member names and " + std::to_string(in.member_values_size()) +
                                  " values (equal counts, at most " +
                                  std::to_string(kMaxEnumMembers) + ")");
  out->id = in.id();
  out->name = in.name();
  out->underlying = static_cast<FieldKind>(in.underlying());
  out->member_names.reserve(in.member_names_size());
  for (const std::string& m : in.member_names()) {
    if (!NameOk(m, kMaxFieldNameBytes, where + "member name", error)) return false;
    out->member_names.push_back(m);
  }
  out->member_values.assign(in.member_values().begin(), in.member_values().end());
  return true;
}

// Layouts, enums, slot and value columns (heap_batch.h). O(fields + roots + refs + values).
bool DecodeFields(const wire::HeapBatch& in, RawBatch* out, std::string* error) {
  if (static_cast<size_t>(in.layouts_size()) > kMaxBatchLayouts ||
      static_cast<size_t>(in.enums_size()) > kMaxBatchEnums)
    return ReportError(
        error, std::to_string(in.layouts_size()) + " layouts and " +
                   std::to_string(in.enums_size()) + " enums, over the batch limits (" +
                   std::to_string(kMaxBatchLayouts) + ", " + std::to_string(kMaxBatchEnums) + ")");
  out->layouts.resize(in.layouts_size());
  for (int i = 0; i < in.layouts_size(); ++i)
    if (!DecodeLayout(in.layouts(i), &out->layouts[i], error)) return false;
  out->enums.resize(in.enums_size());
  for (int i = 0; i < in.enums_size(); ++i)
    if (!DecodeEnum(in.enums(i), &out->enums[i], error)) return false;

  PodColumn<uint64_t> words;
  if (!in.root_slots().empty()) {
    const size_t n = out->root_object.size();
    if (!Column(in.root_slots(), n, &words, "root slots", error)) return false;
    out->root_slot.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (words[i] > kNoSlot)
        return ReportError(error, "root slots: root " + std::to_string(i) + " has slot word " +
                                      std::to_string(words[i]) + ", over 32 bits");
      out->root_slot[i] = words[i] == 0 ? kNoSlot : static_cast<uint32_t>(words[i] - 1);
    }
  }
  if (in.ref_slots().empty() && in.cont_slot() != 0)
    return ReportError(error, "cont_slot without reference slots");
  if (!in.ref_slots().empty()) {
    const size_t nrefs = out->refs.size();
    if (!Column(in.ref_slots(), nrefs, &words, "reference slots", error)) return false;
    out->ref_slot.resize(nrefs);
    size_t r = 0;
    if (in.cont_slot() != 0 && out->cont_refs == 0)
      return ReportError(
          error, "cont_slot " + std::to_string(in.cont_slot()) + " without continued references");
    out->cont_prev_slot = in.cont_slot() == 0 ? kNoSlot : in.cont_slot() - 1;
    uint32_t prev = out->cont_prev_slot;
    const auto one = [&](size_t i) {
      if (WordToSlot(words[i], &prev, &out->ref_slot[i])) return true;
      return ReportError(error, "reference slots: reference " + std::to_string(i) +
                                    " has slot word " + std::to_string(words[i]) +
                                    ", which is not a slot of 0.." + std::to_string(kNoSlot - 1));
    };
    for (; r < out->cont_refs; ++r)
      if (!one(r)) return false;
    for (size_t i = 0; i < out->object_id.size() && r < nrefs; ++i) {
      prev = kNoSlot;
      const size_t end = std::min<size_t>(nrefs, r + out->object_ref_count[i]);
      for (; r < end; ++r)
        if (!one(r)) return false;
    }
  }
  if (in.object_value_counts().empty()) {
    if (in.value_count() != 0 || !in.values().empty())
      return ReportError(error, "values without object value counts");
    return true;
  }
  const size_t nobj = out->object_id.size();
  if (in.value_count() > kMaxBatchValues)
    return ReportError(error, std::to_string(in.value_count()) +
                                  " value words, over the batch limit of " +
                                  std::to_string(kMaxBatchValues));
  if (!Column(in.object_value_counts(), nobj, &out->object_value_count, "object value counts",
              error))
    return false;
  uint64_t total = 0;
  for (size_t i = 0; i < nobj; ++i) {
    if (out->object_value_count[i] > kMaxObjectValues)
      return ReportError(error, "object " + std::to_string(i) + " of the batch has " +
                                    std::to_string(out->object_value_count[i]) +
                                    " value words, over the limit of " +
                                    std::to_string(kMaxObjectValues));
    total += out->object_value_count[i];
  }
  if (total != in.value_count())
    return ReportError(error, "object value counts add up to " + std::to_string(total) +
                                  " words, value_count says " + std::to_string(in.value_count()));
  return Column(in.values(), total, &out->values, "values", error);
}

}  // namespace

bool DecodeHeapBatch(const wire::HeapBatch& in, RawBatch* out, std::string* error_out) {
  std::string local_error;
  std::string* error = error_out ? error_out : &local_error;
  out->Clear();
  const std::string where = "batch " + std::to_string(in.seq()) + ": ";
  if (in.shift() > kMaxShift)
    return ReportError(error, where + "shift " + std::to_string(in.shift()) + " over " +
                                  std::to_string(kMaxShift));
  if (in.root_count() > kMaxBatchRoots || in.object_count() > kMaxBatchObjects ||
      in.ref_count() > kMaxBatchRefs || static_cast<size_t>(in.types_size()) > kMaxBatchTypes ||
      static_cast<size_t>(in.containers_size()) > kMaxBatchContainers)
    return ReportError(error, where + "counts over the batch limits (roots " +
                                  std::to_string(in.root_count()) + ", objects " +
                                  std::to_string(in.object_count()) + ", refs " +
                                  std::to_string(in.ref_count()) + ")");
  if (in.cont_refs() > in.ref_count())
    return ReportError(error, where + "cont_refs exceeds ref_count");
  const uint32_t shift = in.shift();

  out->types.reserve(in.types_size());
  for (const wire::TypeEntry& t : in.types()) {
    if (t.name().size() > kMaxTypeNameBytes)
      return ReportError(error,
                         where + "type name over " + std::to_string(kMaxTypeNameBytes) + " bytes");
    RawType r{t.id(), t.name(), t.domain(), t.has_finalizer()};
    const std::string type = where + "type " + std::to_string(t.id()) + ": ";
    if (t.kind() < 0 || static_cast<uint32_t>(t.kind()) > kMaxTypeKind)
      return ReportError(error, type + "kind " + std::to_string(t.kind()) + ", expected 0.." +
                                    std::to_string(kMaxTypeKind));
    r.kind = static_cast<TypeKind>(t.kind());
    if (r.kind == TypeKind::kEnum) {
      const auto u = static_cast<FieldKind>(t.enum_underlying());
      if (t.enum_underlying() < 0 || !IsValueKind(u) || u == FieldKind::kBoolean ||
          u == FieldKind::kSingle || u == FieldKind::kDouble)
        return ReportError(error, type + "enum underlying kind " +
                                      std::to_string(t.enum_underlying()) +
                                      ", expected an integer kind");
      r.enum_underlying = u;
    } else if (t.enum_underlying() != 0) {
      return ReportError(error, type + "an enum underlying kind on a type that is not an enum");
    }
    if (r.kind == TypeKind::kArray) {
      if (t.array_rank() < 1 || t.array_rank() > kMaxArrayRank)
        return ReportError(error, type + "array rank " + std::to_string(t.array_rank()) +
                                      ", expected 1.." + std::to_string(kMaxArrayRank));
      if (t.element_type_name().size() > kMaxTypeNameBytes)
        return ReportError(
            error, type + "element type name over " + std::to_string(kMaxTypeNameBytes) + " bytes");
      r.array_rank = t.array_rank();
      r.element_type = t.element_type_name();
    } else if (t.array_rank() != 0 || !t.element_type_name().empty()) {
      return ReportError(error,
                         type + "an array rank or element type on a type that is not an array");
    }
    out->types.push_back(std::move(r));
  }
  if (static_cast<size_t>(in.domain_names_size()) > kMaxCaptureDomains)
    return ReportError(error, where + std::to_string(in.domain_names_size()) +
                                  " AppDomain names, over the limit of " +
                                  std::to_string(kMaxCaptureDomains));
  out->domain_names.reserve(in.domain_names_size());
  for (const std::string& d : in.domain_names()) {
    if (d.size() > kMaxShortString)
      return ReportError(
          error, where + "AppDomain name over " + std::to_string(kMaxShortString) + " bytes");
    out->domain_names.push_back(d);
  }
  out->containers.reserve(in.containers_size());
  for (const wire::Container& c : in.containers()) {
    if (c.kind() < 1 || c.kind() > 16 || c.descriptor() > 5)
      return ReportError(error, where + "container kind " + std::to_string(c.kind()) +
                                    " / descriptor " + std::to_string(c.descriptor()) +
                                    " out of range");
    if (c.label().size() > kMaxMethodNameBytes)
      return ReportError(error, where + "container label of " + std::to_string(c.label().size()) +
                                    " bytes, over the limit of " +
                                    std::to_string(kMaxMethodNameBytes));
    out->containers.push_back(RawContainer{c.kind(), c.id1(), c.id2(), c.descriptor(),
                                           c.has_thread(), c.thread_id(), c.label()});
  }

  // Roots.
  const size_t nroots = in.root_count();
  PodColumn<uint64_t> tmp;
  if (!Column(in.root_objects(), nroots, &out->root_object, "root objects", error) ||
      !Column(in.root_flags(), nroots, &out->root_flags, "root flags", error) ||
      !Column(in.root_containers(), nroots, &tmp, "root containers", error)) {
    *error = where + *error;
    return false;
  }
  uint64_t prev = 0;
  for (uint64_t& v : out->root_object)
    v = prev = prev + (static_cast<uint64_t>(UnZigZag(v)) << shift);
  out->root_container.resize(nroots);
  int64_t prevc = 0;
  for (size_t i = 0; i < nroots; ++i) {
    const int64_t c = prevc + UnZigZag(tmp[i]);
    if (c < 0 || c > 0xFFFFFFFFll)
      return ReportError(error, where + "root container index out of range");
    if (out->root_flags[i] > 0xFF) return ReportError(error, where + "root flags over 8 bits");
    out->root_container[i] = static_cast<uint32_t>(c);
    prevc = c;
  }

  // Objects.
  const size_t nobj = in.object_count();
  if (!Column(in.object_gaps(), nobj, &out->object_id, "object ids", error) ||
      !Column(in.object_types(), nobj, &out->object_type, "object types", error) ||
      !Column(in.object_sizes(), nobj, &out->object_size, "object sizes", error) ||
      !Column(in.object_ref_counts(), nobj, &out->object_ref_count, "object ref counts", error)) {
    *error = where + *error;
    return false;
  }
  uint64_t prev_end = in.id_base();
  for (size_t i = 0; i < nobj; ++i) {
    const uint64_t id = prev_end + (static_cast<uint64_t>(UnZigZag(out->object_id[i])) << shift);
    const uint64_t size = static_cast<uint64_t>(out->object_size[i]) << shift;
    if (size > 0xFFFFFFFFull) return ReportError(error, where + "object size over 32 bits");
    out->object_id[i] = id;
    out->object_size[i] = static_cast<uint32_t>(size);
    prev_end = id + size;
  }

  // References: cont_refs for cont_object, then each object's; only the last object may be
  // short (continued in the next batch).
  const size_t nrefs = in.ref_count();
  out->cont_object = in.cont_object();
  out->cont_refs = in.cont_refs();
  uint64_t need = out->cont_refs;
  for (size_t i = 0; i + 1 < nobj; ++i) need += out->object_ref_count[i];
  const uint64_t last = nobj ? out->object_ref_count[nobj - 1] : 0;
  if (nrefs < need || nrefs > need + last)
    return ReportError(error, where + "ref_count " + std::to_string(nrefs) +
                                  " does not match the objects' reference counts (" +
                                  std::to_string(need) + ".." + std::to_string(need + last) + ")");
  if (!Column(in.refs(), nrefs, &out->refs, "refs", error)) {
    *error = where + *error;
    return false;
  }
  size_t r = 0;
  for (; r < out->cont_refs; ++r)
    out->refs[r] = out->cont_object + (static_cast<uint64_t>(UnZigZag(out->refs[r])) << shift);
  for (size_t i = 0; i < nobj && r < nrefs; ++i) {
    const uint64_t owner = out->object_id[i];
    const size_t end = std::min<size_t>(nrefs, r + out->object_ref_count[i]);
    for (; r < end; ++r)
      out->refs[r] = owner + (static_cast<uint64_t>(UnZigZag(out->refs[r])) << shift);
  }
  if (!DecodeOrigins(in, out, error) || !DecodeFields(in, out, error)) {
    *error = where + *error;
    return false;
  }
  return true;
}

namespace {

// Feeds values to the hash as little-endian bytes, whatever the machine's byte order.
template <class T>
void Feed(XXH3_state_t* st, const T* p, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  T buf[256];
  while (n) {
    const size_t k = n < 256 ? n : 256;
    for (size_t i = 0; i < k; ++i) {
      T v = p[i];
      if (sizeof(T) == 8) v = static_cast<T>(__builtin_bswap64(v));
      if (sizeof(T) == 4) v = static_cast<T>(__builtin_bswap32(v));
      buf[i] = v;
    }
    XXH3_64bits_update(st, buf, k * sizeof(T));
    p += k;
    n -= k;
  }
#else
  if (n) XXH3_64bits_update(st, p, n * sizeof(T));
#endif
}

void Feed64(XXH3_state_t* st, uint64_t v) {
  Feed(st, &v, 1);
}

void FeedString(XXH3_state_t* st, const std::string& s) {
  Feed64(st, s.size());
  XXH3_64bits_update(st, s.data(), s.size());
}

}  // namespace

uint64_t ChecksumBatch(const RawBatch& b, uint64_t seed) {
  XXH3_state_t st;
  std::memset(&st, 0, sizeof st);  // XXH3_INITSTATE is not enough for -Wmaybe-uninitialized
  XXH3_64bits_reset_withSeed(&st, seed);
  const uint64_t header[] = {b.types.size(),     b.containers.size(), b.root_object.size(),
                             b.object_id.size(), b.refs.size(),       b.cont_object,
                             b.cont_refs};
  Feed(&st, header, sizeof header / sizeof header[0]);
  for (const RawType& t : b.types) {
    Feed64(&st, t.id);
    Feed64(&st, t.name.size());
    XXH3_64bits_update(&st, t.name.data(), t.name.size());
  }
  for (const RawContainer& c : b.containers) {
    const uint64_t v[] = {c.kind, c.id1, c.id2, c.descriptor, c.has_thread ? 1u : 0u, c.thread_id};
    Feed(&st, v, sizeof v / sizeof v[0]);
  }
  Feed(&st, b.root_object.data(), b.root_object.size());
  Feed(&st, b.root_flags.data(), b.root_flags.size());
  Feed(&st, b.root_container.data(), b.root_container.size());
  Feed(&st, b.object_id.data(), b.object_id.size());
  Feed(&st, b.object_type.data(), b.object_type.size());
  Feed(&st, b.object_size.data(), b.object_size.size());
  Feed(&st, b.object_ref_count.data(), b.object_ref_count.size());
  Feed(&st, b.refs.data(), b.refs.size());
  // Allocation origins, each part only when present: a batch without them hashes exactly as
  // before origins existed (an old agent's checksum still verifies).
  if (b.has_clock) {
    const uint64_t v[] = {0x434c4f434bull /* "CLOCK" */, b.capture_frame, b.sample_bytes};
    Feed(&st, v, 3);
  }
  if (!b.origin_methods.empty()) {
    Feed64(&st, 0x4d4554484f44ull);  // "METHOD"
    Feed64(&st, b.origin_methods.size());
    for (const std::string& m : b.origin_methods) {
      Feed64(&st, m.size());
      XXH3_64bits_update(&st, m.data(), m.size());
    }
  }
  if (!b.site_depth.empty()) {
    const uint64_t v[] = {0x53495445ull /* "SITE" */, b.site_depth.size(), b.site_method.size()};
    Feed(&st, v, 3);
    Feed(&st, b.site_depth.data(), b.site_depth.size());
    Feed(&st, b.site_method.data(), b.site_method.size());
  }
  if (!b.object_site.empty()) {
    Feed64(&st, 0x4f524947494eull);  // "ORIGIN"
    Feed(&st, b.object_site.data(), b.object_site.size());
    Feed(&st, b.object_frame.data(), b.object_frame.size());
  }
  // Fields and values, likewise only when present.
  bool labels = false;
  for (const RawContainer& c : b.containers) labels |= !c.label.empty();
  if (labels) {
    Feed64(&st, 0x4c4142454cull);  // "LABEL"
    for (const RawContainer& c : b.containers) FeedString(&st, c.label);
  }
  for (const RawLayout& l : b.layouts) {
    const uint64_t v[] = {0x4c41594f5554ull /* "LAYOUT" */,
                          l.type_id,
                          static_cast<uint64_t>(l.shape),
                          l.fields.size(),
                          l.statics.size(),
                          static_cast<uint64_t>(l.element_kind),
                          l.cut ? 1u : 0u};
    Feed(&st, v, sizeof v / sizeof v[0]);
    FeedString(&st, l.element_type_name);
    for (const RawField& f : l.fields) {
      FeedString(&st, f.name);
      FeedString(&st, f.type_name);
      const uint64_t w[] = {f.offset, static_cast<uint64_t>(f.kind), f.is_enum ? 1u : 0u,
                            f.enum_id};
      Feed(&st, w, 4);
    }
    for (const RawStaticField& f : l.statics) {
      FeedString(&st, f.name);
      FeedString(&st, f.type_name);
      Feed64(&st, static_cast<uint64_t>(f.kind));
    }
  }
  for (const RawEnum& e : b.enums) {
    const uint64_t v[] = {0x454e554dull /* "ENUM" */, e.id, static_cast<uint64_t>(e.underlying),
                          e.member_names.size()};
    Feed(&st, v, 4);
    FeedString(&st, e.name);
    for (const std::string& m : e.member_names) FeedString(&st, m);
    Feed(&st, e.member_values.data(), e.member_values.size());
  }
  if (!b.root_slot.empty()) {
    Feed64(&st, 0x524f4f54534cull);  // "ROOTSL"
    Feed(&st, b.root_slot.data(), b.root_slot.size());
  }
  if (!b.ref_slot.empty()) {
    Feed64(&st, 0x534c4f54ull);  // "SLOT"
    Feed64(&st, b.cont_prev_slot);
    Feed(&st, b.ref_slot.data(), b.ref_slot.size());
  }
  if (!b.object_value_count.empty()) {
    Feed64(&st, 0x56414c554553ull);  // "VALUES"
    Feed64(&st, b.values.size());
    Feed(&st, b.object_value_count.data(), b.object_value_count.size());
    Feed(&st, b.values.data(), b.values.size());
  }
  // AppDomains, likewise only when present.
  if (!b.domain_names.empty()) {
    Feed64(&st, 0x444f4d41494eull);  // "DOMAIN"
    Feed64(&st, b.domain_names.size());
    for (const std::string& d : b.domain_names) FeedString(&st, d);
  }
  bool typed = false;
  for (const RawType& t : b.types) typed = typed || t.domain != 0;
  if (typed) {
    Feed64(&st, 0x54444f4dull);  // "TDOM"
    for (const RawType& t : b.types) Feed64(&st, t.domain);
  }
  // Finalizer flags, likewise only when some type has one.
  bool finalizers = false;
  for (const RawType& t : b.types) finalizers = finalizers || t.has_finalizer;
  if (finalizers) {
    Feed64(&st, 0x5446494eull);  // "TFIN"
    for (const RawType& t : b.types) Feed64(&st, t.has_finalizer);
  }
  // Traits, likewise only when some type has them.
  bool traits = false;
  for (const RawType& t : b.types) traits = traits || t.kind != TypeKind::kUnknown;
  if (traits) {
    Feed64(&st, 0x54545254ull);  // "TTRT"
    for (const RawType& t : b.types) {
      Feed64(&st, static_cast<uint64_t>(t.kind) | static_cast<uint64_t>(t.enum_underlying) << 8 |
                      uint64_t{t.array_rank} << 16);
      FeedString(&st, t.element_type);
    }
  }
  return XXH3_64bits_digest(&st);
}

}  // namespace protocol
}  // namespace xrpm
