// The Mono port's heap walk with allocation origins, in process: this test embeds the runtime
// (libmono-2.0) with the port's profiler callbacks installed (as the profiler module installs
// them), runs Origins.exe on a managed thread and walks its heap into a recording
// HeapInfoCallback through the port's own capture path (RunWithWorldStopped ->
// InduceFullCollection -> WalkHeap), so it checks exactly the walker-API calls the agent's
// sink receives, independently of the wire.
//
// Origins.exe 400 64 5 30: 400 Origins.Tracked objects (each with a 64-byte payload) made by
// Origins.Maker.MakeTracked inside the frame method when 5 frames have completed, then moved out
// of the nursery by GC.Collect(); 30 Origins.Early objects made by Origins.Program.MakeEarly
// before the first frame. The sample interval is 1 byte: every allocation is sampled.
//
// One runtime per process (Mono cannot be initialised twice), so the process ends with
// std::_Exit once the tests ran (the program's managed thread never returns).
#include <gtest/gtest.h>
#include <mono/jit/jit.h>
#include <mono/metadata/assembly.h>
#include <mono/metadata/mono-config.h>
#include <mono/metadata/threads.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "mono_port.h"
#include "profiler_callbacks.h"
#include "registry.h"

namespace xrpm::mono {
namespace {

constexpr int kTracked = 400;
constexpr int kEarly = 30;
constexpr uint64_t kMakeFrame = 5;

std::string ProgramPath() {
  return std::string(XRPM_MONO_PROGRAMS_DIR) + "/Origins.exe";
}

// Records a walk: types, objects, and the origin calls in order.
struct RecordingSink : agent::HeapInfoCallback {
  struct Origin {
    uint64_t frame;
    uint32_t site;
  };
  std::unordered_map<uint32_t, std::string> types;
  std::vector<std::pair<uint64_t, uint32_t>> objects;  // (object, type id)
  std::unordered_map<uint64_t, std::vector<uint64_t>> refs;
  std::unordered_map<uint64_t, Origin> origins;
  std::map<uint32_t, std::vector<std::string>> sites;
  int clocks = 0;
  uint64_t clock_frame = 0;
  uint32_t clock_sample_bytes = 0;
  std::vector<std::string> errors;  // protocol violations
  uint64_t pending_origin = 0;
  bool ended = false;

  agent::WalkResult BeginContainer(agent::ContainerType c, uint64_t, uint64_t) override {
    if (c == agent::ContainerType::kEnd) ended = true;
    return agent::WalkResult::kOk;
  }
  agent::WalkResult DescribeType(uint32_t id, const char* n, size_t len) override {
    types[id] = std::string(n, len);
    return agent::WalkResult::kOk;
  }
  agent::WalkResult RootReferences(const agent::RootRef*, size_t) override {
    return agent::WalkResult::kOk;
  }
  agent::WalkResult ObjectReferences(uint64_t object, uint32_t type, uint32_t, const uint64_t* r,
                                     size_t n) override {
    if (pending_origin && pending_origin != object)
      errors.push_back("ObjectOrigin not followed by its object's ObjectReferences");
    pending_origin = 0;
    objects.emplace_back(object, type);
    refs[object].assign(r, r + n);
    return agent::WalkResult::kOk;
  }
  agent::WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override {
    if (!origins.empty()) errors.push_back("AllocationClock after an ObjectOrigin");
    ++clocks;
    clock_frame = frame;
    clock_sample_bytes = sample_bytes;
    return agent::WalkResult::kOk;
  }
  agent::WalkResult DescribeSite(uint32_t id, const char* const* names, const size_t* lens,
                                 uint32_t depth) override {
    if (id == 0) errors.push_back("site id 0");
    if (sites.count(id)) errors.push_back("site " + std::to_string(id) + " described twice");
    auto& s = sites[id];
    for (uint32_t i = 0; i < depth; ++i) s.emplace_back(names[i], lens[i]);
    return agent::WalkResult::kOk;
  }
  agent::WalkResult ObjectOrigin(uint64_t object, uint64_t frame, uint32_t site) override {
    if (clocks != 1) errors.push_back("ObjectOrigin without one AllocationClock before it");
    if (!sites.count(site)) errors.push_back("ObjectOrigin names undescribed site");
    if (origins.count(object)) errors.push_back("two ObjectOrigin calls for one object");
    origins[object] = Origin{frame, site};
    pending_origin = object;
    return agent::WalkResult::kOk;
  }

