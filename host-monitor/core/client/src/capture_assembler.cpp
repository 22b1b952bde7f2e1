#include "xrpm/client/capture_assembler.h"
#include "xrpm/model/human_format.h"

#include <algorithm>
#include <cstdio>

#include "capture_fields.h"
#include "xrpm/client/domain_sections.h"
#include "xrpm/client/wire_type_traits.h"
#include "xrpm/model/page_warmer.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::client {
namespace {

bool Fail(std::string* error, std::string what) {
  *error = std::move(what);
  return false;
}

}  // namespace

const char* ContainerKindName(uint32_t kind) {
  switch (kind) {
    case 2:
      return "thread";
    case 3:
      return "JIT frame";
    case 4:
      return "native frame";
    case 5:
      return "native GC frame";
    case 6:
      return "COM frame";
    case 7:
      return "interpreted frame";
    case 8:
      return "fast-interpreted frame";
    case 9:
      return "internal frame";
    case 10:
      return "runtime internal";
    case 11:
      return "statics";
    case 12:
      return "GC root table";
    case 13:
      return "GC handle table";
    case 14:
      return "finalizer queue";
    case 15:
      return "heap";
    default:
      return "container";
  }
}

CaptureAssembler::CaptureAssembler(uint64_t max_objects, uint32_t pointer_bytes)
    : max_objects_(max_objects), pointer_bytes_(pointer_bytes) {}
CaptureAssembler::~CaptureAssembler() = default;

CaptureSizes SizesOf(const Snapshot& s) {
  return {.objects = s.object_count(),
          .refs = s.ref_count(),
          .slots = !s.fields.ref_slot.empty(),
          .value_bytes = s.fields.values.data.size()};
}

CaptureSizes ExpectedSizes(const CaptureSizes& own_last, const wire::Welcome& agent) {
  if (agent.last_capture_objects() != 0 || agent.forecast_objects() == 0)
    return ExpectedSizes(own_last, agent.last_capture_objects(), agent.last_capture_refs(),
                         agent.last_capture_fields());
  return ExpectedSizes(own_last, agent.forecast_objects(), agent.forecast_refs(),
                       (agent.capabilities() & wire::CAP_FIELDS) != 0);
}

CaptureSizes ExpectedSizes(const CaptureSizes& own_last, uint64_t agent_objects,
                           uint64_t agent_refs, bool agent_fields) {
  if (own_last.objects != 0) return own_last;
  const uint64_t most_refs = agent_objects > UINT64_MAX / kMaxHintRefsPerObject
                                 ? UINT64_MAX
                                 : agent_objects * kMaxHintRefsPerObject;
  return {.objects = agent_objects,
          .refs = std::min(agent_refs, most_refs),
          .slots = agent_fields && agent_objects != 0,
          .value_bytes = 0};
}

