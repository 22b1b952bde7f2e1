// SnapshotBuilderSink: a HeapInfoCallback that builds an xrpm::Snapshot from a heap walk, so
// any runtime implementing the walker API (the emulator today, the device agent's tests, a
// device runtime later) can be turned into the host's snapshot model without a network.
//
// Mapping: C_BEGIN opens an AppDomain section (name, version and start time from the
// SectionInfo); DescribeType adds a type (DescribeTypeWithTraits: with has_finalizer);
// RootReferences adds roots with the descriptor of the current container (heap_walker.h:
// RootDescriptorFor), the container's class id for statics, and a readable origin ("thread 1 (Main)
// / Bubbles.Game1.Update", "static Bubbles.Game1", "GC handle table"); ObjectReferences adds an
// object (an unknown type id gets a placeholder type); C_END closes the section with the end time.
// Ids stay raw, exactly as reported.
//
// Allocation origins: AllocationClock creates Snapshot::origins (capture_frame, sample_bytes);
// DescribeSite appends a site (sites in the order described, methods interned by name in order of
// first appearance, innermost first); ObjectOrigin is held for the next ObjectReferences of the
// same object, which then gets its frame (saturating at 2^32 - 2) and site index, and every other
// object kUnknownSite. Without AllocationClock the snapshot has no origins. A site id that was
// never described, or an origin before the clock, is kept as unknown.
//
// The sink never aborts or postpones. A ContainerNamer, when given, names threads and methods
// for the origins; without one they read "thread 3" and "method 0x6000012".
//
// Thread-safety: none; one walk at a time (the walk's thread).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::emulator {

class ContainerNamer {
 public:
  virtual ~ContainerNamer() = default;
  // "" when unknown.
  virtual std::string ThreadName(uint64_t thread_id) const = 0;
  virtual std::string MethodName(uint64_t method_id) const = 0;
};

struct SectionInfo {
  std::string app_name;
  uint32_t version = 2;
  std::function<uint64_t()> clock;  // boot-relative ms for the a/c records; none: no timestamps
};

class SnapshotBuilderSink final : public agent::HeapInfoCallback {
 public:
  SnapshotBuilderSink(Snapshot& out, SectionInfo info, const ContainerNamer* namer = nullptr);

  agent::WalkResult BeginContainer(agent::ContainerType type, uint64_t id1, uint64_t id2) override;
  agent::WalkResult DescribeType(uint32_t type_id, const char* name, size_t name_len) override;
  agent::WalkResult DescribeTypeWithTraits(uint32_t type_id, uint32_t domain, const char* name,
                                           size_t name_len,
                                           const agent::TypeTraits& traits) override;
  agent::WalkResult RootReferences(const agent::RootRef* roots, size_t count) override;
  agent::WalkResult ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                     const uint64_t* refs, size_t ref_count) override;
  agent::WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override;
  agent::WalkResult DescribeSite(uint32_t site_id, const char* const* method_names,
                                 const size_t* name_lens, uint32_t depth) override;
  agent::WalkResult ObjectOrigin(uint64_t object, uint64_t alloc_frame, uint32_t site_id) override;

  bool began() const { return began_; }
  bool ended() const { return ended_; }

 private:
  uint32_t TypeIndexOf(uint32_t type_id);
  uint32_t Origin(const std::string& text);
  std::string ContainerOrigin(agent::ContainerType type, uint64_t id1, uint64_t id2);

  Snapshot& out_;
  SectionInfo info_;
  const ContainerNamer* namer_;
  uint32_t section_ = 0;
  bool began_ = false;
  bool ended_ = false;
  std::unordered_map<uint32_t, uint32_t> type_index_;
  std::unordered_map<std::string, uint32_t> origin_index_;
  std::string thread_origin_;
  RootKind kind_ = RootKind::kInternal;
  bool roots_allowed_ = false;
  uint32_t container_class_ = 0;
  uint32_t origin_ = kNoIndex;
  // Allocation origins: site id -> index into out_.origins->sites; method name -> index.
  std::unordered_map<uint32_t, uint32_t> site_index_;
  std::unordered_map<std::string, uint32_t> method_index_;
  bool has_pending_origin_ = false;
  uint64_t pending_object_ = 0;
  uint32_t pending_frame_ = 0;
  uint32_t pending_site_ = kUnknownSite;
};

}  // namespace xrpm::emulator
