// Captures of the real emulated runtime over 127.0.0.1 against its ground truth.
//
// Deterministic comparison: the runtime runs its scenario for a fixed number of frames on the
// test thread (no game thread), so nothing mutates the heap between the capture and the ground
// truth. The capture induces a compacting collection; the ground-truth dump induces another,
// which finds nothing to free or move, so both walk the same heap. Two ground truths:
//   - the emulator's SnapshotBuilderSink under the agent's walk order (every object postponed:
//     a flat list in address order, as NETCF's own dumps list objects): equal record for
//     record, in order;
//   - DumpToSnapshot, exactly what `xrpm-emulator --dump` writes (its sink lets the walk go
//     depth-first, so objects come in another order): equal after ordering object records by
//     address.
// The section timestamps are the device clock at each walk and differ by the time between the
// two walks; the ground truth's are copied into the capture before comparing.
//
// Allocation origins: the emulator records every object's allocation frame and site; the
// capture (agent -> optional HeapBatch fields -> CaptureAssembler) must carry exactly the
// ground truth's origins (same sites, methods, indices and per-object columns), also for a
// capture taken after compactions moved the surviving objects.
//
// Gameplay: captures while the game thread runs at 60 fps must verify (checksum), be closed
// (every reference and root names a captured object) and leave the game running.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "raw_peer.h"
#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/emulator/snapshot_builder_sink.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using client::CaptureResult;
using client::HostClient;
using emulator::GameLoop;
using emulator::LoopConfig;
using emulator::Runtime;
using emulator::RuntimeConfig;
using emulator::ScenarioParams;

RuntimeConfig SmallHeap(bool snapshot_walks = false) {
  RuntimeConfig c;
  c.heap_reserve_bytes = 512u << 20;
  c.snapshot_walks = snapshot_walks;
  return c;
}

struct Device {
  Runtime rt;
  std::unique_ptr<emulator::Scenario> scenario;
  GameLoop loop;
  Device(ScenarioParams p, LoopConfig lc, bool snapshot_walks = false)
      : rt(SmallHeap(snapshot_walks)),
        scenario(emulator::MakeScenario(p)),
        loop(rt, *scenario, lc) {
    loop.Setup();
  }
};

// The emulator's sink, walked the way the agent walks (flat, address order).
class FlatWalk : public agent::HeapInfoCallback {
 public:
  explicit FlatWalk(agent::HeapInfoCallback& inner) : inner_(inner) {}
  virtual void BeforeObject() {}  // a test's hook, called before each object is passed on
  agent::WalkResult BeginContainer(agent::ContainerType t, uint64_t a, uint64_t b) override {
    return inner_.BeginContainer(t, a, b);
  }
  agent::WalkResult DescribeType(uint32_t id, const char* n, size_t len) override {
    return inner_.DescribeType(id, n, len);
  }
  agent::WalkResult RootReferences(const agent::RootRef* r, size_t n) override {
    return inner_.RootReferences(r, n);
  }
  agent::WalkResult ObjectReferences(uint64_t o, uint32_t t, uint32_t s, const uint64_t* r,
                                     size_t n) override {
    BeforeObject();
    const auto res = inner_.ObjectReferences(o, t, s, r, n);
    return res == agent::WalkResult::kOk ? agent::WalkResult::kPostponeReferences : res;
  }
  agent::WalkResult AllocationClock(uint64_t frame, uint32_t sample_bytes) override {
    return inner_.AllocationClock(frame, sample_bytes);
  }
  agent::WalkResult DescribeSite(uint32_t site, const char* const* names, const size_t* lens,
                                 uint32_t depth) override {
    return inner_.DescribeSite(site, names, lens, depth);
  }
  agent::WalkResult ObjectOrigin(uint64_t o, uint64_t frame, uint32_t site) override {
    return inner_.ObjectOrigin(o, frame, site);
  }

 private:
  agent::HeapInfoCallback& inner_;
};