void CaptureAssembler::Prepare(const CaptureSizes& expected, uint64_t memory_available) {
  if (warmer_) warmer_->Stop();  // before a reservation moves the columns it is warming
  using U128 = unsigned __int128;
  uint64_t objects = std::min(expected.objects, max_objects_);
  if (objects == 0) return;
  // As many references per object as last time (a heap keeps its shape between captures).
  auto scaled = [](uint64_t n, uint64_t num, uint64_t den) {
    return static_cast<uint64_t>(U128{n} * num / den);
  };
  uint64_t refs = scaled(expected.refs, objects, expected.objects);
  uint64_t value_bytes = expected.value_bytes;
  // At most half the memory available, all columns scaled alike: the sizes are a forecast, and
  // an agent's hint may be anything.
  const uint64_t per_object = sizeof(snap_.object_id[0]) + sizeof(snap_.object_type[0]) +
                              sizeof(snap_.object_size[0]) + sizeof(snap_.ref_end[0]) +
                              (value_bytes ? sizeof(snap_.fields.values.end[0]) : 0);
  const uint64_t per_ref =
      sizeof(snap_.refs[0]) + (expected.slots ? sizeof(snap_.fields.ref_slot[0]) : 0);
  const U128 bytes = U128{objects} * per_object + U128{refs} * per_ref + value_bytes;
  const uint64_t budget = memory_available / 2;
  if (bytes > budget) {
    const auto keep = static_cast<uint64_t>(U128{objects} * budget / bytes);
    refs = scaled(refs, keep, objects);
    value_bytes = scaled(value_bytes, keep, objects);
    objects = keep;
    if (objects == 0) return;
  }
  std::vector<PageWarmer::Range> ranges;
  auto reserve = [&](auto& column, uint64_t n) {
    column.reserve(n);
    ranges.push_back({column.data(), column.capacity() * sizeof(column[0])});
  };
  reserve(snap_.object_id, objects);
  reserve(snap_.object_type, objects);
  reserve(snap_.object_size, objects);
  reserve(snap_.ref_end, objects);
  reserve(snap_.refs, refs);
  if (expected.slots) reserve(snap_.fields.ref_slot, refs);
  if (value_bytes) {
    reserve(snap_.fields.values.end, objects);
    reserve(snap_.fields.values.data, value_bytes);
  }
  if (!warmer_) warmer_ = std::make_unique<PageWarmer>();
  warmer_->Start(std::move(ranges));
}

Snapshot CaptureAssembler::Take() {
  if (warmer_) warmer_->Stop();
  snap_.ShrinkToFit();
  return std::move(snap_);
}

bool CaptureAssembler::Begin(const wire::CaptureBegin& m, size_t wire_bytes, std::string* error) {
  if (begun_)
    return Fail(error, "a second capture_begin for capture " + std::to_string(capture_id_));
  if (m.section_name().size() > protocol::kMaxShortString)
    return Fail(error, "capture_begin: section name over 256 bytes");
  if (m.has_last_marker()) {
    const wire::MarkerRow& k = m.last_marker();
    if (k.text().size() > protocol::kMaxMarkerBytes)
      return Fail(error, "capture_begin: last marker of " + std::to_string(k.text().size()) +
                             " bytes, over the limit of " +
                             std::to_string(protocol::kMaxMarkerBytes));
    last_marker_ = k.text();
    const uint64_t start_us = m.start_ms() * 1000;
    marker_age_us_ =
        start_us > k.time_us()
            ? static_cast<int64_t>(std::min<uint64_t>(start_us - k.time_us(), uint64_t{INT64_MAX}))
            : 0;
  }
  begun_ = true;
  capture_id_ = m.capture_id();
  expected_heap_bytes_ = m.expected_heap_bytes();
  AppDomainSection s;
  s.version = m.section_version();
  s.name = m.section_name();
  s.start_ms = m.start_ms();
  s.closed = false;
  snap_.AddSection(std::move(s));
  fields_ = std::make_unique<CaptureFields>(
      m.fields(), m.values(), m.string_cap() ? m.string_cap() : protocol::kDefaultStringCap,
      pointer_bytes_);
  seen_.wire_bytes += wire_bytes;
  return true;
}

uint32_t CaptureAssembler::TypeIndex(uint32_t type_id) {
  const uint32_t known = dense_type_.Find(type_id);
  if (known != kNoIndex) return known;  // the common case: one array load per object
  auto [it, inserted] = type_index_.try_emplace(type_id, 0);
  if (inserted)  // an object of a type the walk never described: keep the id, write no `t`
    it->second = snap_.AddType(type_id, "<unknown type " + FormatHex(type_id) + ">", 0, true);
  dense_type_.Set(type_id, it->second);
  return it->second;
}