  std::string TypeOf(uint64_t object) const {
    for (const auto& o : objects)
      if (o.first == object) return types.at(o.second);
    return "";
  }
};

struct Runtime {
  MonoPort* port = nullptr;
};

Runtime& StartRuntime() {
  static Runtime rt;
  if (rt.port) return rt;
  FrameMethod frame;
  std::string error;
  if (!ParseFrameMethod("Origins.Program:Tick", &frame, &error)) std::abort();
  rt.port = new MonoPort("Origins.exe", frame, &SetReporting, true, 1);
  rt.port->set_log([](const std::string&) {});
  InstallProfiler(rt.port, frame, true, nullptr);
  mono_config_parse(nullptr);
  static std::string path = ProgramPath();
  MonoDomain* domain = mono_jit_init_version("xrpm-walk-test", "v4.0.30319");
  MonoAssembly* assembly = mono_domain_assembly_open(domain, path.c_str());
  if (!assembly) {
    ADD_FAILURE() << "cannot open " << path;
    return rt;
  }
  std::thread([domain, assembly] {
    mono_thread_attach(domain);
    static std::string a0 = path, a1 = std::to_string(kTracked), a2 = "64",
                       a3 = std::to_string(kMakeFrame), a4 = std::to_string(kEarly);
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data()};
    mono_jit_exec(domain, assembly, 5, argv);
  }).detach();
  return rt;
}

struct WalkCtx {
  MonoPort* port;
  RecordingSink* sink;
};

void CaptureInto(void* p) {
  auto* c = static_cast<WalkCtx*>(p);
  c->port->InduceFullCollection();
  c->port->WalkHeap(*c->sink);
}

// Captures once the program has completed more than `after` frames (so a capture after the
// tracked objects were made passes kMakeFrame + 1, and a second capture passes the first one's
// frame, whether the world is stopped at a frame boundary or at a safe point), within 60 s.
bool Capture(MonoPort& port, RecordingSink* sink, uint64_t after) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (port.frames().completed() <= after) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // polling a counter, bounded
  }
  // From a thread Mono does not know, as the agent's are: this thread initialised the runtime,
  // so the collection would suspend it too.
  WalkCtx ctx{&port, sink};
  bool ok = false;
  std::thread([&] { ok = port.RunWithWorldStopped(&CaptureInto, &ctx, 30000); }).join();
  return ok && sink->ended;
}

void ExpectKnownOrigins(const RecordingSink& s) {
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  EXPECT_EQ(s.clocks, 1);
  EXPECT_EQ(s.clock_sample_bytes, 1u) << "the interval in force";
  EXPECT_GT(s.clock_frame, kMakeFrame) << "frames completed when the world stopped";
  size_t tracked = 0, payloads = 0, early = 0;
  for (const auto& [object, type] : s.objects) {
    const std::string& name = s.types.at(type);
    if (name != "Origins.Tracked" && name != "Origins.Early") continue;
    auto it = s.origins.find(object);
    ASSERT_NE(it, s.origins.end()) << name << " without an origin (every allocation is sampled)";
    const std::vector<std::string>& site = s.sites.at(it->second.site);
    ASSERT_GE(site.size(), 2u);
    if (name == "Origins.Tracked") {
      ++tracked;
      EXPECT_EQ(it->second.frame, kMakeFrame);
      EXPECT_EQ(site[0], "Origins.Maker.MakeTracked");
      EXPECT_EQ(site[1], "Origins.Program.Tick");
      for (uint64_t r : s.refs.at(object)) {  // the payload: same site, same frame
        if (s.TypeOf(r) != "System.Byte[]") continue;
        ++payloads;
        auto p = s.origins.find(r);
        ASSERT_NE(p, s.origins.end());
        EXPECT_EQ(p->second.frame, kMakeFrame);
        EXPECT_EQ(p->second.site, it->second.site);
      }
    } else {
      ++early;
      EXPECT_EQ(it->second.frame, 0u) << "made before the first frame";
      EXPECT_EQ(site[0], "Origins.Program.MakeEarly");
      EXPECT_EQ(site[1], "Origins.Program.Main");
    }
  }
  EXPECT_EQ(tracked, static_cast<size_t>(kTracked));
  EXPECT_EQ(payloads, static_cast<size_t>(kTracked));
  EXPECT_EQ(early, static_cast<size_t>(kEarly));
}

