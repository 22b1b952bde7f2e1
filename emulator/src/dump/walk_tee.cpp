#include "walk_tee.h"

namespace xrpm::emulator {
namespace {
using agent::WalkResult;

// The leader's answer, unless the follower aborts.
WalkResult Both(WalkResult leader, WalkResult follower) {
  return follower == WalkResult::kAbort ? WalkResult::kAbort : leader;
}
}  // namespace

WalkResult WalkTee::BeginContainer(agent::ContainerType type, uint64_t id1, uint64_t id2) {
  const WalkResult l = leader_.BeginContainer(type, id1, id2);
  return Both(l, follower_.BeginContainer(type, id1, id2));
}

WalkResult WalkTee::DescribeType(uint32_t type_id, const char* name, size_t name_len) {
  const WalkResult l = leader_.DescribeType(type_id, name, name_len);
  return Both(l, follower_.DescribeType(type_id, name, name_len));
}

WalkResult WalkTee::RootReferences(const agent::RootRef* roots, size_t count) {
  const WalkResult l = leader_.RootReferences(roots, count);
  return Both(l, follower_.RootReferences(roots, count));
}

WalkResult WalkTee::ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                     const uint64_t* refs, size_t ref_count) {
  const WalkResult l = leader_.ObjectReferences(object, type_id, size, refs, ref_count);
  return Both(l, follower_.ObjectReferences(object, type_id, size, refs, ref_count));
}

WalkResult WalkTee::AllocationClock(uint64_t frame, uint32_t sample_bytes) {
  const WalkResult l = leader_.AllocationClock(frame, sample_bytes);
  return Both(l, follower_.AllocationClock(frame, sample_bytes));
}

WalkResult WalkTee::DescribeSite(uint32_t site_id, const char* const* method_names,
                                 const size_t* name_lens, uint32_t depth) {
  const WalkResult l = leader_.DescribeSite(site_id, method_names, name_lens, depth);
  return Both(l, follower_.DescribeSite(site_id, method_names, name_lens, depth));
}

WalkResult WalkTee::ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) {
  const WalkResult l = leader_.ObjectOrigin(object, alloc_frame, site_id);
  return Both(l, follower_.ObjectOrigin(object, alloc_frame, site_id));
}

WalkResult WalkTee::DescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                 agent::FieldKind underlying, const agent::EnumMemberInfo* members,
                                 size_t count) {
  const WalkResult l = leader_.DescribeEnum(enum_id, name, name_len, underlying, members, count);
  return Both(l, follower_.DescribeEnum(enum_id, name, name_len, underlying, members, count));
}

WalkResult WalkTee::DescribeLayout(uint32_t type_id, const agent::TypeLayoutInfo& layout) {
  const WalkResult l = leader_.DescribeLayout(type_id, layout);
  return Both(l, follower_.DescribeLayout(type_id, layout));
}

WalkResult WalkTee::ContainerLabel(const char* label, size_t len) {
  const WalkResult l = leader_.ContainerLabel(label, len);
  return Both(l, follower_.ContainerLabel(label, len));
}

WalkResult WalkTee::ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                              const uint64_t* refs, const uint32_t* slots,
                                              size_t ref_count) {
  const WalkResult l =
      leader_.ObjectReferencesWithSlots(object, type_id, size, refs, slots, ref_count);
  return Both(l,
              follower_.ObjectReferencesWithSlots(object, type_id, size, refs, slots, ref_count));
}

WalkResult WalkTee::ObjectValues(uint64_t object, const uint64_t* bits, size_t count) {
  const WalkResult l = leader_.ObjectValues(object, bits, count);
  return Both(l, follower_.ObjectValues(object, bits, count));
}

WalkResult WalkTee::StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                                size_t count) {
  const WalkResult l = leader_.StringValue(object, length, units, count);
  return Both(l, follower_.StringValue(object, length, units, count));
}

WalkResult WalkTee::DescribeDomain(uint32_t domain, const char* name, size_t name_len) {
  const WalkResult l = leader_.DescribeDomain(domain, name, name_len);
  return Both(l, follower_.DescribeDomain(domain, name, name_len));
}

WalkResult WalkTee::DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                         size_t name_len) {
  const WalkResult l = leader_.DescribeTypeInDomain(type_id, domain, name, name_len);
  return Both(l, follower_.DescribeTypeInDomain(type_id, domain, name, name_len));
}

WalkResult WalkTee::DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                           size_t name_len, const agent::TypeTraits& traits) {
  const WalkResult l = leader_.DescribeTypeWithTraits(type_id, domain, name, name_len, traits);
  return Both(l, follower_.DescribeTypeWithTraits(type_id, domain, name, name_len, traits));
}

void WalkTee::WorldResumed() {
  leader_.WorldResumed();
  follower_.WorldResumed();
}

void WalkTee::WalkFailed(const char* reason, size_t len) {
  leader_.WalkFailed(reason, len);
  follower_.WalkFailed(reason, len);
}

}  // namespace xrpm::emulator
