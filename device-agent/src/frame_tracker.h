// FrameTracker: the agent's FrameEventSink. On the runtime's game thread it interns each sample's
// type and stack (methods and stacks get small ids, sent once) and pushes fixed-size records into
// a FrameRing; on the network thread it fills FrameBatch messages: new definitions first, then
// frame and sample rows, never a row whose definitions have not been sent.
//
// Scope tags (AllocationSample::tag_key) are interned like types, at most protocol::kMaxFrameTags
// (past that a sample's tag is 0), their text cut at kMaxMarkerTextBytes.
//
// Interning: methods and types by the runtime's stable key (hash map); stacks by their method-id
// sequence in an open-addressing table (linear probing, FNV-style hash; O(depth) per sample).
// Definitions live in fixed arrays published by an atomic count (release on the game thread,
// acquire on the network thread): an entry is immutable once counted. Each table holds at most
// protocol::kMaxFrameDefs entries; past that a sample's stack (or type) is reported as id 0
// ("table full") rather than growing memory. The game thread allocates only when it first sees
// a method or type (its name) — never per sample or per frame.
//
// Memory: ring (capacity x 64 B, 256 KiB by default) + stack pool (256 KiB) + tables (~100 KiB)
// + the names, allocated when the first subscription starts and kept while the agent lives.
//
// Thread-safety: the FrameEventSink methods from the runtime's (serialised) calls; Fill from the
// network thread; Reset only while the runtime does not call this sink (after
// SetFrameEventSink(nullptr) returned).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "frame_ring.h"
#include "xrpm/agent/frame_events.h"
#include "xrpm/protocol/wire.pb.h"

namespace xrpm {
namespace agent {

class FrameTracker final : public FrameEventSink {
 public:
  static constexpr size_t kDefaultRingRecords = 4096;

  explicit FrameTracker(size_t ring_records = kDefaultRingRecords);

  // Forgets every definition and record (a new subscription).
  void Reset();

  // FrameEventSink (game thread).
  void OnFrame(const FrameRecord& frame) noexcept override;
  void OnAllocationSample(const AllocationSample& sample) noexcept override;

  // Network thread: appends to *batch what is ready (definitions, then rows; see the header
  // comment). Returns true if it added anything.
  bool Fill(wire::FrameBatch* batch);
  uint64_t pushed() const { return ring_.pushed(); }
  uint64_t pending() const { return ring_.pending(); }
  uint64_t dropped() const { return ring_.dropped(); }
  size_t ring_capacity() const { return ring_.capacity(); }

 private:
  uint32_t InternMethod(uint64_t key, const char* name);
  uint32_t InternType(uint64_t key, const char* name);
  uint32_t InternStack(const uint32_t* methods, uint32_t depth);
  uint32_t InternTag(uint64_t key, const char* name);  // protocol::kMaxFrameTags at most

  FrameRing ring_;

  // ---- definitions: written by the game thread, published by count ----
  std::unique_ptr<std::string[]> method_names_, type_names_, tag_names_;
  std::unique_ptr<uint32_t[]> stack_begin_;  // stack i: pool[begin[i] .. begin[i+1])
  std::unique_ptr<uint32_t[]> stack_pool_;
  std::atomic<uint32_t> methods_n_{0}, types_n_{0}, stacks_n_{0}, tags_n_{0};
  // game thread only
  std::unordered_map<uint64_t, uint32_t> method_ids_, type_ids_, tag_ids_;
  std::unique_ptr<uint32_t[]> stack_table_;  // open addressing: 0 empty, else stack id
  uint32_t pool_used_ = 0;

  // ---- network thread only ----
  uint32_t methods_sent_ = 0, types_sent_ = 0, stacks_sent_ = 0, tags_sent_ = 0;
};

}  // namespace agent
}  // namespace xrpm