Snapshot FlatGroundTruth(Runtime& rt) {
  Snapshot snap;
  emulator::RuntimeNamer namer(rt);
  emulator::SnapshotBuilderSink sink(
      snap, {rt.Info().app_name, rt.Info().dump_version, [&rt] { return rt.BootMillis(); }},
      &namer);
  FlatWalk flat(sink);
  struct Ctx {
    Runtime* rt;
    FlatWalk* sink;
  } ctx{&rt, &flat};
  EXPECT_TRUE(rt.RunWithWorldStopped(
      [](void* p) {
        auto* c = static_cast<Ctx*>(p);
        c->rt->InduceFullCollection();
        c->rt->WalkPaused(*c->sink);  // in the pause whatever the runtime's captures do
      },
      &ctx, 10000));
  return snap;
}

// Object records of each section ordered by address; every other line keeps its place.
std::string ObjectsByAddress(const std::string& gclog) {
  std::istringstream in(gclog);
  std::string line, out;
  std::vector<std::pair<uint64_t, std::string>> objs;
  auto flush = [&] {
    std::sort(objs.begin(), objs.end());
    for (auto& [id, l] : objs) out += l + "\n";
    objs.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("o ", 0) == 0) {
      objs.emplace_back(std::stoull(line.substr(2, line.find(' ', 2) - 2), nullptr, 16), line);
      continue;
    }
    flush();
    out += line + "\n";
  }
  flush();
  return out;
}

void CopyClock(const Snapshot& from, Snapshot* to) {
  ASSERT_EQ(from.sections.size(), to->sections.size());
  for (size_t i = 0; i < from.sections.size(); ++i) {
    to->sections[i].start_ms = from.sections[i].start_ms;
    to->sections[i].end_ms = from.sections[i].end_ms;
  }
}

// Every reference and root names a captured object; every type was described.
void ExpectClosed(const Snapshot& s) {
  std::vector<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  std::sort(ids.begin(), ids.end());
  ASSERT_TRUE(std::adjacent_find(ids.begin(), ids.end()) == ids.end()) << "object ids are unique";
  auto known = [&](ObjectId r) { return std::binary_search(ids.begin(), ids.end(), r); };
  size_t dangling = 0;
  for (ObjectId r : s.refs) dangling += !known(r);
  for (ObjectId r : s.root_object) dangling += !known(r);
  EXPECT_EQ(dangling, 0u) << "references or roots to objects not in the capture";
  for (const TypeInfo& t : s.types) ASSERT_FALSE(t.placeholder) << t.id;
  ASSERT_EQ(s.root_origin.size(), s.root_count());
  for (uint32_t o : s.root_origin) ASSERT_LT(o, s.root_origins.size());
}

// The capture's origins equal the ground truth's: tables, and every object's frame and site.
void ExpectSameOrigins(const Snapshot& got, const Snapshot& want) {
  ASSERT_TRUE(want.has_origins()) << "the emulator records origins";
  ASSERT_TRUE(got.has_origins()) << "the capture carries them";
  EXPECT_EQ(got.origins->capture_frame, want.origins->capture_frame);
  EXPECT_EQ(got.origins->sample_bytes, 0u);
  EXPECT_EQ(got.origins->methods, want.origins->methods);
  EXPECT_TRUE(got.origins->sites == want.origins->sites)
      << got.origins->sites.size() << " sites vs " << want.origins->sites.size();
  ASSERT_EQ(got.object_alloc_site.size(), want.object_alloc_site.size());
  ASSERT_EQ(got.object_alloc_frame.size(), want.object_alloc_frame.size());
  for (size_t i = 0; i < want.object_alloc_site.size(); ++i) {
    ASSERT_EQ(got.object_alloc_site[i], want.object_alloc_site[i]) << "object " << i;
    ASSERT_EQ(got.object_alloc_frame[i], want.object_alloc_frame[i]) << "object " << i;
  }
}

client::ClientOptions Opts(const agent::Agent& a) {
  client::ClientOptions o;
  o.endpoint = Endpoint(a);
  return o;
}

