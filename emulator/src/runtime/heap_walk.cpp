// Runtime::WalkHeap: the IHeapInfoCallBack-style walk (heap_walker.h).
//
// Algorithm: C_BEGIN; DescribeType for every loaded class; the root containers in RootSet order
// (roots batched per container, up to 4096 per RootReferences call); then C_HEAP: a linear scan
// of the heap in address order starts a depth-first traversal at each object not yet reported.
// An object is reported once (a visited bit in its header); when the sink answers kOk its
// unreported referents are reported next, depth-first, through an explicit stack bounded at
// kMaxDepth entries (deeper referents are reported later by the linear scan, which the spec
// allows); kPostponeReferences skips the descent, so a sink that always postpones receives the
// flat list in address order. kAbort stops every callback except the final C_END, which is always
// sent. O(objects + references); memory: the bounded stack and one reference buffer (the
// largest object's reference count).
//
// Visited bits only once needed: while the sink postpones every object (the agent's sink always
// does), the scan's cursor alone says what was reported (everything before it), so the walk
// writes no header and needs no pass to clean up after itself. The first kOk marks the objects
// up to the cursor visited (one pass over that prefix) and from then on every report sets its
// bit; the bits (and the origin indices below) are cleared before returning only if set.
//
// Allocation origins (when the runtime records them): on entering C_HEAP, AllocationClock(frames
// completed, 0); before an object's ObjectReferences come its site's DescribeSite (the first
// time the walk uses the site: a byte per site id) and its ObjectOrigin. The origin table is in
// address order, so a cursor finds the origin of each object a flat walk reports (address order)
// in O(1). The first object reported out of address order (a sink that lets the walk descend)
// makes one linear pass store every object's table index + 1 in its sync word (free while no
// collection runs; cleared with the visited bits), and from then on the origin is one indexed
// read whatever order the traversal takes. Extra cost: O(1) per object (a random read of the
// table in the depth-first order), at most one linear pass, O(depth) per distinct site.
//
// Snapshot walks (RuntimeConfig::snapshot_walks): inside RunWithWorldStopped, WalkHeap forks a
// copy-on-write child that runs WalkPaused into a pipe (agent/snapshot_walk.h), resumes the game,
// tells the sink (WorldResumed) and replays the child's walk into it while the game runs: the
// same calls in the same order as WalkPaused gives a sink that postpones every object (the
// recorder answers as the agent's sink does). A child that hangs or dies fails that capture and
// makes the walks paused from then on; no child at all walks paused at once.
//
// Fields and values (when the sink's Detail() asks): after the types, DescribeLayout for each;
// a frame container's method name; each static root's field index; per object its values (a
// FieldReporter reads them) and ObjectReferencesWithSlots instead of ObjectReferences.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "field_reporter.h"

#include "xrpm/agent/snapshot_walk.h"
#include "xrpm/emulator/object_refs.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {
namespace {
using agent::ContainerType;
using agent::HeapInfoCallback;
using agent::RootRef;
using agent::WalkResult;

constexpr size_t kMaxDepth = 1 << 16;
constexpr size_t kRootBatch = 4096;

class RootReporter final : public RootVisitor {
 public:
  RootReporter(HeapInfoCallback& sink, const FieldReporter& fields) : sink_(sink), fields_(fields) {
    batch_.reserve(kRootBatch);
  }
  bool Container(const RootContainer& c) override {
    if (!Flush()) return false;
    aborted =
        sink_.BeginContainer(c.type, c.id1, c.id2) == WalkResult::kAbort ||
        (fields_.fields() && fields_.LabelContainer(sink_, c.type, c.id2) == WalkResult::kAbort);
    return !aborted;
  }
  bool Root(Addr* slot, uint8_t flags) override {
    batch_.push_back(RootRef{*slot, flags});
    return batch_.size() < kRootBatch || Flush();
  }
  bool StaticRoot(Addr* slot, uint32_t index) override {
    batch_.push_back(RootRef{*slot, 0, fields_.fields() ? index : agent::kNoSlot});
    return batch_.size() < kRootBatch || Flush();
  }
  bool Flush() {
    if (!aborted && !batch_.empty())
      aborted = sink_.RootReferences(batch_.data(), batch_.size()) == WalkResult::kAbort;
    batch_.clear();
    return !aborted;
  }
  bool aborted = false;

 private:
  HeapInfoCallback& sink_;
  const FieldReporter& fields_;
  std::vector<RootRef> batch_;
};

// What Report needs to send allocation origins; null when the runtime does not record them.
struct OriginSource {
  const std::vector<ObjectOrigin>& entries;  // address order; indexed by sync word - 1
  const SiteTable& sites;
  const MethodTable& methods;
  std::vector<uint8_t> described;  // per site id: DescribeSite sent in this walk
  size_t cursor = 0;               // the next entry in address order
  bool indexed = false;            // the sync words hold the entries' indices
};

// Stores each object's index in the (address-ordered) origin table + 1 in its sync word.
void IndexOrigins(ManagedHeap& heap, const TypeTable& types,
                  const std::vector<ObjectOrigin>& entries) {
  size_t i = 0;
  heap.ForEachObject(types, [&](Addr a, uint32_t* h, uint32_t) {
    while (i < entries.size() && entries[i].addr < a) ++i;
    if (i < entries.size() && entries[i].addr == a) h[1] = static_cast<uint32_t>(i + 1);
  });
}

class HeapReporter {
 public:
  HeapReporter(ManagedHeap& heap, const TypeTable& types, HeapInfoCallback& sink,
               OriginSource* origins, FieldReporter& fields)
      : heap_(heap), types_(types), sink_(sink), origins_(origins), fields_(fields) {}

