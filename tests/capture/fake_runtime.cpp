#include "fake_runtime.h"

#include <chrono>
#include <random>

namespace xrpm::testing {

using agent::ContainerType;
using agent::RootRef;
using agent::WalkResult;

FakeRuntime::FakeRuntime(size_t objects, size_t big_refs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (uint32_t t = 1; t <= 12; ++t)
    types_.push_back({t, t == 1   ? "System.String"
                         : t == 2 ? "System.Object[]"
                                  : "Game.Bubble" + std::to_string(t)});
  uint64_t addr = 0x40001000;
  for (size_t i = 0; i < objects; ++i) {
    const uint32_t size = 12 + 4 * static_cast<uint32_t>(rng() % 20);
    objs_.push_back({addr, 1 + static_cast<uint32_t>(rng() % 12), size, {}});
    addr += size;
  }
  for (size_t i = 0; i < objects; ++i) {
    const size_t n = (big_refs && i == objects / 3) ? big_refs : rng() % 5;
    for (size_t k = 0; k < n; ++k) objs_[i].refs.push_back(objs_[rng() % objects].id);
  }
}

agent::RuntimeInfo FakeRuntime::Info() const {
  return {"fake runtime", "1.0", "fake.exe", "test", 4, true, 2, 1};
}

agent::CounterInfo FakeRuntime::DescribeCounter(size_t i) const {
  static const agent::CounterInfo kInfo[] = {
      {"Garbage Collector", "Managed Objects Allocated", "count"},
      {"Garbage Collector", "Managed Bytes In Use After GC", "bytes"},
      {"Loader", "Classes Loaded", "count"}};
  return kInfo[i];
}

size_t FakeRuntime::SampleCounters(agent::CounterValue* out, size_t count) const {
  const int64_t k = ++samples_;
  const agent::CounterValue v[3] = {{100 * k, 100, static_cast<uint64_t>(k), 100.0, 100, 100},
                                    {4096, 4096, 1, 4096.0, 4096, 4096},
                                    {12, 12, 1, 12.0, 12, 12}};
  const size_t n = count < 3 ? count : 3;
  for (size_t i = 0; i < n; ++i) out[i] = v[i];
  return n;
}

bool FakeRuntime::RunWithWorldStopped(void (*fn)(void*), void* ctx, uint32_t) {
  if (fail_stop_) return false;
  stopped_ = true;
  fn(ctx);
  stopped_ = false;
  {
    std::lock_guard lock(mu_);
    ++resumes_;
  }
  cv_.notify_all();
  return true;
}

uint64_t FakeRuntime::resumes() const {
  std::lock_guard lock(mu_);
  return resumes_;
}

bool FakeRuntime::WaitResumed(uint64_t count, uint32_t timeout_ms) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return resumes_ >= count; });
}

void FakeRuntime::WalkHeap(agent::HeapInfoCallback& sink) {
  auto walk = [&]() {
    if (sink.BeginContainer(ContainerType::kBegin, 0, 0) != WalkResult::kOk) return;
    for (const auto& [id, name] : types_)
      if (sink.DescribeType(id, name.data(), name.size()) != WalkResult::kOk) return;
    const size_t n = objs_.size();
    auto obj = [&](size_t i) { return objs_[i % n].id; };
    struct C {
      ContainerType type;
      uint64_t id1, id2;
      std::vector<RootRef> roots;
    };
    const std::vector<C> containers = {
        {ContainerType::kInternalVm, 0, 0, {{obj(0), 0}}},
        {ContainerType::kThread, 1, 0, {}},
        {ContainerType::kJitFrame, 0x10, 0x6001, {{obj(1), 0}, {obj(2), 1}}},
        {ContainerType::kInterpretedFrame, 0x11, 0x6002, {{obj(3), 4}}},
        {ContainerType::kThread, 2, 0, {}},
        {ContainerType::kJitFrame, 0x20, 0x6003, {{obj(4), 0}}},
        {ContainerType::kClass, 3, 0, {{obj(5), 0}, {obj(6), 0}}},
        {ContainerType::kStrongPtr, 1, 0, {{obj(7), 0}, {obj(8), 1}, {obj(9), 2}}},
        {ContainerType::kFinalized, 0, 0, {{obj(10), 0}}},
        {ContainerType::kRootTable, 0, 0, {{obj(11), 0}}},
        {ContainerType::kJitFrame, 0x10, 0x6001, {{obj(12), 0}}},  // the same frame again
    };
    for (const C& c : containers) {
      if (sink.BeginContainer(c.type, c.id1, c.id2) != WalkResult::kOk) return;
      if (!c.roots.empty() &&
          sink.RootReferences(c.roots.data(), c.roots.size()) != WalkResult::kOk)
        return;
    }
    if (sink.BeginContainer(ContainerType::kHeap, 0, 0) != WalkResult::kOk) return;
    for (const Obj& o : objs_)
      if (sink.ObjectReferences(o.id, o.type, o.size, o.refs.data(), o.refs.size()) ==
          WalkResult::kAbort)
        return;
  };
  walk();
  sink.BeginContainer(ContainerType::kEnd, 0, 0);  // always, even after an abort
}

Snapshot FakeRuntime::Expected() const {
  Snapshot s;
  AppDomainSection sec;
  sec.version = 2;
  sec.name = "fake.exe";
  sec.start_ms = BootMillis();
  sec.end_ms = BootMillis();
  s.AddSection(sec);
  for (const auto& [id, name] : types_) s.AddType(id, name, 0);
  const size_t n = objs_.size();
  auto obj = [&](size_t i) { return objs_[i % n].id; };
  const struct {
    size_t i;
    RootKind kind;
    uint8_t flags;
    TypeId container;
  } roots[] = {{0, RootKind::kInternal, 0, 0},   {1, RootKind::kLocal, 0, 0},
               {2, RootKind::kLocal, 1, 0},      {3, RootKind::kLocal, 4, 0},
               {4, RootKind::kLocal, 0, 0},      {5, RootKind::kStatic, 0, 3},
               {6, RootKind::kStatic, 0, 3},     {7, RootKind::kHandle, 0, 0},
               {8, RootKind::kHandle, 1, 0},     {9, RootKind::kHandle, 2, 0},
               {10, RootKind::kFinalizer, 0, 0}, {11, RootKind::kGcSpecific, 0, 0},
               {12, RootKind::kLocal, 0, 0}};
  for (const auto& r : roots) s.AddRoot(obj(r.i), r.kind, r.flags, r.container);
  for (const Obj& o : objs_) s.AddObject(o.id, o.type - 1, o.size, o.refs);
  s.CloseSectionRanges();
  return s;
}

}  // namespace xrpm::testing
