#include "xrpm/emulator/collector.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>

#include "xrpm/emulator/object_refs.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {
namespace {

constexpr uint8_t kPoison = 0xCD;

// Marks the objects of strong roots (weak handle roots do not keep objects alive).
class MarkRootsVisitor final : public RootVisitor {
 public:
  explicit MarkRootsVisitor(std::function<void(Addr, bool)> mark) : mark_(std::move(mark)) {}
  bool Container(const RootContainer&) override { return true; }
  bool Root(Addr* slot, uint8_t flags) override {
    if (!(flags & kRootFlagWeak)) mark_(*slot, (flags & kRootFlagPinned) != 0);
    return true;
  }

 private:
  std::function<void(Addr, bool)> mark_;
};

// Rewrites every root slot to its object's new address (stored in the sync word).
class ForwardRootsVisitor final : public RootVisitor {
 public:
  explicit ForwardRootsVisitor(ManagedHeap& heap) : heap_(heap) {}
  bool Container(const RootContainer&) override { return true; }
  bool Root(Addr* slot, uint8_t) override {
    *slot = heap_.Words(*slot)[1];
    return true;
  }

 private:
  ManagedHeap& heap_;
};

bool IsLive(const uint32_t* h) {
  return (h[0] & kTypeMask) >= kFirstRealType && (h[0] & kMarkBit) != 0;
}

}  // namespace

void Collector::MarkObject(Addr a, bool pin) {
  uint32_t* h = rt_.heap().Words(a);
  if (pin && !(h[0] & kPinnedBit)) {
    h[0] |= kPinnedBit;
    ++pinned_;
  }
  if (h[0] & kMarkBit) return;
  h[0] |= kMarkBit;
  ++marked_objects_;
  marked_bytes_ += rt_.types().SizeOf(h);
  mark_stack_.push_back(a);
}

void Collector::Drain() {
  ManagedHeap& heap = rt_.heap();
  const TypeTable& types = rt_.types();
  while (!mark_stack_.empty()) {
    Addr a = mark_stack_.back();
    mark_stack_.pop_back();
    uint32_t* h = heap.Words(a);
    // Prefetch every referent's header first so their cache misses overlap, then mark them.
    ForEachRefSlot(types, h, [&](uint32_t* slot) {
      if (*slot != kNull) __builtin_prefetch(heap.Words(*slot), 1);
    });
    ForEachRefSlot(types, h, [&](uint32_t* slot) {
      Addr c = *slot;
      if (c == kNull) return;
      uint32_t* ch = heap.Words(c);
      if (ch[0] & kMarkBit) return;
      ch[0] |= kMarkBit;
      ++marked_objects_;
      marked_bytes_ += types.SizeOf(ch);
      mark_stack_.push_back(c);
    });
  }
}

void Collector::ClearDeadWeakHandles(bool track_resurrection, GcResult& r) {
  const HandleType which =
      track_resurrection ? HandleType::kWeakTrackResurrection : HandleType::kWeak;
  for (HandleSlot& h : rt_.handles().slots()) {
    if (!h.in_use || h.type != which || h.target == kNull) continue;
    if (!(rt_.heap().Words(h.target)[0] & kMarkBit)) {
      h.target = kNull;
      ++r.weak_handles_cleared;
    }
  }
}

void Collector::QueueUnreachableFinalizable(GcResult& r) {
  std::vector<Addr>& reg = rt_.finalizers().registered();
  size_t keep = 0;
  for (Addr a : reg) {
    if (rt_.heap().Words(a)[0] & kMarkBit) {
      reg[keep++] = a;
    } else {
      rt_.finalizers().pending().push_back(a);
      MarkObject(a, false);
      ++r.queued_for_finalization;
    }
  }
  reg.resize(keep);
  Drain();
}

void Collector::Mark(GcResult& r) {
  marked_objects_ = marked_bytes_ = pinned_ = 0;
  mark_stack_.clear();
  MarkRootsVisitor roots([this](Addr a, bool pin) { MarkObject(a, pin); });
  rt_.roots().Enumerate(roots);
  Drain();
  ClearDeadWeakHandles(false, r);
  QueueUnreachableFinalizable(r);
  ClearDeadWeakHandles(true, r);
}

void Collector::Sweep(GcResult& r) {
  ManagedHeap& heap = rt_.heap();
  const TypeTable& types = rt_.types();
  const bool poison = rt_.config().gc_stress;
  // The origins of dead objects go while their marks still tell which ones died.
  rt_.origins().Collect(heap, false);
  std::vector<FreeBlock> blocks;
  const Addr top = heap.top();
  Addr run = kNull;
  auto close_run = [&](Addr end) {
    uint32_t size = end - run;
    if (poison && size > 8) std::memset(heap.At(run) + 8, kPoison, size - 8);
    heap.FormatFree(run, size);
    blocks.push_back(FreeBlock{run, size});
  };
  for (Addr a = heap.base(); a < top;) {
    uint32_t* h = heap.Words(a);
    uint32_t size = types.SizeOf(h);
    if (IsLive(h)) {
      if (run != kNull) close_run(a);
      run = kNull;
      h[0] &= ~(kMarkBit | kPinnedBit);
      ++r.live_objects;
      r.live_bytes += size;
    } else {
      if ((h[0] & kTypeMask) >= kFirstRealType) {
        ++r.freed_objects;
        r.freed_bytes += size;
      }
      if (run == kNull) run = a;
    }
    a += size;
  }
  Addr new_top = top;
  if (run != kNull) {  // a dead tail gives its space back to the bump allocator
    if (poison) std::memset(heap.At(run), kPoison, top - run);
    new_top = run;
  }
  heap.ResetAfterCollection(std::move(blocks), new_top);
}

