#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "xrpm/formats/netcf_writer.h"
#include "xrpm/model/atomic_file.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/snapshot.h"

namespace xrpm {
namespace {

TEST(PodVector, GrowsPastTheMappingThresholdAndKeepsValues) {
  PodVector<uint64_t> v;
  for (uint64_t i = 0; i < 1'000'000; ++i) v.push_back(i * 7);
  ASSERT_EQ(v.size(), 1'000'000u);
  for (uint64_t i = 0; i < 1'000'000; i += 9973) EXPECT_EQ(v[i], i * 7);
  v.shrink_to_fit();
  EXPECT_EQ(v.back(), 999'999u * 7);
  PodVector<uint64_t> copy = v;
  EXPECT_EQ(copy, v);
  copy[5] = 1;
  EXPECT_FALSE(copy == v);
}

Snapshot NetcfSample() {
  Snapshot s;
  s.AddSection({.version = 2, .name = "bubbles.exe", .start_ms = 0x763f9d2, .end_ms = 0x763fbef});
  uint32_t str = s.AddType(0x2, "System.String", 0);
  uint32_t arr = s.AddType(0x1d, "System.Object[]", 0);
  const ObjectId refs[] = {0x1ce11f, 0x1ce14c};
  s.AddObject(0x1ce056, arr, 0x118, refs);
  s.AddObject(0x1ce11f, str, 0x1c, {});
  s.AddObject(0x1ce14c, str, 0x20, {});
  s.AddRoot(0x1ce056, RootKind::kStatic, 0, 0x1d);
  s.AddRoot(0x1ce11f, RootKind::kHandle, kRootWeak | kRootPinned);
  s.CloseSectionRanges();
  return s;
}

TEST(NetcfWriter, WritesCanonicalRecordsInLowercaseHex) {
  std::string out;
  formats::WriteNetcf(NetcfSample(), [&](std::string_view b) { out.append(b); });
  EXPECT_EQ(out,
            "a 2 bubbles.exe 763f9d2\n"
            "t 2 System.String\n"
            "t 1d System.Object[]\n"
            "o 1ce056 1d 118 1ce11f 1ce14c\n"
            "o 1ce11f 2 1c\n"
            "o 1ce14c 2 20\n"
            "r 1ce056 4 0 1d\n"
            "r 1ce11f 3 3\n"
            "c bubbles.exe 763fbef\n");
}

TEST(Snapshot, ColumnsAndTotals) {
  Snapshot s = NetcfSample();
  EXPECT_EQ(s.object_count(), 3u);
  EXPECT_EQ(s.ref_count(), 2u);
  EXPECT_EQ(s.total_bytes(), 0x118u + 0x1c + 0x20);
  EXPECT_EQ(s.object_refs(0).size(), 2u);
  EXPECT_EQ(s.object_refs(1).size(), 0u);
  EXPECT_EQ(s.type_name_of(0), "System.Object[]");
  EXPECT_EQ(RootFlagsName(kRootWeak | kRootPinned), "pinned|weak");
  EXPECT_EQ(RootFlagsName(0), "normal");
  EXPECT_EQ(s, NetcfSample());
}

TEST(AtomicFile, UncommittedWriteLeavesNoFileAndKeepsTheOldOne) {
  std::string path =
      ::testing::TempDir() + "/xrpm_atomic_test_" + std::to_string(getpid()) + ".gclog";
  {
    AtomicFile f(path);
    f.Write("old\n");
    f.Commit();
  }
  {
    AtomicFile f(path);
    f.Write("half-written");
    // destroyed without Commit, as on an error
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "old\n");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace xrpm
