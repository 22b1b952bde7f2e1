// Test helpers for the .NET port's record stream (device-agent/ports/dotnet/src/record_stream.h):
// objects made to be appended (Made), appended and read back (Put, ExpectSame, the slices'
// readers), a mixed stream of many, and this process's resident memory. Shared by the stream's
// format tests and its transfer tests.
//
// Thread-safety: the helpers keep no state; each test uses its own streams.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "record_stream.h"

namespace xrpm::dotnet {

struct Made {
  uint64_t id;
  uintptr_t klass;
  uint32_t size;
  bool values_read;
  std::vector<uint64_t> refs;
  std::vector<uint32_t> slots;
  std::vector<uint64_t> values;
  std::vector<uint16_t> text;
};

// A reader's vector as a std::vector, to compare with what was made.
template <typename T>
std::vector<T> Std(const RecordVector<T>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The reader's next object's id and references, its chunks put together (*refs unchanged at
// the end).
inline bool NextRefs(RecordStream::Reader& reader, uint64_t* id, std::vector<uint64_t>* refs) {
  std::vector<uint64_t> got;
  if (!reader.NextRefs(id, [&](const uint64_t* chunk, size_t n) {
        EXPECT_LE(n, RecordStream::Reader::kRefChunk);
        got.insert(got.end(), chunk, chunk + n);
      }))
    return false;
  *refs = std::move(got);
  return true;
}

inline void Put(RecordStream& s, const Made& m) {
  s.Append(m.id, m.klass, m.size, m.values_read, m.refs.data(), m.slots.data(), m.refs.size(),
           m.values.data(), m.values.size(), m.text.data(), m.text.size());
}

inline void ExpectSame(const RecordStream& s, const std::vector<Made>& made) {
  RecordStream::Reader reader(s);
  StreamObject o;
  for (size_t i = 0; i < made.size(); ++i) {
    ASSERT_TRUE(reader.Next(&o)) << "object " << i;
    const Made& m = made[i];
    EXPECT_EQ(o.id, m.id) << i;
    EXPECT_EQ(o.klass, m.klass) << i;
    EXPECT_EQ(s.classes()[o.class_index], m.klass) << i;
    EXPECT_EQ(o.size, m.size) << i;
    EXPECT_EQ(o.values_read, m.values_read) << i;
    EXPECT_EQ(Std(o.refs), m.refs) << i;
    EXPECT_EQ(Std(o.slots), m.slots) << i;
    EXPECT_EQ(o.values, m.values) << i;
    EXPECT_EQ(o.text, m.text) << i;
  }
  EXPECT_FALSE(reader.Next(&o));
  // Again with every object of more than 3 references in parts (Part, kRefChunk at a time):
  // the same references and slots, the values and text before them.
  RecordStream::Reader parted(s);
  for (size_t i = 0; i < made.size(); ++i) {
    ASSERT_TRUE(parted.Next(&o, 3)) << "object " << i;
    const Made& m = made[i];
    EXPECT_EQ(o.id, m.id) << i;
    EXPECT_EQ(o.ref_count, m.refs.size()) << i;
    EXPECT_EQ(o.values, m.values) << i;
    EXPECT_EQ(o.text, m.text) << i;
    if (m.refs.size() <= 3) {
      EXPECT_FALSE(parted.Part(&o)) << i;
      EXPECT_EQ(Std(o.refs), m.refs) << i;
      continue;
    }
    EXPECT_TRUE(o.refs.empty()) << i;
    std::vector<uint64_t> refs;
    std::vector<uint32_t> slots;
    while (parted.Part(&o)) {
      EXPECT_LE(o.refs.size(), RecordStream::Reader::kRefChunk);
      refs.insert(refs.end(), o.refs.begin(), o.refs.end());
      slots.insert(slots.end(), o.slots.begin(), o.slots.end());
    }
    EXPECT_EQ(refs, m.refs) << i;
    EXPECT_EQ(slots, m.slots) << i;
  }
  EXPECT_FALSE(parted.Next(&o, 3));
}

// Appends `made` to `s` and reads it back whole.
inline void PutAndExpectSame(RecordStream& s, const std::vector<Made>& made) {
  for (const Made& m : made) Put(s, m);
  ExpectSame(s, made);
}

using IdsAndRefs = std::vector<std::pair<uint64_t, std::vector<uint64_t>>>;

// The stream read in `parts` slices, one after the other, gives `whole`'s ids and references in
// order, each object once (slots, values and text stepped over).
inline void ExpectSlicesGive(const RecordStream& s, const IdsAndRefs& whole, size_t parts) {
  size_t at = 0;
  for (size_t part = 0; part < parts; ++part) {
    RecordStream::Reader reader(s, part, parts);
    uint64_t id;
    std::vector<uint64_t> refs;
    while (NextRefs(reader, &id, &refs)) {
      ASSERT_LT(at, whole.size()) << parts;
      ASSERT_EQ(id, whole[at].first) << parts << " " << at;
      ASSERT_EQ(refs, whole[at].second) << parts << " " << at;
      ++at;
    }
  }
  EXPECT_EQ(at, whole.size()) << parts;
}

// This process's resident bytes (/proc/self/statm), 0 where unreadable.
inline size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// A mixed stream of `count` objects (several checkpoints' worth, many classes, text, values,
// runs of one shape).
inline std::vector<Made> MixedObjects(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Made> made;
  uint64_t id = 0x7f2000000000;
  for (size_t i = 0; i < count; ++i) {
    Made m{id, 0x7e0000000000 + 64 * (i / 7 % 300), 24, i % 5 != 0, {}, {}, {}, {}};
    for (size_t r = 0; r < i % 4; ++r) {
      m.refs.push_back(id + 8 * (rng() % 100000) - 400000);
      m.slots.push_back(static_cast<uint32_t>(r));
    }
    if (m.values_read) m.values = {i, rng() % 3};
    if (i % 997 == 0) m.text = {'k', 'e', 'y', static_cast<uint16_t>(0x100 + i % 7)};
    made.push_back(std::move(m));
    id += 8 * (3 + rng() % 5);
  }
  return made;
}

}  // namespace xrpm::dotnet
