// WalkTee: one heap walk (heap_walker.h) delivered to two sinks. The leader's answers steer the
// walk (the ground-truth dump's SnapshotBuilderSink lets it go depth-first); the follower gets
// every call in the same order, asks for the detail (Detail(): fields and values) and may only
// stop it: a kAbort from either sink aborts the walk for both (the final kEnd still reaches both).
// Calls the leader does not implement (fields, values, snapshot-walk signals) fall back to its
// defaults, as for any sink. O(1) per call; no state beyond the two references.
//
// Thread-safety: none; the walk's thread.
#pragma once

#include "xrpm/agent/heap_walker.h"

namespace xrpm::emulator {

class WalkTee final : public agent::HeapInfoCallback {
 public:
  WalkTee(agent::HeapInfoCallback& leader, agent::HeapInfoCallback& follower)
      : leader_(leader), follower_(follower) {}

  agent::WalkResult BeginContainer(agent::ContainerType type, uint64_t id1, uint64_t id2) override;
  agent::WalkResult DescribeType(uint32_t type_id, const char* name, size_t name_len) override;
  agent::WalkResult RootReferences(const agent::RootRef* roots, size_t count) override;
  agent::WalkResult ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                     const uint64_t* refs, size_t ref_count) override;
  agent::WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override;
  agent::WalkResult DescribeSite(uint32_t site_id, const char* const* method_names,
                                 const size_t* name_lens, uint32_t depth) override;
  agent::WalkResult ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) override;
  agent::WalkDetail Detail() const override { return follower_.Detail(); }
  agent::WalkResult DescribeEnum(uint32_t enum_id, const char* name, size_t name_len,
                                 agent::FieldKind underlying, const agent::EnumMemberInfo* members,
                                 size_t count) override;
  agent::WalkResult DescribeLayout(uint32_t type_id, const agent::TypeLayoutInfo& layout) override;
  agent::WalkResult ContainerLabel(const char* label, size_t len) override;
  agent::WalkResult ObjectReferencesWithSlots(uint64_t object, uint32_t type_id, uint32_t size,
                                              const uint64_t* refs, const uint32_t* slots,
                                              size_t ref_count) override;
  agent::WalkResult ObjectValues(uint64_t object, const uint64_t* bits, size_t count) override;
  agent::WalkResult StringValue(uint64_t object, uint32_t length, const uint16_t* units,
                                size_t count) override;
  agent::WalkResult DescribeDomain(uint32_t domain, const char* name, size_t name_len) override;
  agent::WalkResult DescribeTypeInDomain(uint32_t type_id, uint32_t domain, const char* name,
                                         size_t name_len) override;
  agent::WalkResult DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                           size_t name_len,
                                           const agent::TypeTraits& traits) override;
  void WorldResumed() override;
  bool Cancelled() const override { return leader_.Cancelled() || follower_.Cancelled(); }
  void WalkFailed(const char* reason, size_t len) override;

 private:
  agent::HeapInfoCallback& leader_;
  agent::HeapInfoCallback& follower_;
};

}  // namespace xrpm::emulator