void Collector::Compact(GcResult& r) {
  ManagedHeap& heap = rt_.heap();
  const TypeTable& types = rt_.types();
  const Addr top = heap.top();

  // Pass 1: new addresses, sliding down; pinned objects stay and leave a gap before them.
  std::vector<FreeBlock> gaps;
  Addr dest = heap.base();
  bool any_moves = false;
  for (Addr a = heap.base(); a < top;) {
    uint32_t* h = heap.Words(a);
    uint32_t size = types.SizeOf(h);
    if (IsLive(h)) {
      if (h[0] & kPinnedBit) {
        if (dest < a) gaps.push_back(FreeBlock{dest, a - dest});
        h[1] = a;
        dest = a + size;
      } else {
        any_moves |= dest != a;
        h[1] = dest;
        dest += size;
      }
    } else if ((h[0] & kTypeMask) >= kFirstRealType) {
      ++r.freed_objects;
      r.freed_bytes += size;
    }
    a += size;
  }

  // The origin table follows: dead entries go, moved ones take their new address (sync word).
  rt_.origins().Collect(heap, true);

  // Pass 2: every reference to a live object now names its new address. Skipped when no
  // object moves (a heap with no garbage below its top, e.g. a second collection in a row):
  // every address stays, so only pass 3's mark clearing remains.
  if (any_moves) {
    ForwardRootsVisitor forward_roots(heap);
    rt_.roots().Enumerate(forward_roots);
    for (Addr& a : rt_.finalizers().registered()) a = heap.Words(a)[1];
    for (Addr a = heap.base(); a < top;) {
      uint32_t* h = heap.Words(a);
      uint32_t size = types.SizeOf(h);
      if (IsLive(h)) {
        ForEachRefSlot(types, h, [&](uint32_t* slot) {
          if (*slot != kNull) *slot = heap.Words(*slot)[1];
        });
      }
      a += size;
    }
  }

  // Pass 3: move. Destinations never pass their source, so ascending order is safe.
  uint64_t not_moved = 0;
  for (Addr a = heap.base(); a < top;) {
    uint32_t* h = heap.Words(a);
    uint32_t size = types.SizeOf(h);
    if (IsLive(h)) {
      Addr to = h[1];
      h[0] &= ~(kMarkBit | kPinnedBit);
      h[1] = 0;
      if (to != a) {
        std::memmove(heap.At(to), heap.At(a), size);
        ++r.moved_objects;
      } else {
        ++not_moved;
      }
      ++r.live_objects;
      r.live_bytes += size;
    }
    a += size;
  }

  const bool poison = rt_.config().gc_stress;
  for (const FreeBlock& g : gaps) {
    if (poison && g.size > 8) std::memset(heap.At(g.addr) + 8, kPoison, g.size - 8);
    heap.FormatFree(g.addr, g.size);
  }
  if (poison && dest < top) std::memset(heap.At(dest), kPoison, top - dest);
  heap.ResetAfterCollection(std::move(gaps), dest);
  rt_.counters().Add(Counter::kObjectsMovedByCompactor, static_cast<int64_t>(r.moved_objects));
  rt_.counters().Add(Counter::kObjectsNotMovedByCompactor, static_cast<int64_t>(not_moved));
}

GcResult Collector::Collect(GcReason reason, bool force_compact) {
  auto t0 = std::chrono::steady_clock::now();
  GcResult r;
  r.reason = reason;
  Mark(r);
  const uint64_t used = rt_.heap().used_bytes();
  const bool compact = force_compact || (used - marked_bytes_) * 4 > used;
  if (compact)
    Compact(r);
  else
    Sweep(r);
  rt_.origins().SetBumpFloor(rt_.heap().top());
  r.compacted = compact;
  r.pinned_objects = pinned_;
  r.pause_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ++collections_;

  Counters& c = rt_.counters();
  c.Add(Counter::kGarbageCollections, 1);
  c.Add(Counter::kBytesCollectedByGc, static_cast<int64_t>(r.freed_bytes));
  if (compact) c.Add(Counter::kGcCompactions, 1);
  c.Add(Counter::kGcLatencyTime, std::llround(r.pause_ms));
  c.Add(Counter::kPinnedObjects, static_cast<int64_t>(r.pinned_objects));
  last_ = r;
  rt_.OnCollectionDone(r);
  return r;
}

void Collector::ClearMarks() {
  rt_.heap().ForEachObject(rt_.types(),
                           [](Addr, uint32_t* h, uint32_t) { h[0] &= ~(kMarkBit | kPinnedBit); });
}

uint64_t Collector::MarkOnly() {
  marked_objects_ = marked_bytes_ = pinned_ = 0;
  mark_stack_.clear();
  MarkRootsVisitor roots([this](Addr a, bool pin) { MarkObject(a, pin); });
  rt_.roots().Enumerate(roots);
  Drain();
  uint64_t marked = marked_objects_;
  ClearMarks();
  return marked;
}

}  // namespace xrpm::emulator
