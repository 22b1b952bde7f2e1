// ctest-labels: threaded
// Allocation origins end to end over 127.0.0.1 (FakeRuntime -> agent CaptureSink -> wire ->
// CaptureAssembler): the snapshot carries exactly the runtime's clock, sites and per-object
// origins; a runtime without origins yields a snapshot without them; a runtime that breaks the
// origin rules loses only the broken origins; and the assembler refuses origin fields that do
// not add up (undefined ids, a second clock, columns before the clock) with a clear error.
#include <gtest/gtest.h>

#include "fake_runtime.h"
#include "test_util.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/client/host_client.h"
#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using client::CaptureAssembler;
using client::CaptureResult;
using client::ClientOptions;
using client::HostClient;

struct OriginsServed {
  OriginsServed(size_t objects, bool origins, bool hostile, agent::AgentOptions opt = {})
      : rt(objects) {
    rt.set_origins(origins);
    rt.set_hostile_origins(hostile);
    agent = StartAgent(rt, log, std::move(opt));
    ClientOptions o;
    o.endpoint = agent ? Endpoint(*agent) : "127.0.0.1:1";
    o.connect_timeout_ms = 20000;
    client = std::make_unique<HostClient>(o);
  }
  FakeRuntime rt;
  LogSink log;
  std::unique_ptr<agent::Agent> agent;
  std::unique_ptr<HostClient> client;
};

// Compares the origin part first (a readable failure), then the whole snapshot.
void ExpectSameSnapshot(const Snapshot& got, const Snapshot& want) {
  ASSERT_EQ(got.has_origins(), want.has_origins());
  if (want.has_origins()) {
    EXPECT_EQ(got.origins->capture_frame, want.origins->capture_frame);
    EXPECT_EQ(got.origins->sample_bytes, want.origins->sample_bytes);
    EXPECT_EQ(got.origins->methods, want.origins->methods);
    EXPECT_TRUE(got.origins->sites == want.origins->sites);
    ASSERT_EQ(got.object_alloc_site.size(), want.object_alloc_site.size());
    for (size_t i = 0; i < want.object_alloc_site.size(); ++i) {
      ASSERT_EQ(got.object_alloc_site[i], want.object_alloc_site[i]) << "object " << i;
      ASSERT_EQ(got.object_alloc_frame[i], want.object_alloc_frame[i]) << "object " << i;
    }
  }
  EXPECT_EQ(FirstDifference(GclogText(got), GclogText(want)), "");
  Snapshot g = got;
  g.source.clear();
  g.capture.reset();
  Snapshot w = want;  // container names are the wire's addition, not in FakeRuntime::Expected
  w.root_origin = got.root_origin;
  w.root_origins = got.root_origins;
  EXPECT_TRUE(g == w) << "the whole snapshot, columns and origins";
}

TEST(OriginsCapture, SnapshotCarriesTheRuntimesOrigins) {
  for (bool streaming : {false, true}) {
    SCOPED_TRACE(streaming ? "streaming" : "buffered");
    agent::AgentOptions opt;
    if (streaming) opt.capture_memory_limit = 1 << 20;  // 16 KiB batches sealed inline
    OriginsServed s(40000, true, false, opt);
    ASSERT_TRUE(s.agent);
    ASSERT_TRUE(Connected(*s.client));
    const CaptureResult r = CaptureOnce(*s.client);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.stats.batches, 2u);
    EXPECT_EQ(r.stats.origins_dropped, 0u);
    ExpectSameSnapshot(*r.snapshot, s.rt.Expected());
    EXPECT_EQ(r.snapshot->origins->methods[3], "Bad??Name") << "made valid UTF-8 by the agent";
    EXPECT_TRUE(r.snapshot->origins->sites[2].methods.empty()) << "a depth-0 site";
    EXPECT_FALSE(r.snapshot->origin_known(6));
    EXPECT_EQ(r.snapshot->age_frames(64), 90000u - 1001u);
  }
}

TEST(OriginsCapture, RuntimeWithoutOriginsGivesNoOrigins) {
  OriginsServed s(5000, false, false);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(*s.client));
  const CaptureResult r = CaptureOnce(*s.client);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.snapshot->has_origins());
  EXPECT_TRUE(r.snapshot->object_alloc_frame.empty());
  EXPECT_TRUE(r.snapshot->object_alloc_site.empty());
  ExpectSameSnapshot(*r.snapshot, s.rt.Expected());
}

TEST(OriginsCapture, BrokenOriginsCostOnlyThoseOrigins) {
  OriginsServed s(5000, true, true);
  ASSERT_TRUE(s.agent);
  ASSERT_TRUE(Connected(*s.client));
  const CaptureResult r = CaptureOnce(*s.client);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.stats.origins_dropped, s.rt.expected_dropped_origins());
  // Site 0, the 33-deep site and the second description of site 7 were refused: the sites
  // and methods are exactly the valid ones.
  ExpectSameSnapshot(*r.snapshot, s.rt.Expected());
  EXPECT_FALSE(r.snapshot->origin_known(100));
  EXPECT_TRUE(r.snapshot->origin_known(99));
}