// Starts an agent on the device and its game thread (60 fps); nullptr if the agent fails.
std::unique_ptr<agent::Agent> StartPlaying(Device& d, LogSink& log, agent::AgentOptions opt = {}) {
  auto agent = StartAgent(d.rt, log, std::move(opt));
  if (agent) d.loop.Start();
  return agent;
}

// A device whose game has played its `lc.max_frames` frames (the world then still), served by
// an agent, and a host client for it; Connect() waits for the handshake.
struct ServedDevice {
  Device d;
  LogSink log;
  std::unique_ptr<agent::Agent> agent;
  std::unique_ptr<HostClient> client;
  ServedDevice(ScenarioParams p, LoopConfig lc, agent::AgentOptions opt = {}) : d(p, lc) {
    d.loop.RunHere();
    agent = StartAgent(d.rt, log, std::move(opt));
    if (agent) client = std::make_unique<HostClient>(Opts(*agent));
  }
  bool Connect() { return client && Connected(*client); }
};

// Polls (bounded) until the game has played `frames` frames.
bool WaitForFrames(const GameLoop& loop, uint64_t frames, uint32_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (loop.frames() < frames) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

struct Case {
  const char* name;
  ScenarioParams params;
  uint64_t frames;
};

class GroundTruth : public ::testing::TestWithParam<Case> {};

TEST_P(GroundTruth, CaptureEqualsTheDumpRecordForRecord) {
  const Case& c = GetParam();
  ServedDevice served(c.params, LoopConfig{0, c.frames});
  ASSERT_EQ(served.d.loop.frames(), c.frames);
  ASSERT_TRUE(served.Connect());
  Device& d = served.d;
  HostClient& client = *served.client;
  CaptureResult r = CaptureOnce(client);
  ASSERT_TRUE(r.ok) << r.error;
  Snapshot captured = *r.snapshot;
  ExpectClosed(captured);

  const Snapshot flat = FlatGroundTruth(d.rt);
  const Snapshot dump = emulator::DumpToSnapshot(d.rt);
  ASSERT_GT(flat.object_count(), 0u);
  CopyClock(flat, &captured);
  const std::string text = GclogText(captured);
  EXPECT_EQ(FirstDifference(text, GclogText(flat)), "") << "record for record, in order";
  CopyClock(dump, &captured);
  EXPECT_EQ(
      FirstDifference(ObjectsByAddress(GclogText(captured)), ObjectsByAddress(GclogText(dump))),
      "");
  EXPECT_EQ(r.stats.objects, dump.object_count());
  EXPECT_EQ(r.stats.refs, dump.ref_count());
  EXPECT_EQ(r.stats.roots, dump.root_count());
  ExpectSameOrigins(captured, flat);
  EXPECT_EQ(r.stats.origins_dropped, 0u);
  EXPECT_EQ(captured.origins->capture_frame, c.frames);

  // The capture names where roots come from, as the emulator's own dump does.
  size_t frame_roots = 0;
  for (size_t i = 0; i < captured.root_count(); ++i)
    if (captured.root_kind_of(i) == RootKind::kLocal) {
      ++frame_roots;
      EXPECT_EQ(captured.root_origins[captured.root_origin[i]].rfind("thread ", 0), 0u);
    }
  if (std::string(c.name) != "synthetic") {
    EXPECT_GT(frame_roots, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, GroundTruth,
                         ::testing::Values(Case{"bubbles", {"bubbles", 1}, 600},
                                           Case{"leak", {"leak", 1}, 900},
                                           Case{"synthetic", {"synthetic", 7, 30000, 3, 64}, 3}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name);
                         });

// A capture saved as .xrpm and read back is the captured Snapshot in every field, including
// what a .gclog cannot hold: root origins and the capture's metadata (device, cost, time).
TEST(XrpmFile, CaptureToXrpmAndBackIsEqualInEveryField) {
  ServedDevice served({"bubbles", 1}, LoopConfig{0, 600});
  ASSERT_TRUE(served.Connect());
  HostClient& client = *served.client;
  const CaptureResult r = CaptureOnce(client);
  ASSERT_TRUE(r.ok) << r.error;
  const Snapshot& captured = *r.snapshot;
  ASSERT_TRUE(captured.capture.has_value());
  const CaptureInfo& c = *captured.capture;
  const client::DeviceInfo dev = client.device();
  EXPECT_EQ(c.device, dev);
  EXPECT_FALSE(c.device.app_name.empty());
  EXPECT_EQ(c.capture_id, r.stats.capture_id);
  EXPECT_EQ(c.wire_bytes, r.stats.wire_bytes);
  EXPECT_EQ(c.pause_us, r.stats.pause_us);
  EXPECT_EQ(c.walk_us, r.stats.walk_us);
  EXPECT_EQ(c.agent_peak_bytes, r.stats.agent_peak_bytes);
  EXPECT_GT(c.wire_bytes, 0u);
  EXPECT_GT(c.captured_at_unix_ms, 1'600'000'000'000);  // after 2020
  ASSERT_FALSE(captured.root_origins.empty());

  char tmpl[] = "/tmp/xrpm-capture-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/capture.xrpm";
  formats::SaveSnapshot(captured, path);  // .xrpm by extension
  Diagnostics diags;
  const Snapshot back = formats::LoadSnapshot(path, diags);
  EXPECT_TRUE(diags.empty());
  EXPECT_TRUE(back == captured);
  ASSERT_TRUE(back.capture.has_value());
  EXPECT_EQ(*back.capture, c);
  EXPECT_EQ(back.root_origins, captured.root_origins);
  EXPECT_EQ(back.root_origin, captured.root_origin);
  // A .gclog of the same capture keeps the records and drops what only .xrpm holds.
  formats::SaveSnapshot(captured, std::string(tmpl) + "/capture.gclog");
  const Snapshot gclog = formats::LoadSnapshot(std::string(tmpl) + "/capture.gclog", diags);
  EXPECT_FALSE(gclog.capture.has_value());
  EXPECT_TRUE(gclog.root_origins.empty());
  EXPECT_EQ(gclog.object_id, captured.object_id);
  std::remove(path.c_str());
  std::remove((std::string(tmpl) + "/capture.gclog").c_str());
  rmdir(tmpl);
}

// The leak scenario captured twice, 600 frames apart (the game frees bubbles every frame and
// every capture induces a compacting collection, so survivors move between the captures): each
// capture equals its ground truth including origins, and an object allocated before the first
// capture and still alive at the second keeps its frame and site although its address changed.
TEST(Origins, LeakOriginsSurviveCompactionAcrossCaptures) {
  ServedDevice served({"leak", 1}, LoopConfig{0, 600});
  ASSERT_TRUE(served.Connect());
  Device& d = served.d;
  HostClient& client = *served.client;
  const CaptureResult first = CaptureOnce(client);
  ASSERT_TRUE(first.ok) << first.error;
  ExpectSameOrigins(*first.snapshot, FlatGroundTruth(d.rt));

  GameLoop more(d.rt, *d.scenario, LoopConfig{0, 600});
  more.RunHere();
  const CaptureResult second = CaptureOnce(client);
  ASSERT_TRUE(second.ok) << second.error;
  ExpectSameOrigins(*second.snapshot, FlatGroundTruth(d.rt));
  const Snapshot& a = *first.snapshot;
  const Snapshot& b = *second.snapshot;
  EXPECT_EQ(b.origins->capture_frame, a.origins->capture_frame + 600);

  // Key = (type name, site methods, frame): for objects of b allocated before a was taken, every
  // key of b is in a at least as often (they were alive then), and some of them moved.
  using Key = std::tuple<std::string, std::vector<std::string>, uint32_t>;
  auto key = [](const Snapshot& s, size_t i) {
    std::vector<std::string> methods;
    for (uint32_t m : s.origins->sites[s.object_alloc_site[i]].methods)
      methods.push_back(s.origins->methods[m]);
    return Key{s.type_name_of(i), methods, s.object_alloc_frame[i]};
  };
  std::map<Key, std::vector<ObjectId>> in_a;
  for (size_t i = 0; i < a.object_count(); ++i)
    if (a.origin_known(i)) in_a[key(a, i)].push_back(a.object_id[i]);
  size_t survivors = 0, moved = 0, unmatched = 0;
  std::map<Key, std::vector<ObjectId>> in_b;
  for (size_t i = 0; i < b.object_count(); ++i) {
    ASSERT_TRUE(b.origin_known(i)) << "the emulator knows every object's origin";
    if (b.object_alloc_frame[i] >= a.origins->capture_frame) continue;  // allocated later
    in_b[key(b, i)].push_back(b.object_id[i]);
    ++survivors;
  }
  for (auto& [k, ids] : in_b) {
    auto it = in_a.find(k);
    if (it == in_a.end() || it->second.size() < ids.size()) {
      ++unmatched;
      continue;
    }
    if (ids.size() == 1 && it->second.size() == 1 && ids[0] != it->second[0]) ++moved;
  }
  EXPECT_EQ(unmatched, 0u) << "an object older than capture A that A did not have";
  EXPECT_GT(survivors, 100u);
  EXPECT_GT(moved, 0u) << "compaction moved survivors with a unique origin";
}

// A host asks for the next capture the moment the previous one verified; the agent's capture
// thread may still be returning from it, which must not make the agent answer "busy".
TEST(Consecutive, BackToBackCapturesAreNeverRefusedAsBusy) {
  ServedDevice served({"synthetic", 5, 20000, 3, 16}, LoopConfig{0, 1});
  ASSERT_TRUE(served.Connect());
  uint64_t objects = 0;
  for (int i = 0; i < 12; ++i) {
    CaptureResult r = CaptureOnce(*served.client);
    ASSERT_TRUE(r.ok) << "capture " << i << ": " << r.error;
    if (i == 0) objects = r.stats.objects;
    EXPECT_EQ(r.stats.objects, objects) << "the same heap each time";
  }
  ASSERT_FALSE(served.log.WaitFor("capture 12 done", 30000).empty()) << served.log.All();
  EXPECT_EQ(served.agent->stats().captures_completed, 12u);
}

// Buffered mode holds batches while the world is stopped; a capture larger than half the
// memory limit must still complete (the agent starts sending instead of letting the walk wait on
// a queue nobody drains) and stay within the limit.
TEST(Consecutive, BufferedCaptureLargerThanTheHoldLimitCompletesWithinTheBound) {
  agent::AgentOptions opt;
  opt.capture_memory_limit = 8u << 20;  // the smallest buffered (non-streaming) limit
  ServedDevice served({"synthetic", 9, 1200000, 3, 64}, LoopConfig{0, 1}, opt);
  ASSERT_TRUE(served.Connect());
  CaptureResult r = CaptureOnce(*served.client);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GE(r.stats.objects, 1200000u);
  EXPECT_GT(r.stats.wire_bytes, 8u << 20) << "more than the agent may hold";
  EXPECT_LE(r.stats.agent_peak_bytes, 8u << 20);
}

TEST(Gameplay, CapturesWhileTheGameRunsVerifyAndCountersArrive) {
  Device d({"bubbles", 3}, LoopConfig{60, 0});
  LogSink log;
  auto agent = StartPlaying(d, log);
  ASSERT_TRUE(agent);
  HostClient client(Opts(*agent));
  ASSERT_TRUE(Connected(client));
  client.SubscribeCounters(50);
  ASSERT_TRUE(client.WaitCounterSamples(3, 20000));

  // Counters arrive under the runtime's names, in its order.
  const auto desc = client.counters().descriptors();
  ASSERT_EQ(desc.size(), d.rt.CounterCount());
  for (size_t i = 0; i < desc.size(); ++i) {
    const agent::CounterInfo ci = d.rt.DescribeCounter(i);
    EXPECT_EQ(desc[i].category, ci.category);
    EXPECT_EQ(desc[i].name, ci.name);
    EXPECT_EQ(desc[i].unit, ci.unit);
  }
  EXPECT_GE(client.counters().Find("Managed Bytes Allocated"), 0);
  EXPECT_GE(client.counters().Find("Garbage Collections (GC)"), 0);

  uint64_t frames_before = d.loop.frames();
  uint64_t samples = client.counters().received();
  for (int i = 0; i < 3; ++i) {
    CaptureResult r = CaptureOnce(client);
    ASSERT_TRUE(r.ok) << r.error;
    ExpectClosed(*r.snapshot);
    EXPECT_GT(r.stats.objects, 50u);
    EXPECT_GT(r.stats.pause_us, 0u);
    // Let the game play a little between captures (counter samples mark the time passing).
    samples += 3;
    ASSERT_TRUE(client.WaitCounterSamples(samples, 20000));
  }
  // The game keeps running (bounded wait: a starved game thread may not have played a frame
  // yet), and a sample taken after that frame shows its allocations.
  EXPECT_TRUE(WaitForFrames(d.loop, frames_before + 1, 20000)) << "the game kept running";
  ASSERT_TRUE(client.WaitCounterSamples(client.counters().received() + 1, 20000));
  const auto rows = client.counters().Since(0);
  const int allocated = client.counters().Find("Managed Bytes Allocated");
  EXPECT_GT(rows.back().values[allocated].total, rows.front().values[allocated].total);
  d.loop.RequestStop();
  d.loop.Join();
  EXPECT_TRUE(d.loop.error().empty()) << d.loop.error();
}

// Misbehaving peers against the real emulator while its game runs: each gets a clear fatal
// error and is dropped; the game keeps its frames coming; then a host takes control, a second
// one is refused, and the first captures.
TEST(Gameplay, BadPeersAreRefusedWhileTheGameCarriesOn) {
  Device d({"bubbles", 4}, LoopConfig{60, 0});
  LogSink log;
  auto agent = StartPlaying(d, log);
  ASSERT_TRUE(agent);

  struct Bad {
    const char* name;
    uint32_t version;   // 0: the right one
    std::string bytes;  // sent instead of a Hello (unless empty)
    wire::ErrorCode code;
  };
  const Bad cases[] = {
      {"version mismatch", 99, "", wire::VERSION_MISMATCH},
      {"garbage", 0, std::string("\xff\xff\xff\xff", 4), wire::MALFORMED},
      {"oversized", 0, std::string(protocol::kMaxHostMessageBytes + 1, '\0'), wire::TOO_LARGE},
      {"second host", 0, "", wire::BUSY},  // runs with `client` in control
  };
  std::unique_ptr<HostClient> client;
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.name);
    if (c.code == wire::BUSY) {
      client = std::make_unique<HostClient>(Opts(*agent));
      ASSERT_TRUE(Connected(*client));
    }
    const uint64_t frames = d.loop.frames();
    auto p = RawPeer::Connect(agent->port());
    ASSERT_TRUE(p);
    wire::Envelope reply;
    if (!c.bytes.empty()) {
      ASSERT_TRUE(p->SendBytes(c.bytes));
      ASSERT_TRUE(p->ReceiveBody(wire::Envelope::kError, &reply));
    } else {
      EXPECT_FALSE(Handshake(*p, &reply, c.version));
      ASSERT_TRUE(reply.has_error());
    }
    EXPECT_EQ(reply.error().code(), c.code) << reply.error().message();
    EXPECT_TRUE(reply.error().fatal());
    EXPECT_FALSE(reply.error().message().empty());
    EXPECT_TRUE(p->WaitDisconnect(20000));
    EXPECT_TRUE(WaitForFrames(d.loop, frames + 3, 20000)) << "the game kept running";
  }
  ASSERT_TRUE(client);
  EXPECT_EQ(client->state(), client::ConnectionState::kConnected);
  CaptureResult r = CaptureOnce(*client);
  ASSERT_TRUE(r.ok) << r.error;
  ExpectClosed(*r.snapshot);
  d.loop.RequestStop();
  d.loop.Join();
  EXPECT_TRUE(d.loop.error().empty()) << d.loop.error();
}

