// AllocationLedger: the exact account of every allocation a Runtime makes while the ledger is
// attached (Runtime::set_allocation_ledger): bytes and objects by type and by allocating site
// (the innermost managed method on the allocating thread). It is the ground truth the sampled
// estimates are tested and benchmarked against. O(1) per allocation (hash map update).
//
// Thread-safety: none; written by the thread that holds the world, read when no game runs.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "xrpm/emulator/method_table.h"
#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

struct AllocationTotals {
  uint64_t bytes = 0;
  uint64_t objects = 0;
};

class AllocationLedger {
 public:
  void Record(TypeIndex type, MethodId site, uint32_t size) {
    total_.bytes += size;
    ++total_.objects;
    auto& t = by_type_[type];
    t.bytes += size;
    ++t.objects;
    auto& s = by_site_[site];
    s.bytes += size;
    ++s.objects;
  }
  const AllocationTotals& total() const { return total_; }
  const std::unordered_map<TypeIndex, AllocationTotals>& by_type() const { return by_type_; }
  // Keyed by the innermost method (kNoMethod: allocated outside any managed frame).
  const std::unordered_map<MethodId, AllocationTotals>& by_site() const { return by_site_; }

 private:
  AllocationTotals total_;
  std::unordered_map<TypeIndex, AllocationTotals> by_type_;
  std::unordered_map<MethodId, AllocationTotals> by_site_;
};

}  // namespace xrpm::emulator
