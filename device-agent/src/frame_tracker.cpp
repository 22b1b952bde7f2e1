#include "frame_tracker.h"

#include <algorithm>
#include <cstring>

#include "marker_queue.h"
#include "utf8.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace agent {

namespace {

constexpr uint32_t kMaxDefs = protocol::kMaxFrameDefs;
constexpr uint32_t kStackTableSlots = 2 * kMaxDefs;  // load factor <= 1/2
constexpr uint32_t kStackPoolEntries = 16 * kMaxDefs;
constexpr size_t kMaxDefNameBytes = 1024;
// Definitions per batch stop at about this many bytes (names dominate), far below the 256 KiB
// message limit.
constexpr size_t kDefBytesPerBatch = 96 * 1024;

enum Kind : uint64_t { kFrame = 1, kSample = 2 };

uint32_t HashStack(const uint32_t* m, uint32_t depth) {
  uint32_t h = 2166136261u ^ depth;
  for (uint32_t i = 0; i < depth; ++i) h = (h ^ m[i]) * 16777619u;
  return h ^ (h >> 15);
}

}  // namespace

FrameTracker::FrameTracker(size_t ring_records)
    : ring_(ring_records),
      method_names_(new std::string[kMaxDefs]),
      type_names_(new std::string[kMaxDefs]),
      tag_names_(new std::string[protocol::kMaxFrameTags]),
      stack_begin_(new uint32_t[kMaxDefs + 1]),
      stack_pool_(new uint32_t[kStackPoolEntries]),
      stack_table_(new uint32_t[kStackTableSlots]) {
  method_ids_.reserve(kMaxDefs);
  type_ids_.reserve(kMaxDefs);
  tag_ids_.reserve(protocol::kMaxFrameTags);
  Reset();
}

void FrameTracker::Reset() {
  ring_.Reset();
  methods_n_.store(0, std::memory_order_release);
  types_n_.store(0, std::memory_order_release);
  stacks_n_.store(0, std::memory_order_release);
  tags_n_.store(0, std::memory_order_release);
  method_ids_.clear();
  type_ids_.clear();
  tag_ids_.clear();
  std::fill(stack_table_.get(), stack_table_.get() + kStackTableSlots, 0u);
  stack_begin_[0] = 0;
  pool_used_ = 0;
  methods_sent_ = types_sent_ = stacks_sent_ = tags_sent_ = 0;
}

void FrameTracker::OnFrame(const FrameRecord& f) noexcept {
  RingRecord r;
  r.w[0] = kFrame | (uint64_t{std::min<uint32_t>(f.gcs, 0xFFFFFF)} << 8) |
           (uint64_t{f.alloc_objects} << 32);
  r.w[1] = f.frame;
  r.w[2] = f.end_us;
  r.w[3] = f.duration_us | (uint64_t{f.work_us} << 32);
  r.w[4] = f.alloc_bytes;
  r.w[5] = f.gc_pause_us | (uint64_t{f.gc_kinds} << 32);
  r.w[6] = static_cast<uint64_t>(f.gc_budget_left);
  ring_.Push(r);
}

uint32_t FrameTracker::InternMethod(uint64_t key, const char* name) {
  auto it = method_ids_.find(key);
  if (it != method_ids_.end()) return it->second;
  const uint32_t n = methods_n_.load(std::memory_order_relaxed);
  if (n >= kMaxDefs) return 0;
  try {
    method_names_[n] = SanitizeUtf8(name, kMaxDefNameBytes);
    method_ids_.emplace(key, n + 1);
  } catch (...) {  // out of memory: report the sample without a stack
    return 0;
  }
  methods_n_.store(n + 1, std::memory_order_release);
  return n + 1;
}

uint32_t FrameTracker::InternType(uint64_t key, const char* name) {
  auto it = type_ids_.find(key);
  if (it != type_ids_.end()) return it->second;
  const uint32_t n = types_n_.load(std::memory_order_relaxed);
  if (n >= kMaxDefs) return 0;
  try {
    type_names_[n] = name ? std::string(name, strnlen(name, kMaxDefNameBytes)) : std::string();
    type_ids_.emplace(key, n + 1);
  } catch (...) {
    return 0;
  }
  types_n_.store(n + 1, std::memory_order_release);
  return n + 1;
}

uint32_t FrameTracker::InternTag(uint64_t key, const char* name) {
  if (key == 0) return 0;
  auto it = tag_ids_.find(key);
  if (it != tag_ids_.end()) return it->second;
  const uint32_t n = tags_n_.load(std::memory_order_relaxed);
  if (n >= protocol::kMaxFrameTags) return 0;
  try {
    const char* t = name ? name : "";
    const size_t len = strnlen(t, kMaxMarkerTextBytes + 1);
    tag_names_[n].assign(t, CutUtf8(t, len, kMaxMarkerTextBytes));
    tag_ids_.emplace(key, n + 1);
  } catch (...) {
    return 0;
  }
  tags_n_.store(n + 1, std::memory_order_release);
  return n + 1;
}

uint32_t FrameTracker::InternStack(const uint32_t* m, uint32_t depth) {
  const uint32_t n = stacks_n_.load(std::memory_order_relaxed);
  for (uint32_t slot = HashStack(m, depth) % kStackTableSlots;;
       slot = (slot + 1) % kStackTableSlots) {
    const uint32_t id = stack_table_[slot];
    if (id == 0) {
      if (n >= kMaxDefs || pool_used_ + depth > kStackPoolEntries) return 0;
      std::memcpy(stack_pool_.get() + pool_used_, m, depth * sizeof(uint32_t));
      pool_used_ += depth;
      stack_begin_[n + 1] = pool_used_;
      stack_table_[slot] = n + 1;
      stacks_n_.store(n + 1, std::memory_order_release);
      return n + 1;
    }
    const uint32_t b = stack_begin_[id - 1], e = stack_begin_[id];
    if (e - b == depth && std::memcmp(stack_pool_.get() + b, m, depth * sizeof(uint32_t)) == 0)
      return id;
  }
}