// A streaming agent (the walk, or a snapshot's replay, waits for its host) on a 300,000-object
// synthetic game at 60 fps: a raw host starts a capture and vanishes; once the agent says the
// capture stopped, `vanished` checks the aftermath; then a real host captures, and `captured`
// checks that capture.
void HostVanishesMidCapture(bool snapshot_walks,
                            const std::function<void(Device&, agent::Agent&)>& vanished,
                            const std::function<void(Device&, const CaptureResult&)>& captured) {
  Device d({"synthetic", 1, 300000, 3, 64}, LoopConfig{60, 0}, snapshot_walks);
  LogSink log;
  agent::AgentOptions opt;
  opt.capture_memory_limit = 1 << 20;
  auto agent = StartPlaying(d, log, opt);
  ASSERT_TRUE(agent);
  auto p = RawPeer::Connect(agent->port());
  ASSERT_TRUE(p);
  ASSERT_TRUE(StartRawCapture(*p));
  p->DisconnectNow();
  ASSERT_FALSE(log.WaitFor("stopped during the walk", 30000).empty()) << log.All();
  vanished(d, *agent);

  HostClient client(Opts(*agent));
  ASSERT_TRUE(Connected(client));
  CaptureResult r = CaptureOnce(client);
  ASSERT_TRUE(r.ok) << r.error;
  ExpectClosed(*r.snapshot);
  EXPECT_GE(r.stats.objects, 300000u);
  captured(d, r);
  d.loop.RequestStop();
  d.loop.Join();
  EXPECT_TRUE(d.loop.error().empty()) << d.loop.error();
}

