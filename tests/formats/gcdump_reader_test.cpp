// The .gcdump reader's mapping onto the model: the real samples' counts (README figures), how
// pseudo-nodes become roots, undefined nodes, synthetic ids, sampling, and round trips through
// the formats xrpm writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gcdump_test_writer.h"
#include "test_heaps.h"
#include "xrpm/formats/gcdump_reader.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;
using testing::GcDumpTestWriter;

const std::string kDir = std::string(XRPM_TEST_DATA) + "/gcdump";
const std::string kMono = kDir + "/sample-monovm.gcdump";
const std::string kTest1 = kDir + "/perfview-test1.gcdump";

Snapshot Read(const std::string& bytes, Diagnostics& d, formats::GcDumpReadStats* st = nullptr,
              bool strict = false) {
  formats::ReadOptions o;
  o.strict = strict;
  return formats::ReadGcDump({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                             "mem.gcdump", d, o, st);
}

std::map<std::string, uint64_t> RootsByKind(const Snapshot& s) {
  std::map<std::string, uint64_t> m;
  for (size_t r = 0; r < s.root_count(); ++r) ++m[std::string(RootKindName(s.root_kind_of(r)))];
  return m;
}

TEST(GcDumpReader, MonoVmSampleHasTheReadmeCountsAndMapsPseudoNodesToRoots) {
  Diagnostics d;
  formats::GcDumpReadStats st;
  Snapshot s = formats::ReadGcDumpFile(kMono, d, {}, &st);
  EXPECT_TRUE(d.empty()) << d.kept().front().ToString();
  // The graph as stored (tests/data/gcdump/README.md).
  EXPECT_EQ(st.nodes, 24062u);
  EXPECT_EQ(st.types, 430u);
  EXPECT_EQ(st.edges, 32349u);
  EXPECT_EQ(st.stored_total_size, 1309128);
  EXPECT_EQ(st.creation_tool, "dotnet-gcdump");
  EXPECT_FALSE(st.sampled);
  // Mapped: every node is an object, a pseudo-node or undefined; every edge is a reference, a
  // root, or an edge between pseudo-nodes (pseudo_nodes - 1 of them: they form a tree).
  EXPECT_EQ(st.pseudo_nodes, 153u);
  EXPECT_EQ(st.undefined_nodes, 0u);
  EXPECT_EQ(s.object_count() + st.pseudo_nodes + st.undefined_nodes, st.nodes);
  EXPECT_EQ(s.object_count(), 23909u);
  EXPECT_EQ(s.ref_count() + st.root_edges + (st.pseudo_nodes - 1), st.edges);
  EXPECT_EQ(s.root_count(), st.root_edges);
  EXPECT_EQ(s.root_count(), 19053u);
  EXPECT_EQ(s.total_bytes(), 1309128u);  // pseudo-nodes have size 0
  EXPECT_FALSE(s.sampled());
  const auto kinds = RootsByKind(s);
  EXPECT_EQ(kinds.at("local"), 16u);
  EXPECT_EQ(kinds.at("finalizer"), 3u);
  EXPECT_EQ(kinds.at("handle"), 18891u);
  EXPECT_EQ(kinds.at("static"), 143u);
  // Origins keep the pseudo-node path.
  for (size_t r = 0; r < s.root_count(); ++r) {
    ASSERT_NE(s.root_origin[r], kNoIndex);
    const std::string& o = s.root_origins[s.root_origin[r]];
    EXPECT_EQ(o.rfind("[.NET Roots]", 0), 0u) << o;
    if (s.root_kind_of(r) == RootKind::kStatic) {
      EXPECT_NE(o.find("[static var"), std::string::npos) << o;
    }
  }
  // Module names are kept where the dump has them.
  size_t with_module = 0;
  for (const TypeInfo& t : s.types) with_module += !t.module.empty();
  EXPECT_GT(with_module, 0u);
}

TEST(GcDumpReader, PerfViewJsHeapHasOneRootPseudoNode) {
  Diagnostics d;
  formats::GcDumpReadStats st;
  Snapshot s = formats::ReadGcDumpFile(kTest1, d, {}, &st);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(st.nodes, 6482u);
  EXPECT_EQ(st.types, 1994u);
  EXPECT_EQ(st.edges, 15020u);
  EXPECT_EQ(st.pseudo_nodes, 1u);  // [JS Roots]
  EXPECT_EQ(s.object_count(), 6481u);
  ASSERT_EQ(s.root_count(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(s.root_kind_of(r), RootKind::kInternal);
    EXPECT_EQ(s.root_origins[s.root_origin[r]], "[JS Roots]");
  }
  EXPECT_EQ(s.root_object[0], 0x6d16100u);  // node 1, the JSGlobal
  EXPECT_EQ(s.total_bytes(), 1009270u);
  EXPECT_EQ(s.sections.at(0).name, "Idle");  // the process name
}

// A .NET-shaped graph built by hand: every root category, an undefined node, a node without
// an address and one whose address repeats.
std::string HandBuiltDump(GcDumpTestWriter& w) {
  const uint32_t roots_t = w.AddType("[.NET Roots]", 0);
  const uint32_t statics_t = w.AddType("[static vars]", 0);
  const uint32_t static_t = w.AddType("[static var Game.Player]", 0);
  const uint32_t other_t = w.AddType("[other roots]", 0);
  const uint32_t strong_t = w.AddType("[StrongHandle]", 0);
  const uint32_t pinned_t = w.AddType("[PinnedHandle]", 0);
  const uint32_t locals_t = w.AddType("[local vars]", 0);
  const uint32_t fin_t = w.AddType("[FinalizerQueue]", 0);
  const uint32_t player_t = w.AddType("Game.Player", 48, "Game.dll");
  const uint32_t bytes_t = w.AddType("System.Byte[]", -1, "System.Private.CoreLib.dll");
  // Node indices: 0 root, 1 statics, 2 static var, 3 other, 4 strong, 5 pinned, 6 locals,
  // 7 finalizer, 8 player A, 9 bytes B, 10 undefined U, 11 bytes C (no address),
  // 12 player E (A's address again).
  const uint32_t r0[] = {1, 3, 6, 7};
  w.AddNode(roots_t, 0, r0, 0);
  const uint32_t r1[] = {2};
  w.AddNode(statics_t, 0, r1, 0);
  const uint32_t r2[] = {8};
  w.AddNode(static_t, 0, r2, 0);
  const uint32_t r3[] = {4, 5};
  w.AddNode(other_t, 0, r3, 0);
  const uint32_t r4[] = {9};
  w.AddNode(strong_t, 0, r4, 0);
  const uint32_t r5[] = {11};
  w.AddNode(pinned_t, 0, r5, 0);
  const uint32_t r6[] = {8, 10};
  w.AddNode(locals_t, 0, r6, 0);
  const uint32_t r7[] = {12};
  w.AddNode(fin_t, 0, r7, 0);
  const uint32_t a[] = {9, 9, 10, 1};  // a duplicate ref, one to U, one to a pseudo-node
  w.AddNode(player_t, -1, a, 0x7ff0'0000'1000);
  w.AddNode(bytes_t, 1000, {}, 0x7ff0'0000'2000);
  w.AddUndefinedNode(0x7ff0'0000'3000);
  w.AddNode(bytes_t, 24, {}, 0);
  w.AddNode(player_t, -1, {}, 0x7ff0'0000'1000);
  return w.Finish();
}

TEST(GcDumpReader, HandBuiltGraphMapsEveryRootCategory) {
  GcDumpTestWriter w;
  const std::string bytes = HandBuiltDump(w);
  Diagnostics d;
  formats::GcDumpReadStats st;
  Snapshot s = Read(bytes, d, &st);
  EXPECT_EQ(st.pseudo_nodes, 8u);
  EXPECT_EQ(st.undefined_nodes, 1u);
  ASSERT_EQ(s.object_count(), 4u);             // A, B, C, E
  EXPECT_EQ(s.object_id[0], 0x7ff000001000u);  // 64-bit addresses kept
  EXPECT_EQ(s.type_name_of(0), "Game.Player");
  EXPECT_EQ(s.types[s.object_type[0]].module, "Game.dll");
  EXPECT_EQ(s.object_size[0], 48u);
  EXPECT_EQ(s.object_size[1], 1000u);
  // A's refs: B twice, U's address (dangling); the edge to the pseudo-node is dropped.
  const auto refs = s.object_refs(0);
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0], 0x7ff000002000u);
  EXPECT_EQ(refs[1], 0x7ff000002000u);
  EXPECT_EQ(refs[2], 0x7ff000003000u);
  // C (address 0) and E (A's address again) get distinct synthetic ids above every address.
  EXPECT_GT(s.object_id[2], 0x7ff000003000u);
  EXPECT_GT(s.object_id[3], 0x7ff000003000u);
  EXPECT_NE(s.object_id[2], s.object_id[3]);
  // Roots: kind and flags from the pseudo-node names, origin = the path.
  struct Want {
    ObjectId id;
    RootKind kind;
    uint8_t flags;
    std::string origin;
  };
  const std::vector<Want> want = {
      {0x7ff000001000u, RootKind::kLocal, 0, "[.NET Roots]/[local vars]"},
      {0x7ff000003000u, RootKind::kLocal, 0, "[.NET Roots]/[local vars]"},
      {s.object_id[3], RootKind::kFinalizer, 0, "[.NET Roots]/[FinalizerQueue]"},
      {0x7ff000001000u, RootKind::kStatic, 0,
       "[.NET Roots]/[static vars]/[static var Game.Player]"},
      {0x7ff000002000u, RootKind::kHandle, 0, "[.NET Roots]/[other roots]/[StrongHandle]"},
      {s.object_id[2], RootKind::kHandle, kRootPinned, "[.NET Roots]/[other roots]/[PinnedHandle]"},
  };
  ASSERT_EQ(s.root_count(), want.size());
  std::vector<Want> got;
  for (size_t r = 0; r < s.root_count(); ++r)
    got.push_back(
        {s.root_object[r], s.root_kind_of(r), s.root_flags[r], s.root_origins[s.root_origin[r]]});
  for (const Want& x : want) {
    bool found = false;
    for (const Want& g : got)
      found |= g.id == x.id && g.kind == x.kind && g.flags == x.flags && g.origin == x.origin;
    EXPECT_TRUE(found) << x.origin;
  }
  // What the reader found is reported once per kind.
  EXPECT_EQ(d.counts().at("undefined-nodes"), 1u);
  EXPECT_EQ(d.counts().at("duplicate-address"), 1u);
  EXPECT_EQ(d.counts().at("pseudo-ref"), 1u);
  EXPECT_EQ(d.counts().count("total-size"), 0u);
  // Strict: the first finding throws.
  Diagnostics strict(true);
  EXPECT_THROW(Read(bytes, strict), InputError);
}

