// The readers' id containers (id_hash.h) and the NETCF reader's record counter.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "netcf_reader_chunk.h"
#include "xrpm/formats/netcf_reader.h"
#include "xrpm/model/id_hash.h"

namespace xrpm {
namespace {

TEST(IdBitmap, ExactForAlignedDenseIds) {
  IdBitmap::Span span;
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 5000; ++i) ids.push_back(0x1c0000 + i * 0x30 + (i % 3) * 8);
  for (uint64_t id : ids) span.Add(id);
  ASSERT_TRUE(IdBitmap::FitsBitmap(span, ids.size()));
  IdBitmap b(span, 2);
  for (uint64_t id : ids) EXPECT_TRUE(b.Insert(id));
  EXPECT_FALSE(b.Insert(ids[17]));
  for (uint64_t id : ids) EXPECT_TRUE(b.Contains(id));
  EXPECT_FALSE(b.Contains(0x1c0000 + 4));                    // misaligned
  EXPECT_FALSE(b.Contains(0x1c0000 + 0x30 * 5000 + 0x100));  // beyond the span
  EXPECT_FALSE(b.Contains(0));
  EXPECT_FALSE(b.Contains(ids[1] + 8 * 3));
  EXPECT_LT(b.MemoryBytes(), ids.size() * 8);
}

TEST(IdBitmap, SparseIdsDoNotFit) {
  IdBitmap::Span span;
  span.Add(1);
  span.Add(~uint64_t{0});
  EXPECT_FALSE(IdBitmap::FitsBitmap(span, 2));
}

TEST(IdSet, AgreesWithStdSet) {
  std::mt19937_64 rng(3);
  IdSet s(3000, 2);
  std::set<uint64_t> ref;
  for (int i = 0; i < 3000; ++i) {
    uint64_t id = rng() % 5 == 0 ? rng() % 100 : rng();
    EXPECT_EQ(s.Insert(id, SeededHash(id)), ref.insert(id).second);
  }
  for (int i = 0; i < 3000; ++i) {
    uint64_t id = i % 2 ? rng() : rng() % 100;
    EXPECT_EQ(s.Contains(id, SeededHash(id)), ref.count(id) == 1);
  }
}

TEST(TypeIdMap, GrowsAndFinds) {
  TypeIdMap m;
  for (uint32_t i = 0; i < 1000; ++i) EXPECT_TRUE(m.Insert(i * 7919u, i));
  EXPECT_FALSE(m.Insert(7919u, 5));
  EXPECT_EQ(m.Find(7919u), 1u);
  EXPECT_EQ(m.Find(3), TypeIdMap::kMissing);
  EXPECT_EQ(m.size(), 1000u);
}

// The counter's figures bound what the parser stores, for any text (the reader sizes the
// columns with them and the parser refuses to write past them).
TEST(CountRecords, BoundsWhatTheParserStores) {
  const char alphabet[] = "or o r a t c 0123456789abcdef \t\r\n\n\nxyz";
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    std::string t(rng() % 300, ' ');
    for (char& c : t) c = alphabet[rng() % (sizeof alphabet - 1)];
    formats::RecordCounts bound = formats::CountRecords(t);
    formats::ChunkOptions o;
    o.max_diags = 0;
    formats::ChunkResult r = formats::ParseChunk(t, o);  // counting mode
    ASSERT_LE(r.stored.objects, bound.objects) << t;
    ASSERT_LE(r.stored.refs, bound.refs) << t;
    ASSERT_LE(r.stored.roots, bound.roots) << t;
  }
  const formats::RecordCounts canonical =
      formats::CountRecords("a 2 x\no 1 2 3 4 5\nr 1 2 0\no 2 2 3\n");
  EXPECT_EQ(canonical.objects, 2u);
  EXPECT_EQ(canonical.refs, 2u);
  EXPECT_EQ(canonical.roots, 1u);
}

}  // namespace
}  // namespace xrpm