TEST(MonoWalk, SampledObjectsCarryTheirSiteAndFrameAcrossMoves) {
  Runtime& rt = StartRuntime();
  ASSERT_NE(rt.port, nullptr);
  RecordingSink first;
  ASSERT_TRUE(Capture(*rt.port, &first, kMakeFrame + 1)) << "no capture within the time limit";
  ExpectKnownOrigins(first);
  const OriginTracker::Stats st = rt.port->origin_stats();
  EXPECT_GT(st.moved, static_cast<uint64_t>(kTracked))
      << "GC.Collect() moved the tracked objects out of the nursery";
  EXPECT_GT(st.pruned, 0u) << "the garbage of every frame was pruned";
  EXPECT_EQ(first.origins.size(), first.objects.size()) << "every object was sampled";

  // Again: new addresses or not, the same origins, and the sites described again.
  RecordingSink second;
  ASSERT_TRUE(Capture(*rt.port, &second, first.clock_frame));
  ExpectKnownOrigins(second);
  EXPECT_GT(second.clock_frame, first.clock_frame);
}

// A class freed with an unloaded AppDomain's image can leave its address to a new class: a load
// event for a known address with another name gets a type of its own, and the address is
// reported once as replaced (FieldLayouts drops what it cached under it). The same class
// reported again (its load seen after the walk met it) keeps its type. No runtime needed.
TEST(MonoRegistry, AClassAtAFreedClassesAddressGetsATypeOfItsOwn) {
  EventLog log;
  Registry reg;
  constexpr uintptr_t kAddress = 0x7000, kLate = 0x8000;
  log.Push(EventKind::kClassLoaded, kAddress, 0, 0, 0, "Plugin.Old");
  reg.Drain(log);
  uint32_t old_id = 0, walked = 0;
  {
    std::lock_guard<std::mutex> lock(reg.mutex());
    old_id = reg.TypeId(kAddress);
    ASSERT_NE(old_id, 0u);
    EXPECT_TRUE(reg.TakeReplaced().empty());
    walked = reg.AddClass(kLate, "Late.Seen");  // met by a walk before its load event
  }
  log.Push(EventKind::kClassLoaded, kLate, 0, 0, 0, "Late.Seen");
  log.Push(EventKind::kClassLoaded, kAddress, 0, 0, 0, "Plugin.New");
  reg.Drain(log);
  std::lock_guard<std::mutex> lock(reg.mutex());
  EXPECT_EQ(reg.TypeId(kLate), walked);
  const uint32_t new_id = reg.TypeId(kAddress);
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(reg.names().at(new_id - 1), "Plugin.New");
  EXPECT_EQ(reg.names().at(old_id - 1), "Plugin.Old");
  EXPECT_EQ(reg.TakeReplaced(), (std::vector<uintptr_t>{kAddress}));
  EXPECT_TRUE(reg.TakeReplaced().empty());
}

// The program's managed thread never returns and Mono cannot shut down under it: end here.
class ExitAfterTests : public ::testing::Environment {
 public:
  void TearDown() override {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(::testing::UnitTest::GetInstance()->Passed() ? 0 : 1);
  }
};
const auto* const kExit = ::testing::AddGlobalTestEnvironment(new ExitAfterTests);

}  // namespace
}  // namespace xrpm::mono
