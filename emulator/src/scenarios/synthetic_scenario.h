// The `synthetic` scenario: a large deterministic heap for tests and benchmarks.
//
// N objects of T class types (Synthetic.<Area>.<Stem><t>), each with K reference fields and
// 0-3 Int32 fields, so sizes vary between 8 + 4K and 20 + 4K bytes. Object i's type is a hash
// of (seed, i). Field 0 of object i references object i+1, so the heap is one chain of length N
// reachable from the static Synthetic.Heap.s_head (a worst case for recursive collectors and
// walkers); each of fields 1..K-1 references, by a hash, an object within 2048 objects of its
// referrer (3 in 4) or anywhere in the heap (1 in 4): allocation locality as real heaps have
// it, plus far references. Total: N objects, K*N references, all live. Extra roots: a local of
// Synthetic.Program.Main, a pinned and a weak GC handle, so every root kind the heap dump has
// appears.
//
// Built in one pass of allocation with collections suppressed, then one pass writing the
// references (a temporary 4N-byte index -> address table). 10 M objects with K = 3 take about
// 250 MB of heap. Each frame then allocates a little short-lived garbage.
//
// Thread-safety: see Scenario.
#pragma once

#include <atomic>
#include <vector>

#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

class SyntheticScenario final : public Scenario {
 public:
  explicit SyntheticScenario(const ScenarioParams& p);
  const char* name() const override { return "synthetic"; }
  void Setup(Runtime& rt) override;
  void Frame(Runtime& rt, uint64_t frame, double dt) override;
  std::string Status() const override;

  // The heap bytes Setup() will allocate for the objects.
  uint64_t PlannedHeapBytes() const;

 private:
  uint32_t TypeOfObject(uint64_t i) const;
  uint64_t RefTarget(uint64_t i, uint32_t k) const;  // the object field k of object i references
  void DefineTypes(Runtime& rt);

  ScenarioParams p_;
  std::vector<TypeIndex> types_;
  std::vector<uint32_t> type_sizes_;  // instance size per synthetic type (known before Setup)
  std::atomic<uint64_t> garbage_{0};
};

}  // namespace xrpm::emulator
