// Bad .gcdump input: truncation anywhere, wrong tags, counts larger than the file, forward
// references that loop, unknown serialized types and broken node records all end in an
// InputError that names the byte offset; none crashes, hangs or allocates beyond the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "file_bytes.h"
#include "gcdump_test_writer.h"
#include "xrpm/formats/gcdump_reader.h"

namespace xrpm {
namespace {

using testing::GcDumpTestWriter;

const std::string kMalformedDir = std::string(XRPM_TEST_DATA) + "/gcdump";

Snapshot ReadMalformed(const std::string& bytes) {
  Diagnostics d;
  return formats::ReadGcDump({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                             "bad.gcdump", d);
}

// The error's code and message of reading `bytes`; fails the test if it loads.
Diagnostic MalformedErrorOf(const std::string& bytes) {
  try {
    ReadMalformed(bytes);
  } catch (const InputError& e) {
    EXPECT_NE(e.diagnostic().message.find("byte offset "), std::string::npos)
        << e.diagnostic().message;
    EXPECT_EQ(e.diagnostic().file, "bad.gcdump");
    return e.diagnostic();
  }
  ADD_FAILURE() << "loaded";
  return {};
}

std::string Small() {
  GcDumpTestWriter w;
  const uint32_t root_t = w.AddType("[.NET Roots]", 0);
  const uint32_t obj_t = w.AddType("System.Object", 24, "System.Private.CoreLib.dll");
  const uint32_t kids[] = {1, 2};
  w.AddNode(root_t, 0, kids, 0);
  const uint32_t next[] = {2};
  w.AddNode(obj_t, -1, next, 0x1000);
  w.AddNode(obj_t, -1, {}, 0x1018);
  return w.Finish();
}

void PutI32(std::string& b, size_t at, int32_t v) {
  std::memcpy(b.data() + at, &v, 4);
}

TEST(GcDumpMalformed, TheHandBuiltSeedLoads) {
  const Snapshot s = ReadMalformed(Small());
  EXPECT_EQ(s.object_count(), 2u);
  EXPECT_EQ(s.root_count(), 2u);
}

TEST(GcDumpMalformed, EveryTruncationFailsWithAnOffset) {
  const std::string full = Small();
  for (size_t n = 0; n < full.size(); ++n) {
    SCOPED_TRACE(n);
    MalformedErrorOf(full.substr(0, n));
  }
  const std::string test1 = testing::FileBytes(kMalformedDir + "/perfview-test1.gcdump");
  for (size_t n = 0; n < test1.size(); n += 997) MalformedErrorOf(test1.substr(0, n));
  MalformedErrorOf(test1 + "x");  // bytes after the trailer
}

TEST(GcDumpMalformed, WrongSignatureAndWrongTags) {
  std::string b = Small();
  b[5] = 'f';
  EXPECT_EQ(MalformedErrorOf(b).code, "not-gcdump");
  b = Small();
  b[24] = 0x42;  // the entry object's BeginObject
  const Diagnostic d = MalformedErrorOf(b);
  EXPECT_EQ(d.code, "bad-tag");
  EXPECT_NE(d.message.find("byte offset 24 "), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("found an unknown tag (66)"), std::string::npos) << d.message;
}

TEST(GcDumpMalformed, CountsLargerThanTheFile) {
  // test1: the graph's type count is at offset 0x60 (after total size and root index).
  const std::string test1 = testing::FileBytes(kMalformedDir + "/perfview-test1.gcdump");
  ASSERT_EQ(static_cast<uint8_t>(test1[0x60]), 0xca);  // 1994
  std::string b = test1;
  PutI32(b, 0x60, 0x7fffffff);
  Diagnostic d = MalformedErrorOf(b);
  EXPECT_EQ(d.code, "bad-count");
  EXPECT_NE(d.message.find("byte offset 96 "), std::string::npos) << d.message;
  PutI32(b, 0x60, -5);
  EXPECT_EQ(MalformedErrorOf(b).code, "bad-count");
  // A string longer than the file.
  b = test1;
  PutI32(b, 0x64, 0x40000000);  // the first type name's length
  EXPECT_EQ(MalformedErrorOf(b).code, "truncated");
}

TEST(GcDumpMalformed, ForwardReferenceLoopsEndOrFail) {
  GcDumpTestWriter w;
  const uint32_t root_t = w.AddType("[.NET Roots]", 0);
  w.AddNode(root_t, 0, {}, 0);
  w.backward_skip_region = true;
  EXPECT_EQ(MalformedErrorOf(w.Finish()).code, "cycle");
  // An object defined through a forward reference that refers to itself is read once.
  GcDumpTestWriter w2;
  w2.AddNode(w2.AddType("[.NET Roots]", 0), 0, {}, 0);
  w2.self_forward_reference = true;
  EXPECT_NO_THROW(ReadMalformed(w2.Finish()));
}

// Fuzz finding (fuzz_gcdump, 2026-11-24): a NaN count multiplier made a Snapshot unequal to
// itself (strict and lenient reads "differed"). Multipliers must be finite and >= 0.
TEST(GcDumpMalformed, CountMultipliersMustBeFiniteAndNotNegative) {
  for (float bad : {std::nanf(""), -1.0f, HUGE_VALF}) {
    GcDumpTestWriter w;
    const uint32_t root_t = w.AddType("[.NET Roots]", 0);
    w.AddNode(root_t, 0, {}, 0);
    w.count_multipliers = {1, bad};
    const Diagnostic d = MalformedErrorOf(w.Finish());
    EXPECT_EQ(d.code, "bad-multiplier");
    EXPECT_NE(d.message.find("count multiplier of type 1"), std::string::npos) << d.message;
  }
}

TEST(GcDumpMalformed, UnknownSerializedType) {
  GcDumpTestWriter w;
  w.AddNode(w.AddType("[.NET Roots]", 0), 0, {}, 0);
  w.unknown_object = true;
  const Diagnostic d = MalformedErrorOf(w.Finish());
  EXPECT_EQ(d.code, "unknown-type");
  EXPECT_NE(d.message.find("'Xrpm.Unknown'"), std::string::npos) << d.message;
}

TEST(GcDumpMalformed, BrokenNodeRecords) {
  {
    GcDumpTestWriter w;  // a child index past the last node
    const uint32_t kids[] = {7};
    w.AddNode(w.AddType("[.NET Roots]", 0), 0, kids, 0);
    const Diagnostic d = MalformedErrorOf(w.Finish());
    EXPECT_EQ(d.code, "bad-node");
    EXPECT_NE(d.message.find("child 7 is not a node index"), std::string::npos) << d.message;
  }
  {
    GcDumpTestWriter w;  // a type index past the type table
    w.AddNode(w.AddType("[.NET Roots]", 0), 0, {}, 0);
    std::string b = w.Finish();
    // The blob: its size (4), the undefined record 00 00, the node's record 02 00.
    const size_t size_at = b.find(std::string("\x04\x00\x00\x00\x00\x00\x02\x00", 8));
    ASSERT_NE(size_at, std::string::npos);
    const size_t blob = size_at + 4;
    b[blob + 2] = 0x3e;  // type 31
    EXPECT_EQ(MalformedErrorOf(b).code, "bad-node");
    b[blob + 2] = static_cast<char>(0x81);  // a varint that runs past the blob
    EXPECT_EQ(MalformedErrorOf(b).code, "bad-node");
  }
}

// Deterministic byte mutations of the seeds: each either loads a consistent snapshot or fails
// with a diagnostic that names the file and a byte offset; both outcomes occur.
TEST(GcDumpMalformed, MutatedSeedsNeverCrash) {
  const std::string seed = Small();
  uint32_t x = 12345;
  int loaded = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string b = seed;
    for (int k = 0; k < 1 + round % 4; ++k) {
      x = x * 1664525u + 1013904223u;
      b[(x >> 8) % b.size()] = static_cast<char>(x >> 24);
    }
    try {
      const Snapshot s = ReadMalformed(b);
      ++loaded;
      ASSERT_EQ(s.object_type.size(), s.object_count());
      ASSERT_EQ(s.ref_end.size(), s.object_count());
      for (size_t o = 0; o < s.object_count(); ++o) {
        ASSERT_LT(s.object_type[o], s.type_count()) << "round " << round;
        ASSERT_LE(s.ref_end[o], s.ref_count()) << "round " << round;
      }
    } catch (const InputError& e) {
      ++refused;
      ASSERT_EQ(e.diagnostic().file, "bad.gcdump") << "round " << round;
      ASSERT_FALSE(e.diagnostic().code.empty()) << "round " << round;
    }
  }
  // A mutation in a name or a count's high bytes still loads; one in the header does not.
  EXPECT_GT(loaded, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace xrpm