uint32_t CaptureAssembler::OriginOf(const protocol::RawContainer& c) {
  std::string s;
  const char* kind = ContainerKindName(c.kind);
  switch (c.kind) {
    case 3:
    case 4:
    case 6:
    case 7:
    case 8:  // frames with a method
      s = std::string(kind) + " (stack " + FormatHex(c.id1) + ", method " + FormatHex(c.id2) + ")";
      break;
    case 5:
    case 9:  // frames without a method
      s = std::string(kind) + " (stack " + FormatHex(c.id1) + ")";
      break;
    case 11: {
      auto it = type_index_.find(static_cast<uint32_t>(c.id1));
      s = "statics of " + (it != type_index_.end() && !snap_.types[it->second].placeholder
                               ? snap_.types[it->second].name
                               : "type " + FormatHex(c.id1));
      break;
    }
    case 13:
      s = std::string(kind) + " " + FormatHex(c.id1);
      break;
    default:
      s = kind;
      break;
  }
  if (c.has_thread) s = "thread " + FormatHex(c.thread_id) + " / " + s;
  auto [it, inserted] = origin_index_.try_emplace(s, 0);
  if (inserted) {
    it->second = static_cast<uint32_t>(snap_.root_origins.size());
    snap_.root_origins.push_back(s);
  }
  return it->second;
}

bool CaptureAssembler::Batch(const wire::HeapBatch& m, size_t wire_bytes, std::string* error) {
  if (!begun_) return Fail(error, "heap_batch before capture_begin");
  if (m.capture_id() != capture_id_)
    return Fail(error, "heap_batch of capture " + std::to_string(m.capture_id()) +
                           " during capture " + std::to_string(capture_id_));
  if (m.seq() != seen_.batches)
    return Fail(error, "batch " + std::to_string(m.seq()) + " arrived where batch " +
                           std::to_string(seen_.batches) + " was expected (lost or reordered)");
  if (!protocol::DecodeHeapBatch(m, &raw_, error)) return false;
  if (!fields_->Check(raw_, m.seq(), error)) return false;
  if (seen_.objects + raw_.object_id.size() > max_objects_)
    return Fail(error, "the capture exceeds the host's limit of " + std::to_string(max_objects_) +
                           " objects");
  checksum_ = protocol::ChecksumBatch(raw_, checksum_);
  ++seen_.batches;
  seen_.wire_bytes += wire_bytes;
  return AppendBatch(raw_, error);
}

