// Structural checks of the .heapsnapshot export with a generic JSON parser (nlohmann::json).
// The independent check with Chrome DevTools' own reader is devtools_reader_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "test_heaps.h"
#include "xrpm/formats/heapsnapshot_writer.h"

namespace xrpm {
namespace {

using json = nlohmann::json;

struct Exported {
  json doc;
  formats::HeapSnapshotStats stats;
  size_t chunks = 0, largest_chunk = 0;
  std::string text;
};

Exported Export(const Snapshot& s) {
  Exported e;
  e.stats = formats::WriteHeapSnapshot(s, [&](std::string_view b) {
    ++e.chunks;
    e.largest_chunk = std::max(e.largest_chunk, b.size());
    e.text.append(b);
  });
  e.doc = json::parse(e.text);
  return e;
}

// A view of the exported graph through the meta description, as a consumer would read it.
struct Graph {
  const json& doc;
  size_t nf, ef;
  explicit Graph(const json& d)
      : doc(d),
        nf(d["snapshot"]["meta"]["node_fields"].size()),
        ef(d["snapshot"]["meta"]["edge_fields"].size()) {}
  size_t nodes() const { return doc["nodes"].size() / nf; }
  uint64_t field(size_t node, int f) const { return doc["nodes"][node * nf + f].get<uint64_t>(); }
  std::string name(size_t node) const { return doc["strings"][field(node, 1)]; }
  std::string type(size_t node) const {
    return doc["snapshot"]["meta"]["node_types"][0][field(node, 0)];
  }
  // Edges of `node` as (edge type name, name_or_index, target node ordinal).
  std::vector<std::tuple<std::string, uint64_t, size_t>> edges(size_t node) const {
    size_t first = 0;
    for (size_t n = 0; n < node; ++n) first += field(n, 4);
    std::vector<std::tuple<std::string, uint64_t, size_t>> out;
    for (size_t k = 0; k < field(node, 4); ++k) {
      size_t e = (first + k) * ef;
      out.emplace_back(doc["snapshot"]["meta"]["edge_types"][0][doc["edges"][e].get<int>()],
                       doc["edges"][e + 1].get<uint64_t>(), doc["edges"][e + 2].get<size_t>() / nf);
    }
    return out;
  }
};

Snapshot Sample() {
  Snapshot s;
  s.AddSection({.version = 2, .name = "bubbles.exe"});
  uint32_t str = s.AddType(0x2, "System.String", 0);
  uint32_t arr = s.AddType(0x1d, "System.Object[]", 0);
  const ObjectId refs[] = {0x1ce11f, 0xdead00, 0x1ce14c};  // the middle one dangles
  s.AddObject(0x1ce056, arr, 0x118, refs);
  s.AddObject(0x1ce11f, str, 0x1c, {});
  s.AddObject(0x1ce14c, str, 0x20, {});
  s.AddRoot(0x1ce056, RootKind::kStatic, 0, 0x1d);
  s.AddRoot(0x1ce11f, RootKind::kHandle, kRootWeak | kRootPinned);
  s.AddRoot(0x1ce14c, RootKind::kLocal, 0, 0, 0);
  s.AddRoot(0xbad000, RootKind::kLocal, 0);  // no such object
  s.root_origins.push_back("thread 3 / Game1.Update");
  s.CloseSectionRanges();
  return s;
}

TEST(HeapSnapshotWriter, WritesTheV8LayoutWithConsistentCounts) {
  Exported e = Export(Sample());
  const json& meta = e.doc["snapshot"]["meta"];
  EXPECT_EQ(meta["node_fields"], json({"type", "name", "id", "self_size", "edge_count",
                                       "trace_node_id", "detachedness"}));
  EXPECT_EQ(meta["edge_fields"], json({"type", "name_or_index", "to_node"}));
  EXPECT_EQ(meta["edge_types"][0][6], "weak");
  const uint64_t nodes = e.doc["snapshot"]["node_count"], edges = e.doc["snapshot"]["edge_count"];
  EXPECT_EQ(nodes, 1u + 3u + 3u);  // root, 3 descriptor kinds (local, handle, static), 3 objects
  EXPECT_EQ(e.doc["nodes"].size(), nodes * 7);
  EXPECT_EQ(e.doc["edges"].size(), edges * 3);
  EXPECT_EQ(e.stats.node_count, nodes);
  EXPECT_EQ(e.stats.edge_count, edges);
  Graph g(e.doc);
  uint64_t sum = 0;
  for (size_t n = 0; n < g.nodes(); ++n) sum += g.field(n, 4);
  EXPECT_EQ(sum, edges);
  for (size_t k = 2; k < e.doc["edges"].size(); k += 3) {
    EXPECT_EQ(e.doc["edges"][k].get<uint64_t>() % 7, 0u);
    EXPECT_LT(e.doc["edges"][k].get<uint64_t>(), e.doc["nodes"].size());
  }
  for (const char* empty : {"trace_function_infos", "trace_tree", "samples", "locations"})
    EXPECT_TRUE(e.doc[empty].empty()) << empty;
  EXPECT_EQ(e.doc["strings"][0], "");
  EXPECT_EQ(e.stats.dropped_refs, 1u);
  EXPECT_EQ(e.stats.dropped_roots, 1u);
}

TEST(HeapSnapshotWriter, RootsHangOffOneSyntheticNodePerDescriptor) {
  Exported e = Export(Sample());
  Graph g(e.doc);
  EXPECT_EQ(g.type(0), "synthetic");
  EXPECT_EQ(g.name(0), "");
  auto top = g.edges(0);
  ASSERT_EQ(top.size(), 3u);
  std::vector<std::string> groups;
  for (auto& [type, name, target] : top) {
    EXPECT_EQ(type, "element");
    EXPECT_EQ(g.type(target), "synthetic");
    groups.push_back(g.name(target));
  }
  EXPECT_EQ(groups, (std::vector<std::string>{"(GC roots: local)", "(GC roots: handle)",
                                              "(GC roots: static)"}));
  // local: one root with a known origin (the dangling one is left out).
  auto local = g.edges(std::get<2>(top[0]));
  ASSERT_EQ(local.size(), 1u);
  EXPECT_EQ(std::get<0>(local[0]), "property");
  EXPECT_EQ(e.doc["strings"][std::get<1>(local[0])], "thread 3 / Game1.Update");
  EXPECT_EQ(g.field(std::get<2>(local[0]), 2), 0x1ce14cu);
  // handle: weak|pinned becomes a weak edge named by its flags.
  auto handle = g.edges(std::get<2>(top[1]));
  ASSERT_EQ(handle.size(), 1u);
  EXPECT_EQ(std::get<0>(handle[0]), "weak");
  EXPECT_EQ(e.doc["strings"][std::get<1>(handle[0])], "pinned|weak");
  EXPECT_EQ(g.field(std::get<2>(handle[0]), 2), 0x1ce11fu);
  // static: named by its class.
  auto statics = g.edges(std::get<2>(top[2]));
  ASSERT_EQ(statics.size(), 1u);
  EXPECT_EQ(std::get<0>(statics[0]), "property");
  EXPECT_EQ(e.doc["strings"][std::get<1>(statics[0])], "System.Object[]");
}

TEST(HeapSnapshotWriter, ObjectsBecomeNodesNamedByTypeWithElementEdges) {
  Exported e = Export(Sample());
  Graph g(e.doc);
  ASSERT_TRUE(e.stats.ids_are_addresses);
  std::map<uint64_t, size_t> by_id;
  for (size_t n = 4; n < g.nodes(); ++n) {
    EXPECT_EQ(g.type(n), "object");
    by_id[g.field(n, 2)] = n;
  }
  size_t arr = by_id.at(0x1ce056);
  EXPECT_EQ(g.name(arr), "System.Object[]");
  EXPECT_EQ(g.field(arr, 3), 0x118u);
  auto edges = g.edges(arr);
  ASSERT_EQ(edges.size(), 2u);  // the dangling reference has no node
  EXPECT_EQ(edges[0], std::make_tuple(std::string("element"), uint64_t{0}, by_id.at(0x1ce11f)));
  EXPECT_EQ(edges[1], std::make_tuple(std::string("element"), uint64_t{2}, by_id.at(0x1ce14c)));
  EXPECT_EQ(g.name(by_id.at(0x1ce14c)), "System.String");
  EXPECT_EQ(g.field(by_id.at(0x1ce14c), 3), 0x20u);
  // Synthetic ids 1, 3, 5, 7 stay clear of the addresses.
  for (size_t n = 0; n < 4; ++n) EXPECT_EQ(g.field(n, 2), 1 + 2 * n);
}

TEST(HeapSnapshotWriter, FallsBackToOrdinalIdsWhenAddressesCannotBeIds) {
  Snapshot dup = Sample();
  dup.AddObject(0x1ce11f, 0, 8, {});  // a duplicate id
  dup.CloseSectionRanges();
  Snapshot wide = testing::MakeHeap({.objects = 20, .base = 0x00007F0000000000});
  for (const Snapshot* s : {&dup, &wide}) {
    Exported e = Export(*s);
    EXPECT_FALSE(e.stats.ids_are_addresses);
    Graph g(e.doc);
    std::set<uint64_t> ids;
    for (size_t n = 0; n < g.nodes(); ++n) {
      EXPECT_EQ(g.field(n, 2) % 2, 1u);
      EXPECT_LE(g.field(n, 2), 0xFFFFFFFFu);
      ids.insert(g.field(n, 2));
    }
    EXPECT_EQ(ids.size(), g.nodes());
  }
}

TEST(HeapSnapshotWriter, StringsAreValidJsonAndUtf8) {
  Snapshot s;
  s.AddSection({.name = "x"});
  s.AddType(1, "Bübbles.Spiel", 0);
  s.AddType(2, std::string("Quote\"Back\\slash\ttab\x01") + "bad\xff\xc3", 0);
  s.AddObject(0x1000, 0, 16, {});
  s.AddObject(0x2000, 1, 16, {});
  s.CloseSectionRanges();
  Exported e = Export(s);  // json::parse throws on invalid JSON or UTF-8
  Graph g(e.doc);
  EXPECT_EQ(g.name(1), "Bübbles.Spiel");
  EXPECT_EQ(g.name(2),
            "Quote\"Back\\slash\ttab\x01"
            "bad\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(HeapSnapshotWriter, EmptySnapshotIsJustTheRoot) {
  Snapshot s;
  Exported e = Export(s);
  EXPECT_EQ(e.doc["snapshot"]["node_count"], 1);
  EXPECT_EQ(e.doc["snapshot"]["edge_count"], 0);
  EXPECT_EQ(e.doc["nodes"].size(), 7u);
}

TEST(HeapSnapshotWriter, StreamsInBoundedChunks) {
  Snapshot big = testing::MakeHeap({.objects = 60000});
  Exported e = Export(big);
  EXPECT_GT(e.chunks, 10u);
  EXPECT_LT(e.largest_chunk, 300u * 1024);
  EXPECT_EQ(e.doc["snapshot"]["node_count"].get<uint64_t>(),
            1 + kRootKindCount + big.object_count());
}

TEST(HeapSnapshotWriter, SavesAtomically) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xrpm_hs_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "heap.heapsnapshot").string();
  formats::WriteHeapSnapshotFile(Sample(), path);
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), Export(Sample()).text);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  EXPECT_THROW(formats::WriteHeapSnapshotFile(Sample(), (dir / "no" / "x.heapsnapshot").string()),
               std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xrpm
