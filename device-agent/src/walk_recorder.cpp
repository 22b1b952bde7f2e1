// WalkRecorder: a heap walk written as records into a file descriptor (walk_recording.h).
// After construction only write(2) and memcpy: it runs in a raw clone(2) child.
#include <errno.h>
#include <unistd.h>

#include <cstring>

#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace agent {
namespace {

uint64_t StrBytes(const char* s, size_t n) {  // what Str writes
  return 4 + (s ? n : 0);
}

}  // namespace

WalkRecorder::WalkRecorder(int fd, WalkDetail detail, size_t buffer_bytes)
    : fd_(fd),
      detail_(detail),
      buf_(new char[buffer_bytes < 64 ? 64 : buffer_bytes]),
      cap_(buffer_bytes < 64 ? 64 : buffer_bytes) {}

bool WalkRecorder::Flush() {
  if (used_ > 0 && !failed_) {
    if (WriteFully(fd_, buf_.get(), used_)) {
      written_ += used_;
    } else {
      failed_ = true;
      errno_ = errno;
    }
  }
  used_ = 0;
  return !failed_;
}

void WalkRecorder::PutSlow(const void* p, size_t n) {
  const char* s = static_cast<const char*>(p);
  while (n > 0 && !failed_) {
    if (used_ == cap_) Flush();
    const size_t k = n < cap_ - used_ ? n : cap_ - used_;
    std::memcpy(buf_.get() + used_, s, k);
    used_ += k;
    s += k;
    n -= k;
  }
}

void WalkRecorder::Str(const char* s, size_t n) {
  if (!s) {
    Val<uint32_t>(kWalkNullString);
    return;
  }
  Val<uint32_t>(static_cast<uint32_t>(n));
  Put(s, n);
}

bool WalkRecorder::Begin(WalkRecordTag tag, uint64_t payload_bytes) {
  if (failed_) return false;
  if (payload_bytes > kMaxWalkRecordBytes) {  // the replayer would refuse it
    failed_ = true;
    errno_ = EMSGSIZE;
    return false;
  }
  Val<uint8_t>(static_cast<uint8_t>(tag));
  Val<uint32_t>(static_cast<uint32_t>(payload_bytes));
  return !failed_;
}

WalkResult WalkRecorder::Done() {
  return failed_ ? WalkResult::kAbort : WalkResult::kOk;
}

WalkResult WalkRecorder::BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) {
  if (Begin(WalkRecordTag::kBeginContainer, 17)) {
    Val<uint8_t>(static_cast<uint8_t>(type));
    Val(id1);
    Val(id2);
  }
  if (type == ContainerType::kEnd) Flush();
  return Done();
}

WalkResult WalkRecorder::DescribeType(uint32_t type_id, const char* name, size_t name_len) {
  if (Begin(WalkRecordTag::kDescribeType, 4 + StrBytes(name, name_len))) {
    Val(type_id);
    Str(name, name_len);
  }
  return Done();
}

WalkResult WalkRecorder::RootReferences(const RootRef* roots, size_t count) {
  if (Begin(WalkRecordTag::kRootReferences, 4 + uint64_t{count} * 13)) {
    Val<uint32_t>(static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      Val(roots[i].object);
      Val(roots[i].flags);
      Val(roots[i].slot);
    }
  }
  return Done();
}

WalkResult WalkRecorder::ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                          const uint64_t* refs, size_t ref_count) {
  if (Begin(WalkRecordTag::kObjectReferences, 20 + uint64_t{ref_count} * 8)) {
    Val(object);
    Val(type_id);
    Val(size);
    Val<uint32_t>(static_cast<uint32_t>(ref_count));
    Put(refs, ref_count * 8);
  }
  return Done() == WalkResult::kOk ? WalkResult::kPostponeReferences : WalkResult::kAbort;
}

WalkResult WalkRecorder::AllocationClock(uint64_t frame, uint32_t sample_bytes) {
  if (Begin(WalkRecordTag::kAllocationClock, 12)) {
    Val(frame);
    Val(sample_bytes);
  }
  return Done();
}

WalkResult WalkRecorder::DescribeSite(uint32_t site_id, const char* const* method_names,
                                      const size_t* name_lens, uint32_t depth) {
  uint64_t bytes = 8;
  for (uint32_t i = 0; i < depth; ++i) bytes += StrBytes(method_names[i], name_lens[i]);
  if (Begin(WalkRecordTag::kDescribeSite, bytes)) {
    Val(site_id);
    Val(depth);
    for (uint32_t i = 0; i < depth; ++i) Str(method_names[i], name_lens[i]);
  }
  return Done();
}

WalkResult WalkRecorder::ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) {
  if (Begin(WalkRecordTag::kObjectOrigin, 20)) {
    Val(object);
    Val(alloc_frame);
    Val(site_id);
  }
  return Done();
}

WalkResult WalkRecorder::DescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                      FieldKind underlying, const EnumMemberInfo* members,
                                      size_t count) {
  uint64_t bytes = 4 + StrBytes(name, name_len) + 1 + 4;
  for (size_t i = 0; i < count; ++i) bytes += StrBytes(members[i].name, members[i].name_len) + 8;
  if (Begin(WalkRecordTag::kDescribeEnum, bytes)) {
    Val(enum_id);
    Str(name, name_len);
    Val<uint8_t>(static_cast<uint8_t>(underlying));
    Val<uint32_t>(static_cast<uint32_t>(count));
    for (size_t i = 0; i < count; ++i) {
      Str(members[i].name, members[i].name_len);
      Val(members[i].value);
    }
  }
  return Done();
}