// ---- the assembler on hand-made messages ----

std::string Col(std::vector<uint64_t> v) {
  std::string out;
  protocol::EncodeColumn(v.data(), v.size(), &out);
  return out;
}

struct Assembled {
  CaptureAssembler a;
  std::string error;
  Assembled() {
    wire::CaptureBegin b;
    b.set_capture_id(1);
    EXPECT_TRUE(a.Begin(b, 10, &error)) << error;
  }
  // A batch of `n` contiguous 16-byte objects of type 1 and no references.
  wire::HeapBatch Objects(uint32_t seq, size_t n, uint64_t base) {
    wire::HeapBatch m;
    m.set_capture_id(1);
    m.set_seq(seq);
    m.set_id_base(base);
    m.set_object_count(static_cast<uint32_t>(n));
    m.set_object_gaps(Col(std::vector<uint64_t>(n, 0)));
    m.set_object_types(Col(std::vector<uint64_t>(n, 1)));
    m.set_object_sizes(Col(std::vector<uint64_t>(n, 16)));
    m.set_object_ref_counts(Col(std::vector<uint64_t>(n, 0)));
    return m;
  }
};

void Define(wire::HeapBatch* m, std::vector<std::string> methods,
            std::vector<std::vector<uint64_t>> sites) {
  for (auto& name : methods) m->add_origin_methods(name);
  std::vector<uint64_t> depths, ids;
  for (auto& s : sites) {
    depths.push_back(s.size());
    ids.insert(ids.end(), s.begin(), s.end());
  }
  m->set_site_count(static_cast<uint32_t>(sites.size()));
  if (!sites.empty()) m->set_site_depths(Col(depths));
  if (!ids.empty()) m->set_site_methods(Col(ids));
}

// The CaptureEnd an honest agent would send after `batches`.
wire::CaptureEnd EndFor(const std::vector<wire::HeapBatch>& batches) {
  wire::CaptureEnd e;
  e.set_capture_id(1);
  uint64_t checksum = 0;
  protocol::RawBatch raw;
  for (const auto& m : batches) {
    std::string error;
    EXPECT_TRUE(protocol::DecodeHeapBatch(m, &raw, &error)) << error;
    checksum = protocol::ChecksumBatch(raw, checksum);
    e.set_object_count(e.object_count() + raw.object_id.size());
    e.set_heap_bytes(e.heap_bytes() + raw.HeapBytes());
  }
  e.set_batch_count(static_cast<uint32_t>(batches.size()));
  e.set_checksum(checksum);
  return e;
}

TEST(OriginsAssembler, ObjectsBeforeTheClockAreUnknownAndIdsFollowTheWireOrder) {
  Assembled t;
  std::vector<wire::HeapBatch> batches;
  batches.push_back(t.Objects(0, 3, 0x1000));  // before the clock
  wire::HeapBatch m = t.Objects(1, 3, 0x2000);
  m.mutable_origin_clock()->set_capture_frame(500);
  m.mutable_origin_clock()->set_sample_bytes(4096);
  Define(&m, {"A.Inner", "B.Outer"}, {{1, 2}, {}, {2}});
  m.set_object_sites(Col({3, 0, 1}));
  m.set_frame_base(400);
  m.set_object_frames(Col({0, protocol::ZigZag(-10)}));  // 400, then 390
  batches.push_back(m);
  wire::HeapBatch n = t.Objects(2, 1, 0x3000);  // a site defined in a later batch
  Define(&n, {"C.Late"}, {{3, 1}});
  n.set_object_sites(Col({4}));
  n.set_frame_base(uint64_t{1} << 40);  // beyond the model's 32 bits: saturates
  n.set_object_frames(Col({0}));
  batches.push_back(n);
  for (const auto& b : batches) ASSERT_TRUE(t.a.Batch(b, 10, &t.error)) << t.error;
  ASSERT_TRUE(t.a.End(EndFor(batches), &t.error)) << t.error;
  const Snapshot s = t.a.Take();
  ASSERT_TRUE(s.has_origins());
  EXPECT_EQ(s.origins->capture_frame, 500u);
  EXPECT_EQ(s.origins->sample_bytes, 4096u);
  EXPECT_EQ(s.origins->methods, (std::vector<std::string>{"A.Inner", "B.Outer", "C.Late"}));
  ASSERT_EQ(s.origins->sites.size(), 4u);
  EXPECT_EQ(s.origins->sites[0].methods, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(s.origins->sites[1].methods.empty());
  EXPECT_EQ(s.origins->sites[2].methods, (std::vector<uint32_t>{1}));
  EXPECT_EQ(s.origins->sites[3].methods, (std::vector<uint32_t>{2, 0}));
  const std::vector<uint32_t> sites = {
      kUnknownSite, kUnknownSite, kUnknownSite, 2, kUnknownSite, 0, 3};
  const std::vector<uint32_t> frames = {0, 0, 0, 400, 0, 390, 0xFFFFFFFEu};
  ASSERT_EQ(s.object_alloc_site.size(), 7u);
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(s.object_alloc_site[i], sites[i]) << i;
    EXPECT_EQ(s.object_alloc_frame[i], frames[i]) << i;
  }
  EXPECT_EQ(s.age_frames(3), 100u);
}

