// OriginCallsSink: a walker sink (xrpm/agent/heap_walker.h) that records a walk's allocation-origin
// calls as text, in order ("clock F S", "site N: M1 M2", "origin O F N"), for the tests of the
// agent's origin reporting and the ports' origin trackers; it can answer a site with an abort.
//
// Thread-safety: one walk thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/agent/heap_walker.h"

namespace xrpm::testing {

struct OriginCallsSink : agent::HeapInfoCallback {
  using WalkResult = agent::WalkResult;
  std::vector<std::string> calls;
  WalkResult abort_on_site = WalkResult::kOk;
  WalkResult BeginContainer(agent::ContainerType, uint64_t, uint64_t) override {
    return WalkResult::kOk;
  }
  WalkResult DescribeType(uint32_t, const char*, size_t) override { return WalkResult::kOk; }
  WalkResult RootReferences(const agent::RootRef*, size_t) override { return WalkResult::kOk; }
  WalkResult ObjectReferences(uint64_t, uint32_t, uint32_t, const uint64_t*, size_t) override {
    return WalkResult::kOk;
  }
  WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override {
    calls.push_back("clock " + std::to_string(frame) + " " + std::to_string(sample_bytes));
    return WalkResult::kOk;
  }
  WalkResult DescribeSite(uint32_t site, const char* const* names, const size_t* lens,
                          uint32_t depth) override {
    std::string c = "site " + std::to_string(site) + ":";
    for (uint32_t i = 0; i < depth; ++i) c += " " + std::string(names[i], lens[i]);
    calls.push_back(c);
    return abort_on_site;
  }
  WalkResult ObjectOrigin(uint64_t object, uint64_t frame, uint32_t site) override {
    calls.push_back("origin " + std::to_string(object) + " " + std::to_string(frame) + " " +
                    std::to_string(site));
    return WalkResult::kOk;
  }
};

}  // namespace xrpm::testing
