// The IBM classic and .heapsnapshot entries of the snapshot_io format table: what the CLI's
// convert/info verbs and the GUI's Open/Save As dialogs see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "test_heaps.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm {
namespace {

namespace fs = std::filesystem;

const std::string kJ9 = std::string(FORMATS_TEST_DATA) + "/j9_native_style.txt";

TEST(SnapshotIoFormats, TableDescribesTheFormats) {
  const formats::FormatInfo* ibm = formats::FindFormat("ibm-classic");
  ASSERT_NE(ibm, nullptr);
  EXPECT_TRUE(ibm->can_read);
  EXPECT_TRUE(ibm->can_write);
  EXPECT_EQ(ibm->extensions.front(), ".txt");
  EXPECT_NE(ibm->description.find("IBM"), std::string::npos);
  const formats::FormatInfo* hs = formats::FindFormat("heapsnapshot");
  ASSERT_NE(hs, nullptr);
  EXPECT_FALSE(hs->can_read);
  EXPECT_TRUE(hs->can_write);
  EXPECT_EQ(hs->extensions.front(), ".heapsnapshot");
  EXPECT_EQ(formats::FormatForPath("out/heap.heapsnapshot", false), hs);
  EXPECT_EQ(formats::FormatForPath("heapdump.20240101.0001.txt", false), ibm);
  EXPECT_EQ(formats::FormatForPath(kJ9, true), ibm);
}

class SnapshotIoFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xrpm_io_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const char* name) { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(SnapshotIoFiles, LoadsAClassicDumpByContentWhateverItsName) {
  fs::copy_file(kJ9, Path("java-heap.dump"));
  for (std::string path : {kJ9, Path("java-heap.dump")}) {
    Diagnostics d;
    Snapshot s = formats::LoadSnapshot(path, d);
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(s.object_count(), 5u);
    EXPECT_EQ(s.source, path);
  }
  Diagnostics d;
  EXPECT_EQ(formats::LoadSnapshot(kJ9, d, {}, "ibm-classic").object_count(), 5u);
  EXPECT_THROW(formats::LoadSnapshot(kJ9, d, {}, "heapsnapshot"), InputError);  // export only
}

TEST_F(SnapshotIoFiles, SavesByExtensionOrName) {
  Snapshot heap = testing::MakeHeap({.objects = 100});
  formats::SaveSnapshot(heap, Path("a.txt"));
  formats::SaveSnapshot(heap, Path("b.heapsnapshot"));
  formats::SaveSnapshot(heap, Path("c.out"), "ibm-classic");
  Diagnostics d;
  EXPECT_EQ(testing::Canonical(formats::LoadSnapshot(Path("a.txt"), d)), testing::Canonical(heap));
  EXPECT_EQ(testing::Canonical(formats::LoadSnapshot(Path("c.out"), d)), testing::Canonical(heap));
  EXPECT_TRUE(d.empty());
  std::ifstream f(Path("b.heapsnapshot"));
  std::string head(12, '\0');
  f.read(head.data(), 12);
  EXPECT_EQ(head, "{\"snapshot\":");
  // A classic dump converts to the NETCF format and back with the same objects.
  Snapshot java = formats::LoadSnapshot(kJ9, d);
  formats::SaveSnapshot(java, Path("java.gclog"));
  EXPECT_EQ(testing::Canonical(formats::LoadSnapshot(Path("java.gclog"), d)),
            testing::Canonical(java));
  EXPECT_TRUE(d.empty());
}

// The project's realistic NETCF sample through the real readers: .gclog -> IBM classic ->
// model keeps every object (id, type, size, references in order), every type id and name and
// every root; only the section's timestamps are lost (the classic format has none).
TEST_F(SnapshotIoFiles, SampleCaptureRoundTripsThroughClassic) {
  Diagnostics d;
  Snapshot netcf = formats::LoadSnapshot(std::string(XRPM_TEST_DATA) + "/netcf/bubbles.gclog", d);
  ASSERT_TRUE(d.empty());
  ASSERT_GT(netcf.object_count(), 1000u);
  formats::SaveSnapshot(netcf, Path("bubbles.txt"));
  Snapshot back = formats::LoadSnapshot(Path("bubbles.txt"), d);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(testing::Canonical(back), testing::Canonical(netcf));
  std::set<std::pair<TypeId, std::string>> a, b;
  for (const TypeInfo& t : netcf.types) a.emplace(t.id, t.name);
  for (const TypeInfo& t : back.types) b.emplace(t.id, t.name);
  EXPECT_EQ(a, b);
  EXPECT_EQ(back.sections.at(0).name, netcf.sections.at(0).name);
  EXPECT_FALSE(back.sections[0].start_ms.has_value());
}

// A conservatively found stack root keeps its flag in .xrpm and IBM classic (a root class
// "xrpm/roots/local$conservative"); .gclog has no such flag, drops it and says so.
TEST_F(SnapshotIoFiles, TheConservativeRootFlagSurvivesAllButGclog) {
  Snapshot heap = testing::MakeHeap({.objects = 50});
  size_t flagged = 0;
  for (size_t r = 0; r < heap.root_count(); ++r)
    if (heap.root_kind_of(r) == RootKind::kLocal && heap.root_flags[r] == 0)
      heap.root_flags[r] = kRootConservative, ++flagged;
  ASSERT_GT(flagged, 0u);
  const std::string loss = "the conservative flag of " + std::to_string(flagged) +
                           " stack roots (a conservative scan found them; NETCF has no such flag)";
  EXPECT_EQ(formats::FormatLosses(heap, "netcf").back(), loss);
  for (const char* format : {"xrpm", "ibm-classic"})
    for (const std::string& l : formats::FormatLosses(heap, format))
      EXPECT_EQ(l.find("conservative"), std::string::npos) << format << ": " << l;
  auto count = [](const Snapshot& s) {
    size_t n = 0;
    for (uint8_t f : s.root_flags) n += (f & kRootConservative) != 0;
    return n;
  };
  for (const char* name : {"c.xrpm", "c.txt", "c.gclog"}) {
    formats::SaveSnapshot(heap, Path(name));
    Diagnostics d;
    const Snapshot back = formats::LoadSnapshot(Path(name), d);
    EXPECT_EQ(back.root_count(), heap.root_count()) << name;
    EXPECT_EQ(count(back), std::string(name) == "c.gclog" ? 0u : flagged) << name;
    EXPECT_EQ(d.total(), 0u) << name;
  }
}

// Type traits exist only in captures and .xrpm: every other format drops them and says so
// before saving; .xrpm keeps them.
TEST_F(SnapshotIoFiles, LossyFormatsDropTypeTraitsAndSaySo) {
  Snapshot heap = testing::MakeHeap({.objects = 50});
  ASSERT_GT(heap.types.size(), 2u);
  heap.types[0].traits.kind = TypeKind::kValueType;
  heap.types[1].has_finalizer = true;
  EXPECT_TRUE(formats::FormatLosses(heap, "xrpm").empty());
  for (const char* format : {"netcf", "ibm-classic", "heapsnapshot"}) {
    bool named = false;
    for (const std::string& l : formats::FormatLosses(heap, format))
      named |= l.starts_with("the traits of 2 types (value type, enum, array rank, finalizer");
    EXPECT_TRUE(named) << format;
  }
  formats::SaveSnapshot(heap, Path("t.gclog"));
  Diagnostics d;
  const Snapshot back = formats::LoadSnapshot(Path("t.gclog"), d);
  EXPECT_FALSE(back.has_type_traits());
  for (const std::string& l : formats::FormatLosses(back, "ibm-classic"))
    EXPECT_EQ(l.find("traits"), std::string::npos) << l;
}

// Allocation origins exist only in captures and .xrpm: every other format drops them, says so
// before saving, and reads back with them absent (never made up).
TEST_F(SnapshotIoFiles, LossyFormatsDropAllocationOriginsAndSaySo) {
  Snapshot heap = testing::MakeHeap({.objects = 200});
  heap.origins.emplace();
  heap.origins->capture_frame = 900;
  heap.origins->methods = {"Bubbles.Bubble.OnSpawn"};
  heap.origins->sites = {{{0}}};
  for (size_t i = 0; i < heap.object_count(); ++i)
    heap.AddObjectOrigin(static_cast<uint32_t>(i), i % 4 ? 0 : kUnknownSite);
  EXPECT_TRUE(formats::FormatLosses(heap, "xrpm").empty());
  for (const char* format : {"netcf", "ibm-classic", "heapsnapshot"}) {
    const std::vector<std::string> lost = formats::FormatLosses(heap, format);
    bool named = false;
    for (const std::string& l : lost)
      named |= l ==
               "allocation sites and ages of 150 objects (where and in which frame each "
               "object was allocated)";
    EXPECT_TRUE(named) << format;
  }
  for (const char* name : {"r.gclog", "r.txt"}) {
    formats::SaveSnapshot(heap, Path(name));
    Diagnostics d;
    const Snapshot back = formats::LoadSnapshot(Path(name), d);
    EXPECT_EQ(back.object_count(), heap.object_count()) << name;
    EXPECT_FALSE(back.has_origins()) << name;
    EXPECT_TRUE(back.object_alloc_frame.empty()) << name;
    EXPECT_TRUE(back.object_alloc_site.empty()) << name;
    for (const std::string& l : formats::FormatLosses(back, "ibm-classic"))
      EXPECT_EQ(l.find("allocation"), std::string::npos) << l;
  }
  formats::SaveSnapshot(heap, Path("r.xrpm"));
  Diagnostics d;
  EXPECT_TRUE(formats::LoadSnapshot(Path("r.xrpm"), d) == heap);
}

}  // namespace
}  // namespace xrpm