TEST(Gameplay, HostVanishingMidCaptureResumesTheGameAndTheNextCaptureWorks) {
  uint64_t frames_at_resume = 0;
  HostVanishesMidCapture(
      false,
      [&](Device& d, agent::Agent& agent) {
        const agent::AgentStats st = agent.stats();
        // Resumed by the cancel, not by the stop-world timeout (5 s); the 100 ms target is a
        // bench figure (bench/capture/cancel_resume_bench), not a test assertion.
        EXPECT_TRUE(st.last_cancelled_during_walk);
        EXPECT_LT(st.last_cancel_to_resume_us, 3000000u) << "resumed by the cancel";
        frames_at_resume = d.loop.frames();
      },
      [&](Device& d, const CaptureResult& r) {
        EXPECT_LE(r.stats.agent_peak_bytes, 2u << 20)
            << "streaming mode stays near its 1 MiB bound";
        EXPECT_TRUE(WaitForFrames(d.loop, frames_at_resume + 1, 20000)) << "the game runs on";
      });
}

// A host vanishing while a snapshot's walk is replayed (the game already running): the child is
// killed and reaped, and the next capture walks in a snapshot again.
TEST(SnapshotWalk, HostVanishingMidReplayReapsTheChildAndTheNextCaptureWorks) {
  HostVanishesMidCapture(
      true,
      [](Device&, agent::Agent&) {
        int status = 0;
        EXPECT_EQ(waitpid(-1, &status, WNOHANG | __WALL), -1) << "a child left behind";
        EXPECT_EQ(errno, ECHILD);
      },
      [](Device&, const CaptureResult& r) {
        EXPECT_GT(r.stats.walk_after_pause_us, 0u) << "walked in a snapshot again";
      });
}

