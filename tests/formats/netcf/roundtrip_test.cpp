// read(write(x)) == x for random models, and write(read(f)) == f for canonical files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include "file_bytes.h"
#include "netcf_gen.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/formats/netcf_writer.h"

namespace xrpm {
namespace {

using testing::FileBytes;

std::string WriteNetcf(const Snapshot& s) {
  std::string out;
  formats::WriteNetcf(s, [&](std::string_view b) { out.append(b); });
  return out;
}

// Explains the first difference, so a failing seed is easy to debug.
std::string FirstDifference(const Snapshot& a, const Snapshot& b) {
  if (a.sections.size() != b.sections.size()) return "section count";
  for (size_t i = 0; i < a.sections.size(); ++i)
    if (!(a.sections[i] == b.sections[i]))
      return "section " + std::to_string(i) + " '" + b.sections[i].name + "'";
  if (a.types.size() != b.types.size()) return "type count";
  for (size_t i = 0; i < a.types.size(); ++i)
    if (!(a.types[i] == b.types[i]))
      return "type " + std::to_string(i) + " '" + b.types[i].name + "'";
  if (!(a.object_id == b.object_id)) return "object ids";
  if (!(a.object_type == b.object_type)) return "object types";
  if (!(a.refs == b.refs) || !(a.ref_end == b.ref_end)) return "refs";
  return "roots";
}

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, ReadOfWriteIsIdentity) {
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()) * 7919 + 1);
  for (int iter = 0; iter < 25; ++iter) {
    Snapshot x = testing::RandomModel(rng);
    const std::string text = WriteNetcf(x);
    for (unsigned threads : {1u, 2u, 3u}) {
      Diagnostics d;
      formats::ReadOptions ro;
      ro.threads = threads;
      Snapshot y = formats::ReadNetcf(text, "rt.gclog", d, ro);
      ASSERT_TRUE(x == y) << "seed " << GetParam() << " iter " << iter << " threads " << threads
                          << ": " << FirstDifference(x, y) << "\n"
                          << text;
      // And the canonical text is a fixed point.
      ASSERT_EQ(WriteNetcf(y), text);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RoundTrip, ::testing::Range(0, 8));

TEST(RoundTripFile, CanonicalSampleIsByteIdentical) {
  const std::string path = XRPM_TEST_DATA "/netcf/bubbles.gclog";
  const std::string text = FileBytes(path);
  ASSERT_GT(text.size(), 10000u);
  Diagnostics d;
  Snapshot s = formats::ReadNetcfFile(path, d);
  EXPECT_TRUE(d.empty()) << d.kept().front().ToString();
  EXPECT_EQ(WriteNetcf(s), text);
}

TEST(RoundTripFile, WriteFileThenReadFile) {
  std::mt19937_64 rng(42);
  Snapshot x = testing::RandomModel(rng);
  const std::string path =
      ::testing::TempDir() + "/xrpm_netcf_rt_" + std::to_string(getpid()) + ".gclog";
  formats::WriteNetcfFile(x, path);
  Diagnostics d;
  Snapshot y = formats::ReadNetcfFile(path, d);
  EXPECT_TRUE(x == y);
  std::remove(path.c_str());
}

// A big generated heap parsed with several threads: chunk boundaries fall inside the section
// and mid-way through the objects; the result must match the single-threaded parse.
TEST(RoundTripFile, ParallelChunksAgreeWithOneThread) {
  std::string text;
  testing::WriteGameHeap(30000, 7, [&](std::string_view b) { text.append(b); });
  Diagnostics d1, d3;
  formats::ReadOptions one, three;
  one.threads = 1;
  three.threads = 3;
  Snapshot a = formats::ReadNetcf(text, "g", d1, one);
  Snapshot b = formats::ReadNetcf(text, "g", d3, three);
  EXPECT_TRUE(d1.empty());
  EXPECT_TRUE(d3.empty());
  EXPECT_EQ(a.object_count(), 30000u);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(WriteNetcf(b), text);
}

}  // namespace
}  // namespace xrpm