TEST(OriginsAssembler, ChecksumCoversTheOrigins) {
  Assembled t;
  wire::HeapBatch m = t.Objects(0, 3, 0x2000);
  m.mutable_origin_clock()->set_capture_frame(500);
  Define(&m, {"A.Inner"}, {{1}});
  m.set_object_sites(Col({1, 0, 1}));
  m.set_frame_base(400);
  m.set_object_frames(Col({0, 2}));
  const wire::CaptureEnd honest = EndFor({m});
  m.set_object_frames(Col({0, 4}));  // the agent walked 401 for object 2; 402 arrived
  ASSERT_TRUE(t.a.Batch(m, 10, &t.error)) << t.error;
  EXPECT_FALSE(t.a.End(honest, &t.error));
  EXPECT_NE(t.error.find("checksum"), std::string::npos) << t.error;
}

TEST(OriginsAssembler, RefusesOriginsThatDoNotAddUp) {
  struct Case {
    const char* what;
    std::function<void(wire::HeapBatch*)> damage;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"undefined site",
       [](wire::HeapBatch* m) {
         m->set_object_sites(Col({1, 0, 4}));
       },
       "names site 4, but only 3 are defined"},
      {"undefined method",
       [](wire::HeapBatch* m) {
         m->clear_origin_methods();
         m->add_origin_methods("A.Inner");
       },
       "names method 2, but only 1 are defined"},
      {"method id 0",
       [](wire::HeapBatch* m) {
         m->set_site_methods(Col({1, 0, 2}));
       },
       "method id 0"},
      {"too deep",
       [](wire::HeapBatch* m) {
         m->set_site_depths(Col({33, 0, 1}));
         m->set_site_methods(Col(std::vector<uint64_t>(34, 1)));
       },
       "depth 33, over the limit of 32"},
      {"too many sites in a batch",
       [](wire::HeapBatch* m) { m->set_site_count(protocol::kMaxBatchSites + 1); },
       "over the batch limit"},
      {"method name too long",
       [](wire::HeapBatch* m) {
         m->add_origin_methods(std::string(protocol::kMaxMethodNameBytes + 1, 'x'));
       },
       "over the limit of 1024"},
      {"site column short",
       [](wire::HeapBatch* m) {
         m->set_object_sites(Col({1, 0}));
       },
       "object sites: not a valid column of 3 values"},
      {"frames column long",
       [](wire::HeapBatch* m) {
         m->set_object_frames(Col({1000, 1000, 1000}));
       },
       "object frames: not a valid column of 2 values"},
      {"frames without sites", [](wire::HeapBatch* m) { m->clear_object_sites(); },
       "object frames without object sites"},
      {"sites column without a count", [](wire::HeapBatch* m) { m->clear_site_count(); },
       "site depths: bytes present for 0 values"},
      {"columns before the clock", [](wire::HeapBatch* m) { m->clear_origin_clock(); },
       "object origins before the capture's allocation clock"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Assembled t;
    wire::HeapBatch m = t.Objects(0, 3, 0x2000);
    m.mutable_origin_clock()->set_capture_frame(500);
    Define(&m, {"A.Inner", "B.Outer"}, {{1, 2}, {}, {2}});
    m.set_object_sites(Col({3, 0, 1}));
    m.set_frame_base(400);
    m.set_object_frames(Col({0, 1}));
    c.damage(&m);
    EXPECT_FALSE(t.a.Batch(m, 10, &t.error));
    EXPECT_NE(t.error.find(c.expect), std::string::npos) << t.error;
    EXPECT_EQ(t.error.rfind("batch 0: ", 0), 0u) << "says which batch: " << t.error;
  }
}

TEST(OriginsAssembler, SecondClockAndMissingColumnsAreRefused) {
  {
    Assembled t;
    wire::HeapBatch m = t.Objects(0, 2, 0x2000);
    m.mutable_origin_clock()->set_capture_frame(5);
    m.set_object_sites(Col({0, 0}));
    ASSERT_TRUE(t.a.Batch(m, 10, &t.error)) << t.error;
    wire::HeapBatch n = t.Objects(1, 2, 0x3000);
    n.mutable_origin_clock()->set_capture_frame(6);
    n.set_object_sites(Col({0, 0}));
    EXPECT_FALSE(t.a.Batch(n, 10, &t.error));
    EXPECT_NE(t.error.find("a second allocation clock"), std::string::npos) << t.error;
  }
  {
    Assembled t;
    wire::HeapBatch m = t.Objects(0, 2, 0x2000);
    m.mutable_origin_clock()->set_capture_frame(5);
    m.set_object_sites(Col({0, 0}));
    ASSERT_TRUE(t.a.Batch(m, 10, &t.error)) << t.error;
    EXPECT_FALSE(t.a.Batch(t.Objects(1, 2, 0x3000), 10, &t.error));
    EXPECT_NE(t.error.find("objects without origin columns"), std::string::npos) << t.error;
  }
}

}  // namespace
}  // namespace xrpm::testing