// A capture walked in a copy-on-write child of the emulator (RuntimeConfig::snapshot_walks) and
// replayed once the game resumed: the same snapshot, values and origins included, as the same
// game captured with the walk in the pause, and the paused walk's records one for one.
TEST(SnapshotWalk, ACaptureWalkedInAChildIsThePausedCapture) {
  for (const char* scenario : {"bubbles", "leak"}) {
    SCOPED_TRACE(scenario);
    std::optional<Snapshot> got[2];
    for (const bool snapshot_walks : {false, true}) {
      Device d({scenario, 1}, LoopConfig{0, 300}, snapshot_walks);
      d.loop.RunHere();  // the world still: both devices hold the same heap
      LogSink log;
      auto agent = StartAgent(d.rt, log);
      ASSERT_TRUE(agent);
      HostClient client(Opts(*agent));
      ASSERT_TRUE(Connected(client));
      const CaptureResult r = CaptureOnce(client);
      ASSERT_TRUE(r.ok) << r.error;
      ExpectClosed(*r.snapshot);
      ASSERT_TRUE(r.snapshot->fields.has_values());
      // Walked after the game resumed in a child, in the pause otherwise.
      EXPECT_EQ(r.stats.walk_after_pause_us > 0, snapshot_walks);
      got[snapshot_walks] = *r.snapshot;
      if (snapshot_walks) {
        const Snapshot flat = FlatGroundTruth(d.rt);
        CopyClock(flat, &*got[1]);
        EXPECT_EQ(FirstDifference(GclogText(*got[1]), GclogText(flat)), "");
        ExpectSameOrigins(*got[1], flat);
      }
    }
    got[1]->capture = got[0]->capture;  // the capture's own figures and time differ
    CopyClock(*got[0], &*got[1]);
    EXPECT_TRUE(*got[1] == *got[0]);
    EXPECT_TRUE(got[1]->fields == got[0]->fields);
  }
}