// Addresses spread too far for a bitmap: the duplicate check falls back to a hash set.
TEST(GcDumpReader, DuplicateAddressesAreFoundInASparseAddressSpace) {
  GcDumpTestWriter w;
  const uint32_t root_t = w.AddType("[.NET Roots]", 0), obj_t = w.AddType("System.Object", 24);
  const uint32_t kids[] = {1, 2, 3};
  w.AddNode(root_t, 0, kids, 0);
  w.AddNode(obj_t, -1, {}, 0x1000);
  w.AddNode(obj_t, -1, {}, 0x7ff0'0000'0000);
  w.AddNode(obj_t, -1, {}, 0x1000);
  Diagnostics d;
  Snapshot s = Read(w.Finish(), d);
  ASSERT_EQ(s.object_count(), 3u);
  EXPECT_EQ(d.counts().at("duplicate-address"), 1u);
  EXPECT_EQ(s.object_id[0], 0x1000u);
  EXPECT_GT(s.object_id[2], 0x7ff000000000u);  // synthetic, above every address
  EXPECT_EQ(s.root_object[2], s.object_id[2]);
}

// Fuzz finding (fuzz_gcdump, 2026-11-24): with an address near 2^64 there is no room for
// synthetic ids above the largest address; they fell back to the node index and could equal a
// real address (two objects with id 1). They now take the smallest values no address uses.
TEST(GcDumpReader, SyntheticIdsNeverEqualAnAddressEvenNearTheTopOfTheAddressSpace) {
  GcDumpTestWriter w;
  const uint32_t root_t = w.AddType("[.NET Roots]", 0), obj_t = w.AddType("System.Object", 24);
  const uint32_t kids[] = {1, 2, 3, 4};
  w.AddNode(root_t, 0, kids, 0);
  w.AddNode(obj_t, -1, {}, 0xff00'0000'0000'1000);
  w.AddNode(obj_t, -1, {}, 1);
  w.AddNode(obj_t, -1, {}, 0);  // no address: synthetic
  w.AddNode(obj_t, -1, {}, 2);
  Diagnostics d;
  Snapshot s = Read(w.Finish(), d);
  ASSERT_EQ(s.object_count(), 4u);
  std::set<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(s.object_id[2], 3u);  // 1 and 2 are taken
}

TEST(GcDumpReader, SampledDumpScalesCountsAndSizesPerType) {
  GcDumpTestWriter w;
  const uint32_t root_t = w.AddType("[.NET Roots]", 0);
  const uint32_t str_t = w.AddType("System.String", -1);
  const uint32_t arr_t = w.AddType("System.Int32[]", -1);
  const uint32_t kids[] = {1, 2, 3};
  w.AddNode(root_t, 0, kids, 0);
  w.AddNode(str_t, 20, {}, 0x1000);
  w.AddNode(str_t, 30, {}, 0x1020);
  w.AddNode(arr_t, 100, {}, 0x1040);
  w.count_multipliers = {1, 1, 10, 2.5f};
  w.average_count_multiplier = 7;
  Diagnostics d;
  formats::GcDumpReadStats st;
  Snapshot s = Read(w.Finish(), d, &st);
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(st.sampled);
  EXPECT_FLOAT_EQ(st.average_count_multiplier, 7);
  EXPECT_TRUE(s.sampled());
  EXPECT_EQ(s.object_count(), 3u);
  EXPECT_EQ(s.total_bytes(), 150u);
  EXPECT_DOUBLE_EQ(s.scaled_object_count(), 10 + 10 + 2.5);
  EXPECT_DOUBLE_EQ(s.scaled_total_bytes(), 200 + 300 + 250);
}

class GcDumpRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xrpm_gcdump_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const char* name) { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(GcDumpRoundTrip, ThroughNetcfAndIbmClassicKeepsObjectsSizesRefsAndRoots) {
  for (const std::string& src : {kMono, kTest1}) {
    Diagnostics d;
    const Snapshot s = formats::LoadSnapshot(src, d);
    ASSERT_TRUE(d.empty());
    const testing::Canon want = testing::Canonical(s);
    for (const char* out : {"heap.gclog", "heap.txt"}) {
      formats::SaveSnapshot(s, Path(out));
      Diagnostics d2;
      const Snapshot back = formats::LoadSnapshot(Path(out), d2);
      EXPECT_TRUE(d2.empty()) << out << ": " << d2.kept().front().ToString();
      const testing::Canon got = testing::Canonical(back);
      ASSERT_EQ(got.objects.size(), want.objects.size()) << src << " via " << out;
      // Type names too: JavaScript names holding '/' (which JVM signatures use for '.') come
      // back through the IBM writer's `// xrpm class` comments.
      EXPECT_TRUE(got.objects == want.objects) << src << " via " << out;
      if (std::string(out) == "heap.gclog") {
        EXPECT_TRUE(got.roots == want.roots) << src;
      }
      EXPECT_EQ(back.root_count(), s.root_count()) << src << " via " << out;
    }
    const std::string hs = Path("heap.heapsnapshot");
    formats::SaveSnapshot(s, hs);
    std::ifstream in(hs);
    std::string head(16, '\0');
    in.read(head.data(), 16);
    EXPECT_EQ(head.rfind("{\"snapshot\"", 0), 0u) << head;
  }
}

TEST_F(GcDumpRoundTrip, FormatTableDetectsGcDumpByContentAndRefusesToWriteIt) {
  const formats::FormatInfo* gc = formats::FindFormat("gcdump");
  ASSERT_NE(gc, nullptr);
  EXPECT_TRUE(gc->can_read);
  EXPECT_FALSE(gc->can_write);
  fs::copy_file(kTest1, Path("heap.bin"));
  EXPECT_EQ(formats::FormatForPath(Path("heap.bin"), true), gc);
  EXPECT_EQ(formats::FormatForPath("x.gcdump", false), gc);
  Diagnostics d;
  EXPECT_EQ(formats::LoadSnapshot(Path("heap.bin"), d).object_count(), 6481u);
  Snapshot empty;
  EXPECT_THROW(formats::SaveSnapshot(empty, Path("out.gcdump")), std::runtime_error);
}

}  // namespace
}  // namespace xrpm
