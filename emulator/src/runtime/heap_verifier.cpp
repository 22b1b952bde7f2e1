// Runtime::VerifyHeap: a consistency check of the whole heap for tests and GC stress runs.
// Two linear passes, O(heap): the first records object starts in a bitmap (one bit per 4-byte
// word), the second checks every reference field against it; then every root is checked, and
// the allocation-origin table against the objects (one entry per object, in address order, each
// naming an interned site).
#include <cstdio>
#include <vector>

#include "xrpm/emulator/object_refs.h"
#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {
namespace {

std::string Hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
  return b;
}

class StartBitmap {
 public:
  StartBitmap(Addr base, Addr top) : base_(base), bits_(((top - base) / 4 + 64) / 64, 0) {}
  void Set(Addr a) { bits_[(a - base_) / 4 / 64] |= uint64_t{1} << ((a - base_) / 4 % 64); }
  bool Test(Addr a, Addr top) const {
    if (a < base_ || a >= top || (a & 3)) return false;
    return (bits_[(a - base_) / 4 / 64] >> ((a - base_) / 4 % 64)) & 1;
  }

 private:
  Addr base_;
  std::vector<uint64_t> bits_;
};

class RootChecker final : public RootVisitor {
 public:
  RootChecker(const StartBitmap& starts, Addr top) : starts_(starts), top_(top) {}
  bool Container(const RootContainer& c) override {
    container_ = agent::ContainerTypeName(c.type);
    return true;
  }
  bool Root(Addr* slot, uint8_t) override {
    if (starts_.Test(*slot, top_)) return true;
    problem = std::string("root in ") + container_ + " -> " + Hex(*slot) + " is not an object";
    return false;
  }
  std::string problem;

 private:
  const StartBitmap& starts_;
  Addr top_;
  const char* container_ = "";
};

}  // namespace

std::string Runtime::VerifyHeap() {
  const Addr base = heap_.base(), top = heap_.top();
  StartBitmap starts(base, top);
  Addr a = base;
  while (a < top) {
    const uint32_t* h = heap_.Words(a);
    TypeIndex t = h[0] & kTypeMask;
    if (t >= types_.size()) return "bad type index " + Hex(t) + " at " + Hex(a);
    if (h[0] & (kMarkBit | kPinnedBit | kVisitedBit)) return "GC bits left set at " + Hex(a);
    uint32_t size = types_.SizeOf(h);
    if (size < 4 || (size & 3) || uint64_t{a} + size > top)
      return "bad size " + Hex(size) + " of " + types_[t].name + " at " + Hex(a);
    if (t >= kFirstRealType) starts.Set(a);
    a += size;
  }
  if (a != top) return "heap parse ends at " + Hex(a) + ", top is " + Hex(top);

  std::string problem;
  heap_.ForEachObject(types_, [&](Addr obj, uint32_t* h, uint32_t) {
    if (!problem.empty()) return;
    ForEachRefSlot(types_, h, [&](uint32_t* slot) {
      if (problem.empty() && *slot != kNull && !starts.Test(*slot, top))
        problem = types_[h[0] & kTypeMask].name + " at " + Hex(obj) + " references " + Hex(*slot) +
                  ", which is not an object";
    });
  });
  if (!problem.empty()) return problem;

  RootChecker roots(starts, top);
  root_set_.Enumerate(roots);
  if (!roots.problem.empty()) return roots.problem;
  for (Addr f : finalizers_.registered())
    if (!starts.Test(f, top)) return "finalization entry " + Hex(f) + " is not an object";
  return config_.record_origins ? VerifyOrigins() : "";
}

std::string Runtime::VerifyOrigins() {
  origins_.Normalize();
  const std::vector<ObjectOrigin>& e = origins_.entries();
  size_t i = 0;
  std::string problem;
  heap_.ForEachObject(types_, [&](Addr obj, uint32_t*, uint32_t) {
    if (!problem.empty()) return;
    if (i >= e.size() || e[i].addr != obj)
      problem = "object at " + Hex(obj) + " has no allocation origin (table has " +
                (i < e.size() ? Hex(e[i].addr) : std::string("nothing")) + " there)";
    else if (e[i].site > sites_.size())  // kNoSite: a stack past the table's capacity
      problem = "object at " + Hex(obj) + " names allocation site " + Hex(e[i].site);
    ++i;
  });
  if (problem.empty() && i != e.size())
    problem =
        "the origin table has " + std::to_string(e.size() - i) + " entries beyond the objects";
  return problem;
}

}  // namespace xrpm::emulator