  // Whether the walk wrote visited bits or origin indices into headers (to be cleared).
  bool touched_headers() const { return descended_ || (origins_ && origins_->indexed); }

  // Returns false when the sink aborted.
  bool Run() {
    const Addr top = heap_.top();
    for (Addr a = heap_.base(); a < top;) {
      uint32_t* h = heap_.Words(a);
      const uint32_t size = types_.SizeOf(h);
      if ((h[0] & kTypeMask) >= kFirstRealType && !(h[0] & kVisitedBit) && !Traverse(a))
        return false;
      a += size;
    }
    return true;
  }

 private:
  struct Pending {
    Addr obj;
    uint32_t next;
  };

  const ObjectOrigin* FindOrigin(Addr a, const uint32_t* h) {
    OriginSource& src = *origins_;
    if (src.cursor < src.entries.size() && src.entries[src.cursor].addr == a)
      return &src.entries[src.cursor++];
    if (!src.indexed) {
      IndexOrigins(heap_, types_, src.entries);
      src.indexed = true;
    }
    return h[1] != 0 ? &src.entries[h[1] - 1] : nullptr;
  }

  WalkResult ReportOrigin(const ObjectOrigin& o) {
    if (!origins_->described[o.site]) {
      origins_->described[o.site] = 1;
      const uint32_t depth = origins_->sites.depth(o.site);
      const MethodId* m = origins_->sites.methods(o.site);
      const char* names[agent::kMaxSampleStackDepth];
      size_t lens[agent::kMaxSampleStackDepth];
      for (uint32_t k = 0; k < depth; ++k) {
        const std::string& n = origins_->methods[m[k]].name;
        names[k] = n.data();
        lens[k] = n.size();
      }
      if (sink_.DescribeSite(o.site, names, lens, depth) == WalkResult::kAbort)
        return WalkResult::kAbort;
    }
    return sink_.ObjectOrigin(o.addr, o.frame, o.site);
  }

  WalkResult Report(Addr a) {
    uint32_t* h = heap_.Words(a);
    if (descended_) h[0] |= kVisitedBit;
    if (origins_) {
      const ObjectOrigin* o = FindOrigin(a, h);
      if (o && ReportOrigin(*o) == WalkResult::kAbort) return WalkResult::kAbort;
    }
    // The buffers only grow (to the most slots of an object so far): the non-null references
    // and their slot numbers are written through pointers, a store each.
    const TypeDesc& t = types_[h[0] & kTypeMask];
    const uint32_t slots = RefSlotCount(t, h);
    if (refs_.size() < slots) {
      refs_.resize(slots);
      slot_numbers_.resize(slots);
    }
    uint64_t* refs = refs_.data();
    size_t n = 0;
    if (!fields_.fields()) {
      ForEachRefSlot(types_, h, [&](uint32_t* slot) {
        refs[n] = *slot;
        n += *slot != kNull;
      });
      return sink_.ObjectReferences(a, h[0] & kTypeMask, types_.SizeOf(h), refs, n);
    }
    if (fields_.ReportValues(sink_, heap_, a, h) == WalkResult::kAbort) return WalkResult::kAbort;
    uint32_t* numbers = slot_numbers_.data();
    uint32_t i = 0;
    ForEachRefSlot(types_, h, [&](uint32_t* slot) {
      refs[n] = *slot;
      numbers[n] = i++;
      n += *slot != kNull;
    });
    return sink_.ObjectReferencesWithSlots(a, h[0] & kTypeMask, types_.SizeOf(h), refs,
                                           fields_.Slots(t, numbers, n), n);
  }

  bool Traverse(Addr root) {
    WalkResult r = Report(root);
    if (r == WalkResult::kAbort) return false;
    if (r != WalkResult::kOk) return true;
    if (!descended_) {  // the first descent: what the scan reported so far becomes visited
      for (Addr a = heap_.base(); a <= root;) {
        uint32_t* h = heap_.Words(a);
        if ((h[0] & kTypeMask) >= kFirstRealType) h[0] |= kVisitedBit;
        a += types_.SizeOf(h);
      }
      descended_ = true;
    }
    stack_.push_back(Pending{root, 0});
    while (!stack_.empty()) {
      Pending& p = stack_.back();
      uint32_t* h = heap_.Words(p.obj);
      const TypeDesc& t = types_[h[0] & kTypeMask];
      if (p.next >= RefSlotCount(t, h)) {
        stack_.pop_back();
        continue;
      }
      Addr c = *RefSlotAt(t, h, p.next++);
      if (c == kNull || (heap_.Words(c)[0] & kVisitedBit)) continue;
      r = Report(c);
      if (r == WalkResult::kAbort) {
        stack_.clear();
        return false;
      }
      if (r == WalkResult::kOk && stack_.size() < kMaxDepth) stack_.push_back(Pending{c, 0});
    }
    return true;
  }