// While the child's walk is replayed the game plays on: the sink, told the world resumed, holds
// the replay at its first object until the game has played two more frames (bounded wait).
TEST(SnapshotWalk, TheGamePlaysWhileTheChildsWalkIsReplayed) {
  Device d({"bubbles", 2}, LoopConfig{0, 0}, /*snapshot_walks=*/true);
  d.loop.Start();
  ASSERT_TRUE(WaitForFrames(d.loop, 5, 20000));
  Snapshot snap;
  emulator::RuntimeNamer namer(d.rt);
  emulator::SnapshotBuilderSink builder(
      snap, {d.rt.Info().app_name, d.rt.Info().dump_version, [&d] { return d.rt.BootMillis(); }},
      &namer);
  struct Waiting final : FlatWalk {
    const GameLoop& loop;
    bool resumed = false, played = false, waited = false;
    uint64_t frames_at_resume = 0;
    Waiting(agent::HeapInfoCallback& inner, const GameLoop& l) : FlatWalk(inner), loop(l) {}
    void WorldResumed() override {
      resumed = true;
      frames_at_resume = loop.frames();
    }
    void BeforeObject() override {
      if (resumed && !waited) {
        waited = true;
        played = WaitForFrames(loop, frames_at_resume + 2, 20000);
      }
    }
  } sink(builder, d.loop);
  struct Ctx {
    Runtime* rt;
    Waiting* sink;
  } ctx{&d.rt, &sink};
  ASSERT_TRUE(d.rt.RunWithWorldStopped(
      [](void* p) {
        auto* c = static_cast<Ctx*>(p);
        c->rt->InduceFullCollection();
        c->rt->WalkHeap(*c->sink);
      },
      &ctx, 10000));
  EXPECT_TRUE(sink.resumed);
  EXPECT_TRUE(sink.played) << "the game played no frame while the walk was replayed";
  ExpectClosed(snap);
  EXPECT_GT(snap.object_count(), 50u);
  d.loop.RequestStop();
  d.loop.Join();
  EXPECT_TRUE(d.loop.error().empty()) << d.loop.error();
}

}  // namespace
}  // namespace xrpm::testing