bool CaptureAssembler::AppendBatch(const protocol::RawBatch& b, std::string* error) {
  const std::string where = "batch " + std::to_string(seen_.batches - 1) + ": ";
  if (domain_names_.size() + b.domain_names.size() > protocol::kMaxCaptureDomains)
    return Fail(error, where + "more than " + std::to_string(protocol::kMaxCaptureDomains) +
                           " AppDomains in one capture");
  domain_names_.insert(domain_names_.end(), b.domain_names.begin(), b.domain_names.end());
  for (const auto& t : b.types) {
    if (t.domain > domain_names_.size())
      return Fail(error, where + "type " + FormatHex(t.id) + " is in AppDomain " +
                             std::to_string(t.domain) + ", but only " +
                             std::to_string(domain_names_.size()) + " are defined");
    auto [it, inserted] = type_index_.try_emplace(t.id, 0);
    if (!inserted && !snap_.types[it->second].placeholder)
      return Fail(error, where + "type " + FormatHex(t.id) + " described twice");
    if (inserted) {
      it->second = snap_.AddType(t.id, t.name, 0);
      dense_type_.Set(t.id, it->second);
    } else {  // described after an object used it
      snap_.types[it->second].SetName(t.name);
      snap_.types[it->second].placeholder = false;
    }
    snap_.types[it->second].has_finalizer = t.has_finalizer;
    snap_.types[it->second].traits =
        ModelTypeTraits(t.kind, t.enum_underlying, t.array_rank, t.element_type);
    if (t.domain != 0) {
      if (type_domain_.size() <= it->second) type_domain_.resize(it->second + 1, 0);
      type_domain_[it->second] = t.domain;
    }
  }
  seen_.types += b.types.size();
  for (const auto& c : b.containers) {
    containers_.push_back(c);
    container_origin_.push_back(OriginOf(c));
  }
  seen_.containers += b.containers.size();

  const size_t first_root = snap_.root_count(), first_ref = snap_.ref_count();
  for (size_t i = 0; i < b.root_object.size(); ++i) {
    const uint32_t ci = b.root_container[i];
    if (ci >= containers_.size())
      return Fail(error, where + "root refers to container " + std::to_string(ci) + " of " +
                             std::to_string(containers_.size()));
    const auto& c = containers_[ci];
    const auto kind = static_cast<RootKind>(c.descriptor);
    snap_.AddRoot(b.root_object[i], kind, static_cast<uint8_t>(b.root_flags[i]),
                  kind == RootKind::kStatic ? static_cast<TypeId>(c.id1) : 0,
                  container_origin_[ci]);
  }
  seen_.roots += b.root_object.size();

  // References that finish the previous batch's last object.
  if (pending_refs_ == 0 && b.cont_refs != 0)
    return Fail(error, where + "continued references but no object is waiting for them");
  if (pending_refs_ != 0) {
    const bool has_objects = !b.object_id.empty();
    if (b.cont_refs == 0 || b.cont_object != snap_.object_id.back() ||
        b.cont_refs > pending_refs_ || (has_objects && b.cont_refs != pending_refs_))
      return Fail(error, where + "the references of object " + FormatHex(snap_.object_id.back()) +
                             " are not continued correctly");
  }
  const uint64_t* ref = b.refs.data();
  snap_.refs.append(ref, ref + b.cont_refs);
  ref += b.cont_refs;
  pending_refs_ -= b.cont_refs;
  if (b.cont_refs && pending_refs_ == 0) snap_.ref_end.push_back(snap_.refs.size());

  // The batch's objects, column by column; their references follow one another in `refs`, so
  // they are appended at once and only the ends are per object.
  const size_t first_object = snap_.object_id.size();
  const size_t n = b.object_id.size();
  snap_.object_id.append(b.object_id.data(), b.object_id.data() + n);
  snap_.object_size.append(b.object_size.data(), b.object_size.data() + n);
  snap_.object_type.reserve(first_object + n);
  for (size_t i = 0; i < n; ++i) snap_.object_type.push_back(TypeIndex(b.object_type[i]));
  const uint64_t refs_base = snap_.refs.size();
  const uint64_t refs_here = static_cast<uint64_t>(b.refs.data() + b.refs.size() - ref);
  snap_.refs.append(ref, ref + refs_here);
  snap_.ref_end.reserve(snap_.ref_end.size() + n);
  uint64_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t want = b.object_ref_count[i];
    if (refs_here - at >= want) {
      at += want;
      snap_.ref_end.push_back(refs_base + at);
    } else {
      pending_refs_ = want - (refs_here - at);  // the decoder guarantees only the last is short
      at = refs_here;
    }
    seen_.heap_bytes += b.object_size[i];
  }
  seen_.objects += n;
  seen_.refs += b.refs.size();
  if (!AppendOrigins(b, first_object, where, error)) return false;
  fields_->Append(b, containers_, first_root, first_ref, first_object, snap_);
  return true;
}