  ManagedHeap& heap_;
  const TypeTable& types_;
  HeapInfoCallback& sink_;
  OriginSource* origins_;
  FieldReporter& fields_;
  std::vector<uint64_t> refs_;
  std::vector<uint32_t> slot_numbers_;
  std::vector<Pending> stack_;
  bool descended_ = false;  // a sink answered kOk: visited bits are in use
};

bool DescribeTypes(const TypeTable& types, HeapInfoCallback& sink) {
  for (TypeIndex t = kFirstRealType; t < types.size(); ++t) {
    const std::string& name = types[t].name;
    const TypeDesc& d = types[t];
    agent::TypeTraits traits;
    traits.has_finalizer = d.options.finalizable;
    // The emulated runtime knows what each type is: NETCF's arrays are vectors (rank 1), named
    // "<element>[]"; boxed value types and enums are classes flagged so.
    traits.kind = d.options.value_type ? agent::TypeKind::kValueType : agent::TypeKind::kClass;
    if (d.options.enum_underlying != agent::FieldKind::kUnknown) {
      traits.kind = agent::TypeKind::kEnum;
      traits.enum_underlying = d.options.enum_underlying;
    }
    if (d.kind == TypeKind::kArray) {
      traits.kind = agent::TypeKind::kArray;
      traits.array_rank = 1;
      if (name.size() > 2 && name.ends_with("[]")) {
        traits.element_type_name = name.data();
        traits.element_type_name_len = name.size() - 2;
      }
    }
    if (sink.DescribeTypeWithTraits(t, 0, name.data(), name.size(), traits) == WalkResult::kAbort)
      return false;
  }
  return true;
}

}  // namespace

void Runtime::WalkHeap(HeapInfoCallback& sink) {
  if (!config_.snapshot_walks || !world_stopped_ || resumed_early_ || snapshot_broke_)
    return WalkPaused(sink);
  // Snapshots are given up for good, saying why, when no child can be made (this walk is then
  // paused) or a child hung or died (that capture failed: the sink was told).
  const auto give_up = [this](const std::string& why) {
    snapshot_broke_ = true;
    std::fprintf(stderr, "xrpm-emulator: captures walk paused from now on: %s\n", why.c_str());
  };
  agent::SnapshotWalk child;
  std::string error;
  const auto walk = [](void* rt, HeapInfoCallback& rec) {
    static_cast<Runtime*>(rt)->WalkPaused(rec);
  };
  // glibc's fork: the game thread is parked at its frame boundary, no thread is stopped inside
  // malloc, so the child's malloc is whole (the field reporter's tables use it).
  if (!child.Start(sink.Detail(), walk, this, false, &error, agent::SnapshotWalk::Clone::kFork)) {
    give_up(error);
    return WalkPaused(sink);
  }
  world_.Resume();
  resumed_early_ = true;
  sink.WorldResumed();
  const agent::ReplayResult r = child.Replay(sink);
  if (!r.error.empty() && !sink.Cancelled()) give_up(r.error);
}

void Runtime::WalkPaused(HeapInfoCallback& sink) {
  bool heap_touched = false;
  FieldReporter fields(types_, statics_, methods_, sink.Detail());
  if (sink.BeginContainer(ContainerType::kBegin, 0, 0) != WalkResult::kAbort &&
      DescribeTypes(types_, sink) && (!fields.fields() || fields.DescribeLayouts(sink))) {
    RootReporter roots(sink, fields);
    root_set_.Enumerate(roots);
    if (roots.Flush() && sink.BeginContainer(ContainerType::kHeap, 0, 0) != WalkResult::kAbort) {
      std::optional<OriginSource> source;
      bool clocked = true;
      if (config_.record_origins &&
          (clocked = sink.AllocationClock(frame_number_, 0) != WalkResult::kAbort)) {
        origins_.Normalize();
        source.emplace(OriginSource{origins_.entries(), sites_, methods_,
                                    std::vector<uint8_t>(sites_.size() + 1, 0)});
      }
      if (clocked) {
        HeapReporter reporter(heap_, types_, sink, source ? &*source : nullptr, fields);
        reporter.Run();
        heap_touched = reporter.touched_headers();
      }
    }
  }
  if (heap_touched)
    heap_.ForEachObject(types_, [](Addr, uint32_t* h, uint32_t) {
      h[0] &= ~kVisitedBit;
      h[1] = 0;  // the origin index (live objects' sync words are 0 outside a collection)
    });
  sink.BeginContainer(ContainerType::kEnd, 0, 0);
}

}  // namespace xrpm::emulator
