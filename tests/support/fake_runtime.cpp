#include "fake_runtime.h"

#include <algorithm>
#include <chrono>
#include <random>

namespace xrpm::testing {

using agent::ContainerType;
using agent::RootRef;
using agent::WalkResult;

namespace {

// The origins mode's sites (runtime ids deliberately sparse and unordered).
struct SiteDef {
  uint32_t id;
  std::vector<std::string> methods;  // innermost first
};
const std::vector<SiteDef>& Sites() {
  static const std::vector<SiteDef> kSites = {
      {7, {"Game.Bubble.OnSpawn", "Game.Field.Spawn", "Game1.Update"}},
      {3, {"Game.Field.Spawn", "Game1.Update"}},
      {9, {}},  // allocated outside any managed frame
      {12, {"Bad\xff\xfeName", "Game1.Update"}},
      {5, {"System.String.Concat", "Game.Hud.Draw", "Game1.Draw"}},
  };
  return kSites;
}
constexpr uint64_t kCaptureFrame = 90000;
uint64_t FrameOf(size_t i) {
  return 1000 + i / 64;
}

WalkResult Describe(agent::HeapInfoCallback& sink, uint32_t id,
                    const std::vector<std::string>& methods, uint32_t depth) {
  std::vector<const char*> names;
  std::vector<size_t> lens;
  for (const auto& m : methods) {
    names.push_back(m.data());
    lens.push_back(m.size());
  }
  return sink.DescribeSite(id, names.data(), lens.data(), depth);
}

}  // namespace

int FakeRuntime::SiteOf(size_t i) const {
  if (!origins_ || i % 7 == 6) return -1;
  return static_cast<int>(i % Sites().size());
}

uint64_t FakeRuntime::expected_dropped_origins() const {
  return hostile_origins_ ? 3 : 0;  // the wrong object, the undefined site, the deep site
}

// The origin calls before object i's ObjectReferences (hostile extras at fixed objects).
void FakeRuntime::WalkOrigins(agent::HeapInfoCallback& sink, size_t i, bool* abort) const {
  if (!origins_) return;
  auto ok = [&](WalkResult r) { return !(*abort = r == WalkResult::kAbort); };
  if (hostile_origins_ && i == 100) {  // an origin that names another object
    ok(sink.ObjectOrigin(objs_[i].id + 4, FrameOf(i), Sites()[0].id));
    return;
  }
  if (hostile_origins_ && i == 101) {  // a site never described
    ok(sink.ObjectOrigin(objs_[i].id, FrameOf(i), 99));
    return;
  }
  if (hostile_origins_ && i == 102) {  // the too-deep site
    ok(sink.ObjectOrigin(objs_[i].id, FrameOf(i), 40));
    return;
  }
  const int site = SiteOf(i);
  if (site >= 0) ok(sink.ObjectOrigin(objs_[i].id, FrameOf(i), Sites()[site].id));
}

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
    if (origins_) {
      if (sink.AllocationClock(kCaptureFrame, 0) != WalkResult::kOk) return;
      if (hostile_origins_) {
        const std::vector<std::string> deep(33, "Game.Recurse");
        if (Describe(sink, 0, {"Game.Zero"}, 1) != WalkResult::kOk ||
            Describe(sink, 40, deep, 33) != WalkResult::kOk)
          return;
      }
      for (const SiteDef& d : Sites())
        if (Describe(sink, d.id, d.methods, static_cast<uint32_t>(d.methods.size())) !=
            WalkResult::kOk)
          return;
      if (hostile_origins_ && Describe(sink, 7, {"Game.Other"}, 1) != WalkResult::kOk) return;
    }
    bool abort = false;
    const size_t part = sink.TakesReferenceParts() ? part_.load() : 0;
    for (size_t i = 0; i < objs_.size(); ++i) {
      const Obj& o = objs_[i];
      WalkOrigins(sink, i, &abort);
      if (!abort && part != 0 && o.refs.size() > part) {
        for (size_t from = 0; from < o.refs.size() && !abort; from += part) {
          abort = sink.ObjectReferencesPart(
                      o.id, o.type, o.size, o.refs.size(), o.refs.data() + from, nullptr,
                      std::min(part, o.refs.size() - from)) == WalkResult::kAbort;
          if (broken_parts_) break;  // the next object follows this one's first part
        }
        if (!abort) continue;
      }
      if (abort || sink.ObjectReferences(o.id, o.type, o.size, o.refs.data(), o.refs.size()) ==
                       WalkResult::kAbort) {
        stopped_by_sink_ = true;
        return;
      }
    }
    // Endless: the same objects again under ids no real round reuses (bit 40 and up), each
    // round's references pointing into that round, until the sink stops the walk.
    std::vector<uint64_t> refs;
    for (uint64_t round = 1; endless_ && !end_endless_; ++round) {
      for (const Obj& o : objs_) {
        refs.assign(o.refs.begin(), o.refs.end());
        for (uint64_t& r : refs) r += round << 40;
        if (sink.ObjectReferences(o.id + (round << 40), o.type, o.size, refs.data(), refs.size()) ==
            WalkResult::kAbort) {
          stopped_by_sink_ = true;
          return;
        }
        endless_objects_.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  stopped_by_sink_ = false;
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
  if (origins_) {
    AllocationOrigins a;
    a.capture_frame = kCaptureFrame;
    a.methods = {"Game.Bubble.OnSpawn",  "Game.Field.Spawn", "Game1.Update", "Bad??Name",
                 "System.String.Concat", "Game.Hud.Draw",    "Game1.Draw"};
    a.sites = {{{0, 1, 2}}, {{1, 2}}, {{}}, {{3, 2}}, {{4, 5, 6}}};
    s.origins = std::move(a);
    for (size_t i = 0; i < objs_.size(); ++i) {
      const int site = SiteOf(i);
      const bool dropped = hostile_origins_ && i >= 100 && i <= 102;
      if (site < 0 || dropped)
        s.AddObjectOrigin(0, kUnknownSite);
      else
        s.AddObjectOrigin(static_cast<uint32_t>(FrameOf(i)), static_cast<uint32_t>(site));
    }
  }
  s.CloseSectionRanges();
  return s;
}

}  // namespace xrpm::testing
