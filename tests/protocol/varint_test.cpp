// Varint primitives (protocol/include/xrpm/protocol/varint.h): the word-at-a-time writer and
// reader against a plain byte loop, at every bit width, at the end of a buffer and on bad input.
#include "xrpm/protocol/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace xrpm::protocol {
namespace {

std::vector<uint8_t> Reference(uint64_t v) {
  std::vector<uint8_t> out;
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
  return out;
}

std::vector<uint64_t> ValuesOfEveryWidth() {
  std::vector<uint64_t> values = {0, 1, 0x7F, 0x80, UINT64_MAX};
  std::mt19937_64 rng(3);
  for (int width = 1; width <= 64; ++width) {
    const uint64_t top = uint64_t{1} << (width - 1);
    values.push_back(top);
    values.push_back(top | (top - 1));  // all ones of this width
    for (int k = 0; k < 20; ++k) values.push_back(top | (rng() & (top - 1)));
  }
  return values;
}

TEST(Varint, WritesTheBytesOfTheByteLoopAtEveryWidth) {
  for (uint64_t v : ValuesOfEveryWidth()) {
    std::vector<uint8_t> buf(20, 0xEE);
    uint8_t* end = PutVarint(buf.data(), v);
    const std::vector<uint8_t> want = Reference(v);
    ASSERT_EQ(static_cast<size_t>(end - buf.data()), want.size()) << v;
    ASSERT_EQ(want.size(), VarintLength(v)) << v;
    EXPECT_TRUE(std::equal(want.begin(), want.end(), buf.data())) << v;
  }
}

TEST(Varint, ReadsBackEveryWidthWhereverTheBufferEnds) {
  for (uint64_t v : ValuesOfEveryWidth()) {
    const std::vector<uint8_t> bytes = Reference(v);
    // Followed by more bytes (the word-at-a-time path) and alone at the buffer's end (the loop).
    for (size_t pad : {0, 1, 7, 16}) {
      std::vector<uint8_t> buf = bytes;
      buf.insert(buf.end(), pad, 0xFF);
      const uint8_t* p = buf.data();
      uint64_t got = 0;
      ASSERT_TRUE(GetVarint(&p, buf.data() + buf.size(), &got)) << v << " pad " << pad;
      EXPECT_EQ(got, v);
      EXPECT_EQ(static_cast<size_t>(p - buf.data()), bytes.size());
    }
  }
}

TEST(Varint, ASequenceReadsBackInOrder) {
  const std::vector<uint64_t> values = ValuesOfEveryWidth();
  std::vector<uint8_t> buf(values.size() * 10 + 8);
  uint8_t* w = buf.data();
  for (uint64_t v : values) w = PutVarint(w, v);
  const uint8_t* r = buf.data();
  const uint8_t* const end = w;
  for (uint64_t v : values) {
    uint64_t got = 0;
    ASSERT_TRUE(GetVarint(&r, end, &got));
    ASSERT_EQ(got, v);
  }
  EXPECT_EQ(r, end);
}

TEST(Varint, RefusesAVarintCutShortOrLongerThanTenBytes) {
  const std::vector<uint8_t> cut = {0x80, 0x80, 0x80};
  const uint8_t* p = cut.data();
  uint64_t v = 0;
  EXPECT_FALSE(GetVarint(&p, cut.data() + cut.size(), &v));
  std::vector<uint8_t> eleven(11, 0x80);
  eleven.push_back(0x01);
  p = eleven.data();
  EXPECT_FALSE(GetVarint(&p, eleven.data() + eleven.size(), &v));
  const uint8_t* empty = cut.data();
  EXPECT_FALSE(GetVarint(&empty, cut.data(), &v));
}

}  // namespace
}  // namespace xrpm::protocol
