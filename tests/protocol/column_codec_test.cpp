// Column codec: round trips for every width and both encodings, the choice of the smaller
// encoding, and strict rejection of malformed columns.
#include "xrpm/protocol/column_codec.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace xrpm::protocol {
namespace {

std::vector<uint64_t> RandomValues(std::mt19937_64& rng, size_t n, int width) {
  std::vector<uint64_t> v(n);
  const uint64_t mask = width == 64 ? ~0ull : (width == 0 ? 0 : (1ull << width) - 1);
  for (auto& x : v) x = rng() & mask;
  return v;
}

TEST(ColumnCodec, RoundTripsEveryWidth) {
  std::mt19937_64 rng(1);
  for (int width = 0; width <= 64; ++width) {
    for (size_t n : {1u, 7u, 8u, 9u, 100u, 1001u}) {
      auto v = RandomValues(rng, n, width);
      std::string col;
      EncodeColumn(v.data(), v.size(), &col);
      std::vector<uint64_t> out(n, 12345);
      ASSERT_TRUE(DecodeColumn(col, n, out.data())) << "width " << width << " n " << n;
      EXPECT_EQ(out, v) << "width " << width << " n " << n;
    }
  }
}

// VarintLength is the encoders' size estimate (an upper bound a batch is sealed by): it must be
// the exact length of the varint the codec writes, at every bit boundary.
TEST(ColumnCodec, VarintLengthIsTheEncodedLengthAtEveryWidth) {
  for (int bit = 0; bit < 64; ++bit) {
    for (const uint64_t v : {uint64_t{1} << bit, (uint64_t{1} << bit) - 1, ~uint64_t{0} >> bit}) {
      size_t bytes = 1;
      for (uint64_t x = v; x >= 0x80; x >>= 7) ++bytes;
      EXPECT_EQ(VarintLength(v), bytes) << "value " << v;
    }
  }
}

TEST(ColumnCodec, PicksBitPackingForUniformAndVarintsForSkewedData) {
  std::mt19937_64 rng(2);
  auto uniform = RandomValues(rng, 1000, 23);  // random references: 23 bits each
  std::string a;
  EncodeColumn(uniform.data(), uniform.size(), &a);
  EXPECT_EQ(a[0], static_cast<char>(ColumnEncoding::kBitPacked));
  EXPECT_EQ(a.size(), 2 + (1000 * 23 + 7) / 8);

  std::vector<uint64_t> skewed(1000, 3);
  skewed[500] = uint64_t{1} << 40;  // one large array among small objects
  std::string b;
  EncodeColumn(skewed.data(), skewed.size(), &b);
  EXPECT_EQ(b[0], static_cast<char>(ColumnEncoding::kVarint));
  EXPECT_EQ(b.size(), 1 + 999 + VarintLength(uint64_t{1} << 40));

  std::vector<uint64_t> zeros(5000, 0);  // a compacted heap: every gap is 0
  std::string c;
  EncodeColumn(zeros.data(), zeros.size(), &c);
  EXPECT_EQ(c.size(), 2u);  // tag + width 0
}

TEST(ColumnCodec, ThirtyTwoBitColumns) {
  std::vector<uint32_t> v = {0, 1, 0xFFFFFFFFu, 77, 1u << 31};
  std::string col;
  EncodeColumn(v.data(), v.size(), &col);
  std::vector<uint32_t> out(v.size());
  ASSERT_TRUE(DecodeColumn(col, v.size(), out.data()));
  EXPECT_EQ(out, v);
  // A 64-bit value does not decode into a 32-bit column.
  std::vector<uint64_t> big = {uint64_t{1} << 33};
  std::string col64;
  EncodeColumn(big.data(), big.size(), &col64);
  EXPECT_FALSE(DecodeColumn(col64, 1, out.data()));
}

TEST(ColumnCodec, RejectsMalformedColumns) {
  std::vector<uint64_t> v = {1, 300, 70000, 5};
  std::string col;
  EncodeColumn(v.data(), v.size(), &col);
  std::vector<uint64_t> out(8);
  EXPECT_FALSE(DecodeColumn(col, 5, out.data())) << "fewer values than announced";
  EXPECT_FALSE(DecodeColumn(col, 3, out.data())) << "trailing bytes";
  EXPECT_FALSE(DecodeColumn(col.substr(0, col.size() - 1), 4, out.data())) << "truncated";
  EXPECT_FALSE(DecodeColumn(std::string(), 1, out.data())) << "empty";
  EXPECT_FALSE(DecodeColumn(std::string("\x07\x01", 2), 1, out.data())) << "unknown tag";
  EXPECT_FALSE(DecodeColumn(std::string("\x01\x41", 2), 1, out.data())) << "width 65";
  EXPECT_FALSE(DecodeColumn(std::string("\x01\x00\x00", 3), 1, out.data()))
      << "width 0 with payload";
  // Eleven-byte varint.
  std::string overlong("\x00", 1);
  overlong += std::string(10, '\xFF');
  overlong += '\x01';
  EXPECT_FALSE(DecodeColumn(overlong, 1, out.data()));
  // Ten bytes whose last carries more than the 64th bit.
  std::string over64("\x00", 1);
  over64 += std::string(9, '\xFF');
  over64 += '\x02';
  EXPECT_FALSE(DecodeColumn(over64, 1, out.data()));
  // The maximum value in ten bytes is fine.
  std::string max64("\x00", 1);
  max64 += std::string(9, '\xFF');
  max64 += '\x01';
  ASSERT_TRUE(DecodeColumn(max64, 1, out.data()));
  EXPECT_EQ(out[0], ~uint64_t{0});
}

TEST(ColumnCodec, ZigZag) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{1} << 40, -(int64_t{1} << 40),
                    INT64_MAX, INT64_MIN})
    EXPECT_EQ(UnZigZag(ZigZag(v)), v);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
}

}  // namespace
}  // namespace xrpm::protocol