// O(objects of the batch + its site definitions).
bool CaptureAssembler::AppendOrigins(const protocol::RawBatch& b, size_t first_object,
                                     const std::string& where, std::string* error) {
  if (b.has_clock) {
    if (clock_seen_) return Fail(error, where + "a second allocation clock in one capture");
    clock_seen_ = true;
    alloc_.capture_frame = b.capture_frame;
    alloc_.sample_bytes = b.sample_bytes;
    // Objects reported before the clock have unknown origins.
    snap_.object_alloc_frame.resize(first_object, 0);
    snap_.object_alloc_site.resize(first_object, kUnknownSite);
  }
  if (alloc_.methods.size() + b.origin_methods.size() > protocol::kMaxCaptureOriginMethods)
    return Fail(error, where + "more than " + std::to_string(protocol::kMaxCaptureOriginMethods) +
                           " origin methods in one capture");
  for (const std::string& m : b.origin_methods) alloc_.methods.push_back(m);
  if (alloc_.sites.size() + b.site_depth.size() > protocol::kMaxCaptureSites)
    return Fail(error, where + "more than " + std::to_string(protocol::kMaxCaptureSites) +
                           " allocation sites in one capture");
  const uint32_t* m = b.site_method.data();
  for (uint32_t depth : b.site_depth) {
    AllocationSite site;
    site.methods.reserve(depth);
    for (uint32_t k = 0; k < depth; ++k, ++m) {
      if (*m > alloc_.methods.size())
        return Fail(error, where + "site " + std::to_string(alloc_.sites.size() + 1) +
                               " names method " + std::to_string(*m) + ", but only " +
                               std::to_string(alloc_.methods.size()) + " are defined");
      site.methods.push_back(*m - 1);
    }
    alloc_.sites.push_back(std::move(site));
  }

  const size_t n = b.object_id.size();
  if (!clock_seen_) {
    if (b.HasOriginColumns())
      return Fail(error, where + "object origins before the capture's allocation clock");
    return true;
  }
  if (n != 0 && !b.HasOriginColumns())
    return Fail(error, where + "objects without origin columns after the allocation clock");
  const uint32_t defined = static_cast<uint32_t>(alloc_.sites.size());
  for (size_t i = 0; i < n; ++i) {
    const uint32_t site = b.object_site[i];
    if (site > defined)
      return Fail(error, where + "object " + FormatHex(b.object_id[i]) + " names site " +
                             std::to_string(site) + ", but only " + std::to_string(defined) +
                             " are defined");
    // The model's frame column saturates at 2^32 - 2 (snapshot.h).
    const uint32_t frame =
        static_cast<uint32_t>(std::min<uint64_t>(b.object_frame[i], 0xFFFFFFFEull));
    snap_.AddObjectOrigin(site == 0 ? 0 : frame, site == 0 ? kUnknownSite : site - 1);
  }
  return true;
}

bool CaptureAssembler::End(const wire::CaptureEnd& m, std::string* error) {
  if (warmer_) warmer_->Stop();  // every batch is in: what is not warm yet is not needed
  if (!begun_) return Fail(error, "capture_end before capture_begin");
  if (m.capture_id() != capture_id_)
    return Fail(error, "capture_end of capture " + std::to_string(m.capture_id()) +
                           " during capture " + std::to_string(capture_id_));
  auto check = [&](const char* what, uint64_t expected, uint64_t got) {
    if (expected == got) return true;
    return Fail(error, "capture " + std::to_string(capture_id_) +
                           " failed verification: the agent sent " + std::to_string(expected) +
                           " " + what + ", the host received " + std::to_string(got));
  };
  if (!check("batches", m.batch_count(), seen_.batches) ||
      !check("types", m.type_count(), seen_.types) ||
      !check("containers", m.container_count(), seen_.containers) ||
      !check("objects", m.object_count(), seen_.objects) ||
      !check("references", m.ref_count(), seen_.refs) ||
      !check("roots", m.root_count(), seen_.roots) ||
      !check("heap bytes", m.heap_bytes(), seen_.heap_bytes))
    return false;
  if (pending_refs_ != 0)
    return Fail(error, "capture ended with " + std::to_string(pending_refs_) +
                           " references of the last object missing");
  if (m.checksum() != checksum_)
    return Fail(error, "capture " + std::to_string(capture_id_) +
                           " failed verification: checksum " + FormatHex(checksum_) +
                           " of the received batches differs from the agent's " +
                           FormatHex(m.checksum()));
  if (clock_seen_) snap_.origins = std::move(alloc_);  // else absent, as from an old agent
  if (!fields_->Finish(snap_, error)) return false;
  AppDomainSection& s = snap_.sections.back();
  s.end_ms = m.end_ms();
  s.closed = true;
  snap_.CloseSectionRanges();
  type_domain_.resize(snap_.types.size(), 0);
  SplitIntoDomainSections(&snap_, domain_names_, type_domain_);
  return true;
}

}  // namespace xrpm::client
