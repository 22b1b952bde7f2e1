// FakeRuntime: a small in-test RuntimePort for the agent/client unit tests (the emulator is the
// real runtime; these tests need a heap they fully control). A deterministic heap of `objects`
// objects with 0-4 references each (one object with `big_refs` references), every container
// kind with roots, two threads with frames, and a few counters. The world is "stopped" by a
// mutex the fake game thread would take; WaitResumed lets tests wait for the resume.
// With set_origins(true) the walk also reports allocation origins (a clock, five sites, one of
// them depth 0 and one with a name that is not UTF-8; every 7th object without an origin);
// with set_hostile_origins(true) it adds what a broken runtime might send (site id 0, a site
// deeper than 32, a site described twice, an origin for the wrong object, an undefined site),
// all of which must cost only those objects' origins.
// With set_walk_sizes(objects, refs) it says, as a runtime that recorded its heap would, what its
// walk will report (WalkSizes): true figures or not, as the test chooses; with
// set_forecast(objects, refs), what it forecasts before any capture (ForecastCaptureSizes).
// With set_endless(true) the walk repeats the heap's objects (new ids each round) until the sink
// stops it or end_endless() is called: a transfer that only a cancel can end.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "xrpm/agent/runtime_port.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

class FakeRuntime : public agent::RuntimePort {
 public:
  FakeRuntime(size_t objects, size_t big_refs = 0, uint64_t seed = 1);

  agent::RuntimeInfo Info() const override;
  uint64_t BootMillis() const override { return 0x763f9d2; }
  size_t CounterCount() const override { return 3; }
  agent::CounterInfo DescribeCounter(size_t i) const override;
  size_t SampleCounters(agent::CounterValue* out, size_t count) const override;
  bool RunWithWorldStopped(void (*fn)(void*), void* ctx, uint32_t timeout_ms) override;
  void InduceFullCollection() override { ++collections_; }
  void WalkHeap(agent::HeapInfoCallback& sink) override;
  bool ForecastCaptureSizes(uint64_t* objects, uint64_t* refs) const override {
    *objects = forecast_objects_.load();
    *refs = forecast_refs_.load();
    return *objects != 0;
  }
  bool WalkSizes(uint64_t* objects, uint64_t* refs) const override {
    *objects = walk_objects_.load();
    *refs = walk_refs_.load();
    return *objects != 0;
  }

  // The snapshot a faithful capture must produce (built from the same heap, no network).
  Snapshot Expected() const;

  bool world_stopped() const { return stopped_.load(); }
  uint64_t resumes() const;
  bool WaitResumed(uint64_t count, uint32_t timeout_ms) const;
  void set_fail_stop(bool v) { fail_stop_ = v; }
  void set_origins(bool v) { origins_ = v; }
  void set_hostile_origins(bool v) { hostile_origins_ = v; }
  void set_endless(bool v) { endless_ = v; }
  // A sink that takes references in parts gets an object of more than `part` references in
  // parts of `part` (0: every object whole); with broken, the walk breaks the first such
  // object off after its first part (a runtime's slip the capture must refuse).
  void set_reference_parts(size_t part, bool broken = false) {
    part_ = part;
    broken_parts_ = broken;
  }
  // What it forecasts before any capture (ForecastCaptureSizes; 0: it cannot tell).
  void set_forecast(uint64_t objects, uint64_t refs) {
    forecast_objects_ = objects;
    forecast_refs_ = refs;
  }
  void set_walk_sizes(uint64_t objects, uint64_t refs) {
    walk_objects_ = objects;
    walk_refs_ = refs;
  }
  // Ends an endless walk from outside (a test's cleanup when the sink never stopped it).
  void end_endless() { end_endless_ = true; }
  // Objects reported beyond the heap's own by endless walks, and whether the last walk was
  // stopped by its sink (true) or ended another way.
  uint64_t endless_objects() const { return endless_objects_.load(); }
  bool stopped_by_sink() const { return stopped_by_sink_.load(); }
  // Origins the agent must drop in hostile mode (CaptureEnd.origins_dropped).
  uint64_t expected_dropped_origins() const;
  int collections() const { return collections_.load(); }

 private:
  struct Obj {
    uint64_t id;
    uint32_t type;
    uint32_t size;
    std::vector<uint64_t> refs;
  };
  std::vector<std::pair<uint32_t, std::string>> types_;
  std::vector<Obj> objs_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> fail_stop_{false};
  std::atomic<bool> origins_{false}, hostile_origins_{false};
  std::atomic<bool> endless_{false}, end_endless_{false}, stopped_by_sink_{false};
  std::atomic<uint64_t> endless_objects_{0};
  std::atomic<uint64_t> walk_objects_{0}, walk_refs_{0};
  std::atomic<uint64_t> forecast_objects_{0}, forecast_refs_{0};
  std::atomic<size_t> part_{0};
  std::atomic<bool> broken_parts_{false};
  // The origin of object i in origins mode: site index into kSites (-1 none) and frame.
  int SiteOf(size_t i) const;
  void WalkOrigins(agent::HeapInfoCallback& sink, size_t i, bool* abort) const;
  std::atomic<int> collections_{0};
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  uint64_t resumes_ = 0;
  mutable std::atomic<int64_t> samples_{0};
};

}  // namespace xrpm::testing