WalkResult WalkRecorder::DescribeLayout(uint32_t type_id, const TypeLayoutInfo& layout) {
  uint64_t bytes =
      4 + 1 + 1 + StrBytes(layout.element_type_name, layout.element_type_name_len) + 4 + 4;
  for (size_t i = 0; i < layout.field_count; ++i) {
    const FieldInfo& f = layout.fields[i];
    bytes += StrBytes(f.name, f.name_len) + StrBytes(f.type_name, f.type_name_len) + 4 + 1 + 1 + 4;
  }
  for (size_t i = 0; i < layout.static_count; ++i) {
    const StaticFieldInfo& f = layout.statics[i];
    bytes += StrBytes(f.name, f.name_len) + StrBytes(f.type_name, f.type_name_len) + 1;
  }
  if (Begin(WalkRecordTag::kDescribeLayout, bytes)) {
    Val(type_id);
    Val<uint8_t>(static_cast<uint8_t>(layout.shape));
    Val<uint8_t>(static_cast<uint8_t>(layout.element_kind));
    Str(layout.element_type_name, layout.element_type_name_len);
    Val<uint32_t>(static_cast<uint32_t>(layout.field_count));
    for (size_t i = 0; i < layout.field_count; ++i) {
      const FieldInfo& f = layout.fields[i];
      Str(f.name, f.name_len);
      Str(f.type_name, f.type_name_len);
      Val(f.offset);
      Val<uint8_t>(static_cast<uint8_t>(f.kind));
      Val<uint8_t>(f.is_enum ? 1 : 0);
      Val(f.enum_id);
    }
    Val<uint32_t>(static_cast<uint32_t>(layout.static_count));
    for (size_t i = 0; i < layout.static_count; ++i) {
      const StaticFieldInfo& f = layout.statics[i];
      Str(f.name, f.name_len);
      Str(f.type_name, f.type_name_len);
      Val<uint8_t>(static_cast<uint8_t>(f.kind));
    }
  }
  return Done();
}

WalkResult WalkRecorder::ContainerLabel(const char* label, size_t len) {
  if (Begin(WalkRecordTag::kContainerLabel, StrBytes(label, len))) Str(label, len);
  return Done();
}

WalkResult WalkRecorder::ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                                   const uint64_t* refs, const uint32_t* slots,
                                                   size_t ref_count) {
  if (Begin(WalkRecordTag::kObjectReferencesWithSlots,
            21 + uint64_t{ref_count} * (slots ? 12 : 8))) {
    Val(object);
    Val(type_id);
    Val(size);
    Val<uint8_t>(slots ? 1 : 0);  // null: none known
    Val<uint32_t>(static_cast<uint32_t>(ref_count));
    Put(refs, ref_count * 8);
    if (slots) Put(slots, ref_count * 4);
  }
  return Done() == WalkResult::kOk ? WalkResult::kPostponeReferences : WalkResult::kAbort;
}

WalkResult WalkRecorder::ObjectValues(uint64_t object, const uint64_t* bits, size_t count) {
  if (Begin(WalkRecordTag::kObjectValues, 12 + uint64_t{count} * 8)) {
    Val(object);
    Val<uint32_t>(static_cast<uint32_t>(count));
    Put(bits, count * 8);
  }
  return Done();
}

WalkResult WalkRecorder::StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                                     size_t count) {
  if (Begin(WalkRecordTag::kStringValue, 16 + uint64_t{count} * 2)) {
    Val(object);
    Val(length);
    Val<uint32_t>(static_cast<uint32_t>(count));
    Put(units, count * 2);
  }
  return Done();
}

WalkResult WalkRecorder::DescribeDomain(uint32_t domain, const char* name, size_t name_len) {
  if (Begin(WalkRecordTag::kDescribeDomain, 4 + StrBytes(name, name_len))) {
    Val(domain);
    Str(name, name_len);
  }
  return Done();
}

WalkResult WalkRecorder::DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                              size_t name_len) {
  if (Begin(WalkRecordTag::kDescribeTypeInDomain, 8 + StrBytes(name, name_len))) {
    Val(type_id);
    Val(domain);
    Str(name, name_len);
  }
  return Done();
}

WalkResult WalkRecorder::DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                                size_t name_len, const TypeTraits& traits) {
  if (Begin(WalkRecordTag::kDescribeTypeWithTraits,
            15 + StrBytes(name, name_len) +
                StrBytes(traits.element_type_name, traits.element_type_name_len))) {
    Val(type_id);
    Val(domain);
    Val<uint8_t>(traits.has_finalizer ? 1 : 0);
    Val<uint8_t>(static_cast<uint8_t>(traits.kind));
    Val<uint8_t>(static_cast<uint8_t>(traits.enum_underlying));
    Val<uint32_t>(traits.array_rank);
    Str(name, name_len);
    Str(traits.element_type_name, traits.element_type_name_len);
  }
  return Done();
}

}  // namespace agent
}  // namespace xrpm