void FrameTracker::OnAllocationSample(const AllocationSample& s) noexcept {
  const uint32_t depth = std::min(s.depth, kMaxSampleStackDepth);
  uint32_t methods[kMaxSampleStackDepth];
  uint32_t stack = 0;
  bool full = false;
  for (uint32_t i = 0; i < depth && !full; ++i) {
    methods[i] = InternMethod(s.method_keys[i], s.method_names[i]);
    full = methods[i] == 0;
  }
  if (!full) stack = InternStack(methods, depth);
  const uint32_t type = InternType(s.type_key, s.type_name);
  const uint32_t tag = InternTag(s.tag_key, s.tag_name);
  RingRecord r{};
  r.w[0] = kSample | (uint64_t{tag} << 8) | (uint64_t{s.size} << 32);
  r.w[1] = s.frame;
  r.w[2] = stack | (uint64_t{type} << 32);
  ring_.Push(r);
}

bool FrameTracker::Fill(wire::FrameBatch* b) {
  // Stacks first: a stack counted here has its methods counted too (published before it).
  const uint32_t ps = stacks_n_.load(std::memory_order_acquire);
  const uint32_t pt = types_n_.load(std::memory_order_acquire);
  const uint32_t pm = methods_n_.load(std::memory_order_acquire);
  const uint32_t pg = tags_n_.load(std::memory_order_acquire);
  bool added = false;
  size_t bytes = 0;
  uint32_t defs = 0;
  auto room = [&] { return bytes < kDefBytesPerBatch && defs < protocol::kMaxFrameBatchDefs; };
  for (; methods_sent_ < pm && room(); ++methods_sent_, ++defs) {
    wire::MethodDef* d = b->add_methods();
    d->set_id(methods_sent_ + 1);
    d->set_name(method_names_[methods_sent_]);
    bytes += method_names_[methods_sent_].size() + 8;
  }
  for (; methods_sent_ == pm && types_sent_ < pt && room(); ++types_sent_, ++defs) {
    wire::AllocTypeDef* d = b->add_types();
    d->set_id(types_sent_ + 1);
    d->set_name(type_names_[types_sent_]);
    bytes += type_names_[types_sent_].size() + 8;
  }
  for (; methods_sent_ == pm && stacks_sent_ < ps && room(); ++stacks_sent_, ++defs) {
    wire::StackDef* d = b->add_stacks();
    d->set_id(stacks_sent_ + 1);
    for (uint32_t i = stack_begin_[stacks_sent_]; i < stack_begin_[stacks_sent_ + 1]; ++i)
      d->add_methods(stack_pool_[i]);
    bytes += 8 + 2 * (stack_begin_[stacks_sent_ + 1] - stack_begin_[stacks_sent_]);
  }
  for (; tags_sent_ < pg && room(); ++tags_sent_, ++defs) {
    wire::TagDef* d = b->add_tags();
    d->set_id(tags_sent_ + 1);
    d->set_name(tag_names_[tags_sent_]);
    bytes += tag_names_[tags_sent_].size() + 8;
  }
  added = defs > 0;
  if (methods_sent_ < pm || types_sent_ < pt || stacks_sent_ < ps || tags_sent_ < pg)
    return added;  // defs first

  RingRecord r;
  uint32_t rows = 0;
  while (rows < protocol::kMaxFrameBatchRows && ring_.Peek(&r)) {
    const uint64_t kind = r.w[0] & 0xFF;
    if (kind == kSample) {
      const auto stack = static_cast<uint32_t>(r.w[2]);
      const auto type = static_cast<uint32_t>(r.w[2] >> 32);
      const auto tag = static_cast<uint32_t>((r.w[0] >> 8) & 0xFFFFFF);
      if (stack > stacks_sent_ || type > types_sent_ || tag > tags_sent_)
        break;  // defined after our snapshot
      wire::AllocSampleRow* row = b->add_samples();
      row->set_frame(r.w[1]);
      row->set_stack(stack);
      row->set_type(type);
      row->set_size(static_cast<uint32_t>(r.w[0] >> 32));
      row->set_tag(tag);
    } else if (kind == kFrame) {
      wire::FrameRow* row = b->add_frames();
      row->set_frame(r.w[1]);
      row->set_end_us(r.w[2]);
      row->set_duration_us(static_cast<uint32_t>(r.w[3]));
      row->set_work_us(static_cast<uint32_t>(r.w[3] >> 32));
      row->set_alloc_bytes(r.w[4]);
      row->set_alloc_objects(static_cast<uint32_t>(r.w[0] >> 32));
      row->set_gcs(static_cast<uint32_t>((r.w[0] >> 8) & 0xFFFFFF));
      row->set_gc_pause_us(static_cast<uint32_t>(r.w[5]));
      row->set_gc_kinds(static_cast<uint32_t>(r.w[5] >> 32));
      row->set_gc_budget_left(static_cast<int64_t>(r.w[6]));
    }
    ring_.Pop();
    ++rows;
  }
  b->set_dropped_records(ring_.dropped());
  return added || rows > 0;
}

}  // namespace agent
}  // namespace xrpm
