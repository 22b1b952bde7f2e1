// The .heapsnapshot export read back by an independent reader this project did not write:
// Chrome DevTools' heap snapshot model (npm heap-snapshot-toolkit, installed into the build
// directory by the formats.install_devtools_reader fixture). devtools_check.mjs prints what
// DevTools understood; these tests compare it with the exported snapshot: node and edge counts,
// per-object ids, names, sizes and edge counts, the Summary view's per-class counts and sizes,
// the total size and the root groups.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "fields_game.h"
#include "subprocess.h"
#include "test_heaps.h"
#include "xrpm/formats/heapsnapshot_writer.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/object_fields.h"

namespace xrpm {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

const fs::path kPrefix = DEVTOOLS_NPM_PREFIX;

class DevToolsReader : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("node --version >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "node is not installed (scripts/deps.sh installs nodejs npm); "
                      "the DevTools reader check cannot run";
    if (!fs::exists(kPrefix / "node_modules/heap-snapshot-toolkit/index.js"))
      GTEST_SKIP() << "heap-snapshot-toolkit is not installed in " << kPrefix
                   << " (npm or the npm registry was unavailable during the "
                      "formats.install_devtools_reader set-up)";
    dir_ = fs::path(XRPM_BINARY_DIR) / "tmp" /
           ("devtools_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Exports `s`, runs DevTools' reader on the file and returns what it printed.
  json Check(const Snapshot& s, formats::HeapSnapshotStats* stats) {
    const fs::path file = dir_ / "heap.heapsnapshot";
    *stats = formats::WriteHeapSnapshotFile(s, file.string());
    const std::string cmd = "node '" + std::string(DEVTOOLS_CHECK_SCRIPT) + "' '" +
                            kPrefix.string() + "' '" + file.string() + "' 2>'" +
                            (dir_ / "stderr.txt").string() + "'";
    const xrpm::testing::RunResult run = xrpm::testing::RunShell(cmd, 300000);
    EXPECT_EQ(run.exit_code, 0) << "node failed; see " << (dir_ / "stderr.txt");
    return json::parse(run.out);
  }

  fs::path dir_;
};

// Compares DevTools' view with the snapshot that was exported.
void ExpectSameHeap(const Snapshot& s, const formats::HeapSnapshotStats& st, const json& got) {
  EXPECT_EQ(got["nodeCount"].get<uint64_t>(), st.node_count);
  EXPECT_EQ(got["nodeCount"].get<uint64_t>(), 1 + st.root_groups + s.object_count());
  EXPECT_EQ(got["edgeCount"].get<uint64_t>(), st.edge_count);
  EXPECT_EQ(got["totalSize"].get<uint64_t>(), s.total_bytes());

  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index.try_emplace(s.object_id[i], i);
  std::map<std::string, std::pair<uint64_t, uint64_t>> classes;  // name -> (count, bytes)
  uint64_t edges = st.root_groups;
  // Strings with captured text are string nodes named by their text (DevTools: "(string)").
  auto name_of = [&](size_t i) {
    const std::optional<StringValue> t = StringOf(s, i);
    return t ? std::string(t->text) + (t->cut ? "…" : "") : s.type_name_of(i);
  };
  for (size_t i = 0; i < s.object_count(); ++i) {
    auto& c = classes[StringOf(s, i) ? "(string)" : s.type_name_of(i)];
    ++c.first;
    c.second += s.object_size[i];
  }
  for (auto& [name, c] : classes) {
    ASSERT_TRUE(got["classes"].contains(name)) << name;
    EXPECT_EQ(got["classes"][name]["count"].get<uint64_t>(), c.first) << name;
    EXPECT_EQ(got["classes"][name]["self"].get<uint64_t>(), c.second) << name;
  }
  EXPECT_EQ(got["classes"].size(), classes.size());

  ASSERT_EQ(got["objects"].size(), s.object_count());
  for (const json& o : got["objects"]) {
    size_t i = st.ids_are_addresses ? index.at(o[0].get<uint64_t>())
                                    : (o[0].get<uint64_t>() - 1) / 2 - 1 - st.root_groups;
    ASSERT_LT(i, s.object_count());
    EXPECT_EQ(o[1].get<std::string>(), name_of(i));
    EXPECT_EQ(o[2].get<uint64_t>(), s.object_size[i]);
    uint64_t resolved = 0;
    for (ObjectId r : s.object_refs(i)) resolved += index.count(r);
    EXPECT_EQ(o[3].get<uint64_t>(), resolved) << std::hex << s.object_id[i];
    edges += resolved;
  }

  std::map<uint8_t, std::tuple<uint64_t, uint64_t, uint64_t>> roots;  // kind -> edges, weak, named
  for (size_t r = 0; r < s.root_count(); ++r) {
    auto& [n, weak, named] = roots[s.root_kind[r]];
    if (!index.count(s.root_object[r])) continue;
    ++n;
    if (s.root_flags[r] & kRootWeak)
      ++weak;
    else if (s.root_flags[r] || s.root_kind_of(r) == RootKind::kStatic ||
             !s.fields.label_of_root(r).empty())
      ++named;
  }
  ASSERT_EQ(got["roots"].size(), roots.size());
  size_t k = 0;
  for (auto& [kind, counts] : roots) {
    const json& g = got["roots"][k++];
    EXPECT_EQ(g["name"],
              "(GC roots: " + std::string(RootKindName(static_cast<RootKind>(kind))) + ")");
    EXPECT_EQ(g["edges"].get<uint64_t>(), std::get<0>(counts)) << g.dump();
    EXPECT_EQ(g["weak"].get<uint64_t>(), std::get<1>(counts)) << g.dump();
    EXPECT_EQ(g["named"].get<uint64_t>(), std::get<2>(counts)) << g.dump();
    edges += std::get<0>(counts);
  }
  EXPECT_EQ(edges, st.edge_count);
}

TEST_F(DevToolsReader, ReadsANetcfHeapWithEveryRootKind) {
  Snapshot s = testing::MakeHeap({.seed = 11, .objects = 3000, .dangling = 0.05});
  formats::HeapSnapshotStats st;
  json got = Check(s, &st);
  EXPECT_TRUE(st.ids_are_addresses);
  EXPECT_EQ(st.root_groups, static_cast<uint64_t>(kRootKindCount));
  EXPECT_GT(st.dropped_refs, 0u);
  ExpectSameHeap(s, st, got);
}

TEST_F(DevToolsReader, ReadsAJavaHeapFromAClassicDump) {
  Diagnostics d;
  Snapshot s =
      formats::ReadIbmClassicFile(std::string(FORMATS_TEST_DATA) + "/j9_native_style.txt", d);
  ASSERT_TRUE(d.empty());
  formats::HeapSnapshotStats st;
  json got = Check(s, &st);
  ExpectSameHeap(s, st, got);
  EXPECT_EQ(got["classes"]["char[]"]["self"], 48);
}

TEST_F(DevToolsReader, ReadsTheSampleCapture) {
  Diagnostics d;
  Snapshot s = formats::LoadSnapshot(std::string(XRPM_TEST_DATA) + "/netcf/bubbles.gclog", d);
  ASSERT_TRUE(d.empty());
  formats::HeapSnapshotStats st;
  json got = Check(s, &st);
  ExpectSameHeap(s, st, got);
}

TEST_F(DevToolsReader, ReadsOrdinalIdsWhenAddressesRepeat) {
  Snapshot s = testing::MakeHeap({.seed = 12, .objects = 500});
  s.AddObject(s.object_id[7], 0, 64, {});  // duplicate address
  s.CloseSectionRanges();
  formats::HeapSnapshotStats st;
  json got = Check(s, &st);
  EXPECT_FALSE(st.ids_are_addresses);
  ExpectSameHeap(s, st, got);
}

// Object contents: DevTools shows the fields holding each reference, element indexes, string text
// and the roots' labels.
TEST_F(DevToolsReader, ShowsFieldNamesElementIndexesAndStringText) {
  const Snapshot s = testing::MakeFieldsGame();
  formats::HeapSnapshotStats st;
  json got = Check(s, &st);
  ExpectSameHeap(s, st, got);
  std::map<uint64_t, json> by_id;
  for (const json& o : got["objects"]) by_id[o[0].get<uint64_t>()] = o;
  ASSERT_TRUE(st.ids_are_addresses);
  EXPECT_EQ(by_id[0x1000][5], json::parse(R"([["property", "bubbles"]])"));
  EXPECT_EQ(by_id[0x1100][5], json::parse(R"([["property", "_items"]])"));
  EXPECT_EQ(by_id[0x1200][5], json::parse(R"([["element", "0"], ["element", "2"]])"));
  EXPECT_EQ(by_id[0x1600][5], json::parse(R"([["property", "_target"]])"));
  EXPECT_EQ(by_id[0x1540][4], "string");
  EXPECT_EQ(by_id[0x1540][1], "Bubble 1");
  EXPECT_EQ(by_id[0x1580][1], "Blase \xc3\xbc\xe2\x82\xac\xef\xbf\xbd…");
  EXPECT_EQ(got["classes"]["(string)"]["count"], 3);
  EXPECT_EQ(got["roots"][1]["names"], json::parse(R"(["Bubbles.GameEvents.Popped"])"));
  EXPECT_EQ(got["roots"][0]["names"], json::parse(R"(["in Bubbles.Game1.Update, thread 1"])"));
}

}  // namespace
}  // namespace xrpm
