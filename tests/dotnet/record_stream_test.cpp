// RecordStream (device-agent/ports/dotnet/src/record_stream.h): what goes in comes back out,
// object for object, whatever the addresses, classes, slots, values and text; and the stream is
// several times smaller than fixed-size records on a heap whose references point nearby.
#include "record_stream.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sanitizers.h"
#include "xrpm/agent/walk_recording.h"
#include "xrpm/protocol/varint.h"

namespace xrpm::dotnet {
namespace {

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
bool NextRefs(RecordStream::Reader& reader, uint64_t* id, std::vector<uint64_t>* refs) {
  std::vector<uint64_t> got;
  if (!reader.NextRefs(id, [&](const uint64_t* chunk, size_t n) {
        EXPECT_LE(n, RecordStream::Reader::kRefChunk);
        got.insert(got.end(), chunk, chunk + n);
      }))
    return false;
  *refs = std::move(got);
  return true;
}

void Put(RecordStream& s, const Made& m) {
  s.Append(m.id, m.klass, m.size, m.values_read, m.refs.data(), m.slots.data(), m.refs.size(),
           m.values.data(), m.values.size(), m.text.data(), m.text.size());
}

void ExpectSame(const RecordStream& s, const std::vector<Made>& made) {
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
void PutAndExpectSame(RecordStream& s, const std::vector<Made>& made) {
  for (const Made& m : made) Put(s, m);
  ExpectSame(s, made);
}

using IdsAndRefs = std::vector<std::pair<uint64_t, std::vector<uint64_t>>>;

// The stream read in `parts` slices, one after the other, gives `whole`'s ids and references in
// order, each object once (slots, values and text stepped over).
void ExpectSlicesGive(const RecordStream& s, const IdsAndRefs& whole, size_t parts) {
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

TEST(RecordStream, GivesBackEveryObjectAsAppended) {
  std::vector<Made> made = {
      {0x7f0000001000, 0x7e0000000100, 24, true, {0x7f0000001018}, {0}, {42}, {}},
      // A string: its length and its text.
      {0x7f0000001018, 0x7e0000000200, 30, true, {}, {}, {3}, {'a', 'b', 0xd83d}},
      // Backwards, far, with a reference into another region and no slot, no values read.
      {0x7e0000000010, 0x7e0000000100, 24, false, {0x7f0000001000, 0x10}, {0xffffffffu, 7}, {}, {}},
      // Not 8-aligned (never in CoreCLR on 64-bit, kept exact anyway); extreme values.
      {0x7f0000001003,
       0x7e0000000300,
       0xffffffffu,
       true,
       {1, UINT64_MAX},
       {0xfffffffeu, 3},
       {UINT64_MAX, 0, 1},
       {}},
      {0, 0x7e0000000100, 0, false, {}, {}, {}, {}},
  };
  RecordStream s;
  for (const Made& m : made) Put(s, m);
  EXPECT_EQ(s.object_count(), made.size());
  EXPECT_EQ(s.ref_count(), 5u);
  ASSERT_EQ(s.classes().size(), 3u);  // in order of first appearance
  EXPECT_EQ(s.classes()[0], 0x7e0000000100u);
  EXPECT_EQ(s.classes()[2], 0x7e0000000300u);
  ExpectSame(s, made);
}

// Many classes (the class table grows and rehashes), a buffer far too small at first (it grows),
// then Clear and Release: the next objects read back from the start, with classes renumbered.
TEST(RecordStream, GrowsPastItsReservationAndStartsOverAfterClear) {
  std::mt19937_64 rng(7);
  std::vector<Made> made;
  uint64_t address = 0x7f1000000000;
  for (int i = 0; i < 20000; ++i) {
    Made m{address,
           0x7e0000000000 + 64 * (rng() % 5000),
           static_cast<uint32_t>(24 + 8 * (i % 9)),
           i % 3 != 0,
           {},
           {},
           {},
           {}};
    for (int r = 0; r < i % 5; ++r) {
      m.refs.push_back(address + 8 * (rng() % 4096) - 16384);
      m.slots.push_back(static_cast<uint32_t>(r));
    }
    if (m.values_read) m.values.push_back(rng() >> (rng() % 64));
    address += (m.size + 7) & ~uint64_t{7};
    made.push_back(m);
  }
  RecordStream s;
  s.Reserve(100, 100, 4);
  for (const Made& m : made) Put(s, m);
  ExpectSame(s, made);

  s.Clear();
  EXPECT_EQ(s.object_count(), 0u);
  EXPECT_TRUE(s.classes().empty());
  made.resize(50);
  for (const Made& m : made) Put(s, m);
  ExpectSame(s, made);
  s.Release();
  EXPECT_EQ(s.bytes(), 0u);
  RecordStream::Reader reader(s);
  StreamObject o;
  EXPECT_FALSE(reader.Next(&o));
}

// Objects of more references than a chunk come back in parts of kRefChunk (ExpectSame reads
// them whole and in parts): far references in groups with slots of their own, an array's run
// of slots, a near run, with values, and objects of one shape after them.
TEST(RecordStream, LargeObjectsComeBackInParts) {
  std::mt19937_64 rng(11);
  std::vector<Made> made;
  uint64_t address = 0x7f2000000000;
  auto add = [&](size_t refs, bool run, bool far, uint32_t first_slot) {
    Made m{address,
           0x7e0000000100 + 64 * (refs % 3),
           static_cast<uint32_t>(24 + 8 * refs),
           true,
           {},
           {},
           {refs, rng() >> 40},
           {}};
    for (size_t r = 0; r < refs; ++r) {
      m.refs.push_back(far ? 0x7f2000000000 + 8 * (rng() % (size_t{1} << 23))
                           : address + 8 * (r + 1));
      m.slots.push_back(run ? first_slot + static_cast<uint32_t>(r)
                            : static_cast<uint32_t>(rng() % 5000));
    }
    address += (m.size + 7) & ~uint64_t{7};
    made.push_back(m);
  };
  add(2502, false, true, 0);   // three parts, the last one of 454 (its last group of 4 short)
  add(3000, true, true, 0);    // an array without nulls
  add(1025, true, false, 7);   // a chunk and one
  add(1024, false, false, 0);  // exactly a chunk
  for (int i = 0; i < 4; ++i) add(2, true, false, 0);  // of one shape
  add(4096, true, true, 0);
  RecordStream s;
  PutAndExpectSame(s, made);
}

// Slots that run on by one from the first (a class's reference fields in order, an array
// without nulls) are written once per object, not once per reference: the same objects take a
// byte per reference less than with slots out of order, and every slot comes back, whether the
// run starts at 0, ends just below kNoSlot, or is broken by a kNoSlot or a gap.
TEST(RecordStream, SlotsInARunAreWrittenOnce) {
  const uint64_t base = 0x7f4000000000;
  auto objects = [&](bool in_run) {
    std::vector<Made> made;
    for (uint64_t i = 0; i < 1000; ++i) {
      Made m{base + 64 * i, 0x7e0000000100, 64, true, {}, {}, {i}, {}};
      for (uint32_t r = 0; r < 4; ++r) {
        m.refs.push_back(base + 64 * ((i * 7 + r * 13) % 1000));
        m.slots.push_back(in_run ? 2 + r : 2 + (r ^ 1));  // 2 3 4 5, or 3 2 5 4
      }
      made.push_back(m);
    }
    return made;
  };
  RecordStream run, shuffled;
  const std::vector<Made> run_made = objects(true), shuffled_made = objects(false);
  PutAndExpectSame(run, run_made);
  PutAndExpectSame(shuffled, shuffled_made);
  // Both repeat the first object's shape (below); the run's objects write no slot at all, the
  // first one its first slot once.
  EXPECT_EQ(shuffled.bytes() - run.bytes(), 4u * 1000 - 1);

  const uint32_t no = 0xffffffffu;  // agent::kNoSlot
  std::vector<Made> edges = {
      {base, 0x7e0000000100, 32, false, {base + 8, base + 16}, {no - 2, no - 1}, {}, {}},
      {base + 32, 0x7e0000000100, 32, false, {base + 8, base + 16}, {no - 1, no}, {}, {}},
      {base + 64, 0x7e0000000100, 32, false, {base + 8, base + 16}, {no, 0}, {}, {}},
      {base + 96, 0x7e0000000100, 32, false, {base + 8, base + 16, base}, {0, 1, 3}, {}, {}},
      {base + 128, 0x7e0000000100, 32, false, {base + 8}, {no}, {}, {}},
      {base + 160, 0x7e0000000100, 32, false, {base + 8}, {7}, {}, {}},
  };
  RecordStream s;
  PutAndExpectSame(s, edges);
  // The readers of slices step over a run's first slot too.
  RecordStream::Reader slice(s, 0, 1);
  uint64_t id = 0;
  std::vector<uint64_t> refs;
  for (const Made& m : edges) {
    ASSERT_TRUE(NextRefs(slice, &id, &refs));
    EXPECT_EQ(id, m.id);
    EXPECT_EQ(refs, m.refs);
  }
  EXPECT_FALSE(NextRefs(slice, &id, &refs));
}

// Objects of the previous object's shape (class, size, reference count, slot run, value count)
// write their flags and id only: 4 header bytes fewer than objects of alternating classes. A
// string between them (text never repeats a shape) and the checkpoints where the readers of
// slices start break the repetition; every object reads back, whole and in slices.
TEST(RecordStream, ObjectsOfOneShapeWriteTheirIdAndReferencesOnly) {
  constexpr size_t kObjects = 200000;  // checkpoints at 0, 65,536, 131,072 and 196,608
  const uint64_t base = 0x7f5000000000;
  auto objects = [&](bool alternate) {
    std::vector<Made> made;
    for (size_t i = 0; i < kObjects; ++i) {
      const uint64_t id = base + 40 * i;
      const uintptr_t klass = alternate && i % 2 ? 0x7e0000000200 : 0x7e0000000100;
      Made m{id, klass, 40, true, {id + 40, id + 80, id + 120}, {1, 2, 3}, {i % 100}, {}};
      if (i % 50000 == 7) m = Made{id, 0x7e0000000300, 40, true, {}, {}, {2}, {'h', 'i'}};
      made.push_back(m);
    }
    return made;
  };
  RecordStream one, two;
  const std::vector<Made> one_made = objects(false), two_made = objects(true);
  PutAndExpectSame(one, one_made);
  PutAndExpectSame(two, two_made);
  // Class, size, reference count and first slot: 4 bytes per object, but for the few that
  // follow a string or a checkpoint.
  EXPECT_GE(two.bytes() - one.bytes(), 4 * (kObjects - 20));
  EXPECT_LT(one.bytes(), 7 * kObjects);  // flags, id, 3 nearby references, a value

  IdsAndRefs whole;
  for (const Made& m : one_made) whole.emplace_back(m.id, m.refs);
  for (const size_t parts : {size_t{2}, size_t{3}, size_t{4}}) ExpectSlicesGive(one, whole, parts);
}

// An object of the previous one's shape codes its values as differences from that one's when
// that is shorter: a counter and a float the same in each take a byte each instead of 3 and 5.
// Values that differ at random stay as they are; a reader that steps over some objects'
// values (NextRefs) still reads the next ones' right.
TEST(RecordStream, ValuesOfOneShapeAreDifferencesWhereShorter) {
  constexpr size_t kObjects = 10000;
  const uint64_t base = 0x7f7000000000;
  std::mt19937_64 rng(9);
  std::vector<Made> counters, random;
  for (size_t i = 0; i < kObjects; ++i) {
    const uint64_t id = base + 32 * i;
    counters.push_back({id, 0x7e0000000100, 32, true, {}, {}, {1000000 + i, 0x3F800000}, {}});
    random.push_back({id, 0x7e0000000100, 32, true, {}, {}, {rng(), rng() >> 40}, {}});
  }
  RecordStream c, r;
  PutAndExpectSame(c, counters);
  PutAndExpectSame(r, random);
  // Flags, id and two one-byte differences, but for the first object.
  EXPECT_LE(c.bytes(), 4 * kObjects + 16);
  // At most what the values take as varints.
  size_t raw = 0;
  for (const Made& m : random)
    raw += 2 + protocol::VarintLength(m.values[0]) + protocol::VarintLength(m.values[1]);
  EXPECT_LE(r.bytes(), raw + 16);

  RecordStream::Reader reader(c);
  StreamObject o;
  uint64_t id;
  std::vector<uint64_t> refs;
  for (size_t i = 0; i < kObjects; ++i) {
    if (i % 3 == 0) {
      ASSERT_TRUE(NextRefs(reader, &id, &refs));
      EXPECT_EQ(id, counters[i].id);
    } else {
      ASSERT_TRUE(reader.Next(&o));
      EXPECT_EQ(o.values, counters[i].values) << i;
    }
  }
}

// A string's text of units below 0x80 takes a byte per unit, any other two; both read back
// exactly, whole and stepped over by the readers of slices.
TEST(RecordStream, TextBelow0x80TakesAByteAUnit) {
  const uint64_t base = 0x7f8000000000;
  std::vector<uint16_t> ascii(100, 'a'), wide(100, 'a');
  ascii[7] = 0x7F;  // the last narrow unit
  wide[7] = 0xE9;   // é
  std::vector<Made> made = {
      {base, 0x7e0000000200, 230, true, {}, {}, {100}, ascii},
      {base + 232, 0x7e0000000200, 230, true, {}, {}, {100}, wide},
      {base + 464, 0x7e0000000100, 24, false, {base}, {1}, {}, {}},
  };
  RecordStream one, two;
  Put(one, made[0]);
  Put(two, made[1]);
  EXPECT_LT(one.bytes(), 100 + 16u);
  EXPECT_GE(two.bytes(), 200u);
  RecordStream s;
  PutAndExpectSame(s, made);
  IdsAndRefs whole;
  for (const Made& m : made) whole.emplace_back(m.id, m.refs);
  ExpectSlicesGive(s, whole, 1);
}

// The point of the stream: a heap of 4 references per object, each to an object within a few
// MiB of its holder, takes a third of the 32 + 12 x 4 + 8 bytes fixed records took.
TEST(RecordStream, IsSmallOnAHeapOfNearbyReferences) {
  std::mt19937_64 rng(1);
  RecordStream s;
  constexpr int kObjects = 100000;
  const uint64_t base = 0x7f2000000000;
  std::vector<uint64_t> refs(4);
  std::vector<uint32_t> slots = {0, 1, 2, 3};
  for (int i = 0; i < kObjects; ++i) {
    const uint64_t id = base + 48 * static_cast<uint64_t>(i);
    for (uint64_t& r : refs) r = base + 48 * (rng() % kObjects);  // 4.8 MB of heap
    const uint64_t value = i;
    s.Append(id, 0x7e0000000100, 48, true, refs.data(), slots.data(), 4, &value, 1, nullptr, 0);
  }
  const double per_object = static_cast<double>(s.bytes()) / kObjects;
  EXPECT_LT(per_object, (32 + 12 * 4 + 8) / 3.0);
  EXPECT_GT(per_object, 4 * 1.0);  // at least a byte per reference: it measured
}

// Far references are coded in groups of four behind a tag byte of their lengths: one within
// 64 MiB of the one before takes 3 bytes and a quarter where a varint took 4. Near ones stay
// varints (a tag byte would cost more than it saves), and so do references more than 16 GiB
// apart. Each length (1-4 bytes) at each place in a group, a group cut short by the object's
// end, and the objects of one shape coded either way all read back exactly.
TEST(RecordStream, FarReferencesTakeTheBytesTheirDistanceNeeds) {
  std::mt19937_64 rng(3);
  const uint64_t base = 0x7f6000000000;
  constexpr size_t kObjects = 100000;
  std::vector<Made> random;
  for (size_t i = 0; i < kObjects; ++i) {
    Made m{base + 48 * i, 0x7e0000000100, 48, false, {}, {0, 1, 2}, {}, {}};
    for (int r = 0; r < 3; ++r) m.refs.push_back(base + 8 * (rng() % (size_t{48} << 20) / 8));
    random.push_back(m);
  }
  RecordStream s;
  PutAndExpectSame(s, random);
  // Flags, id (same shape), a tag byte and three references of at most 3 bytes each.
  EXPECT_LE(s.bytes(), kObjects * (2 + 1 + 3 * 3) + 16);
  EXPECT_GT(s.bytes(), kObjects * (2 + 1 + 3 * 2.5));  // most take 3: it measured

  // Differences in 8-byte units at the top of each length: 1, 2, 3 and 4 bytes in a group
  // (2, 3, 4 and 5 as varints), then 4, 3, 2, 1, then one alone.
  const int64_t steps[] = {100,        30000,  1 << 22, 1 << 29, -(1 << 29),
                           -(1 << 22), -30000, -100,    1 << 29};
  Made lengths{4096, 0x7e0000000200, 40, true, {}, {}, {5}, {}};
  uint64_t at = lengths.id;
  for (const int64_t step : steps) {
    at += static_cast<uint64_t>(step * 8);
    lengths.refs.push_back(at);
    lengths.slots.push_back(static_cast<uint32_t>(9 - lengths.slots.size()));  // not a run
  }
  const uint64_t far = uint64_t{1} << 40;
  std::vector<Made> mixed = {
      lengths,
      // 1 TiB apart: varints; then the same shape, near: varints.
      {base, 0x7e0000000100, 24, false, {base + far, base, 8}, {0, 1, 2}, {}, {}},
      {base + 24, 0x7e0000000100, 24, false, {base + 8, base, base + 16}, {0, 1, 2}, {}, {}},
      // 16 GiB back: the farthest a group's 4 bytes reach; then 8 bytes farther, a varint;
      // then a reference 32 MiB away in an object of that shape: grouped.
      {base + 48, 0x7e0000000100, 24, false, {base + 48 - (uint64_t{16} << 30)}, {4}, {}, {}},
      {base + 72, 0x7e0000000100, 24, false, {base + 72 - (uint64_t{16} << 30) - 8}, {4}, {}, {}},
      {base + 96, 0x7e0000000100, 24, false, {base + 96 + (uint64_t{32} << 20)}, {4}, {}, {}},
  };
  RecordStream m;
  PutAndExpectSame(m, mixed);
  IdsAndRefs whole;
  for (const Made& x : mixed) whole.emplace_back(x.id, x.refs);
  ExpectSlicesGive(m, whole, 1);
  // The first object alone: a 6-byte header (flags, id 4096 in 2 bytes, class, size, count),
  // its 9 references in groups (3 tag bytes, 1+2+3+4 + 4+3+2+1 + 4 bytes, not 2+3+4+5 +
  // 5+4+3+2 + 5 as varints), their slots (a byte each) and its value.
  RecordStream one;
  Put(one, lengths);
  EXPECT_EQ(one.bytes(), 6u + 3 + 24 + 9 + 1);
}

// A reservation the objects' bytes fit in (with room for one run of 1,024 references' worst
// case) is never grown, even by an array of a million references whose worst case (16 bytes
// each) would not fit: the bytes stay where they were.
TEST(RecordStream, ABigArrayFitsInAReservationItsBytesFitIn) {
  constexpr size_t kElements = 1000000;
  std::vector<uint64_t> refs(kElements);
  std::vector<uint32_t> slots(kElements);
  const uint64_t array = 0x7f3000000000;
  for (size_t i = 0; i < kElements; ++i) {
    refs[i] = array + 8 * 1024 + 24 * i;  // the elements right after it: a byte each
    slots[i] = static_cast<uint32_t>(i);  // 1-3 bytes each
  }
  RecordStream measure;
  measure.Append(array, 0x7e0000000100, 8 * 1024, false, refs.data(), slots.data(), kElements,
                 nullptr, 0, nullptr, 0);
  ASSERT_LT(measure.bytes(), kElements * 5);

  RecordStream s;
  const size_t reservation = measure.bytes() + 1024 * 16 + 64;
  s.Reserve(reservation, reservation, 1);
  s.Append(array, 0x7e0000000100, 8 * 1024, false, refs.data(), slots.data(), kElements, nullptr, 0,
           nullptr, 0);
  EXPECT_EQ(s.bytes(), measure.bytes());
  EXPECT_EQ(s.reserved(), reservation) << "grown inside the reservation";
  RecordStream::Reader reader(s);
  StreamObject o;
  ASSERT_TRUE(reader.Next(&o));
  EXPECT_EQ(Std(o.refs), refs);
  EXPECT_EQ(Std(o.slots), slots);
  // Read a chunk at a time (NextRefs), the same references.
  RecordStream::Reader chunks(s);
  uint64_t id = 0;
  std::vector<uint64_t> got;
  ASSERT_TRUE(NextRefs(chunks, &id, &got));
  EXPECT_EQ(got, refs);

  // No slots given: the elements 0, 1, 2, ... in the same bytes.
  RecordStream implied;
  implied.Append(array, 0x7e0000000100, 8 * 1024, false, refs.data(), nullptr, kElements, nullptr,
                 0, nullptr, 0);
  EXPECT_EQ(implied.bytes(), measure.bytes());
  RecordStream::Reader again(implied);
  ASSERT_TRUE(again.Next(&o));
  EXPECT_EQ(Std(o.slots), slots);
}

// This process's resident bytes (/proc/self/statm), 0 where unreadable.
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Reserve maps room to grow in without a copy but brings into memory only what it is told the
// record will take: the rest costs the process nothing unless the record is written there.
TEST(RecordStream, MapsRoomBeyondWhatItBringsIntoMemory) {
  constexpr size_t kMiB = size_t{1} << 20;
  RecordStream s;
  const size_t before = ResidentBytes();
  ASSERT_GT(before, 0u);
  s.Reserve(96 * kMiB, 16 * kMiB, 1);
  const size_t after = ResidentBytes();
  EXPECT_GE(s.reserved(), 96 * kMiB);
  EXPECT_GE(after, before + 15 * kMiB) << "the expected bytes are in memory";
  EXPECT_LT(after, before + 48 * kMiB) << "the room beyond them is not";
}

// Slices for several readers at once: together, in order, they give every object once, its id
// and references as the whole reader gives them (slots, values and text stepped over), however
// many slices and objects (fewer objects than slices too); objects appended after a slice's
// reader was made are read by the last slice, as by the whole reader.
TEST(RecordStream, SlicesGiveEveryObjectOnceWithItsReferences) {
  std::mt19937_64 rng(5);
  for (const size_t count : {size_t{0}, size_t{1}, size_t{70000}, size_t{300001}}) {
    RecordStream s;
    uint64_t id = 0x7f0000000000;
    for (size_t i = 0; i < count; ++i) {
      Made m{id, 0x7e0000000100 + 0x100 * (rng() % 5), 24, rng() % 2 == 0, {}, {}, {}, {}};
      for (size_t k = rng() % 4; k > 0; --k) {
        m.refs.push_back(0x7f0000000000 + 8 * (rng() % 4000000));
        m.slots.push_back(static_cast<uint32_t>(rng() % 3));
      }
      if (m.values_read) m.values = {rng(), 7};
      if (i % 1000 == 0) m.text = {'x', 'y'};
      Put(s, m);
      id += 8 * (1 + rng() % 8);
    }
    IdsAndRefs whole;
    {
      RecordStream::Reader reader(s);
      StreamObject o;
      while (reader.Next(&o)) whole.emplace_back(o.id, Std(o.refs));
    }
    ASSERT_EQ(whole.size(), count);
    for (const size_t parts : {size_t{1}, size_t{2}, size_t{3}, size_t{8}})
      ExpectSlicesGive(s, whole, parts);
    // Appended after the readers were made: the last slice reads on to the new end.
    RecordStream::Reader first(s, 0, 2), last(s, 1, 2);
    Put(s, Made{0x10, 0x7e0000000100, 24, false, {0x20}, {1}, {}, {}});
    size_t read = 0;
    uint64_t got_id = 0;
    std::vector<uint64_t> refs;
    while (NextRefs(first, &got_id, &refs)) ++read;
    while (NextRefs(last, &got_id, &refs)) ++read;
    EXPECT_EQ(read, count + 1);
    EXPECT_EQ(got_id, 0x10u);
    EXPECT_EQ(refs, std::vector<uint64_t>{0x20});
  }
}

// A mixed stream of `count` objects (several checkpoints' worth, many classes, text, values,
// runs of one shape).
std::vector<Made> MixedObjects(size_t count, uint64_t seed) {
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

// Sends `s` through a pipe (a thread writes, as the child would) and receives it into *out.
bool ThroughAPipe(const RecordStream& s, RecordStream* out, std::string* error) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::string send_error;
  bool sent = false;
  std::thread writer([&] {
    // SIGPIPE blocked on this thread: a write after the reader closed fails with EPIPE.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    sent = s.Send(fds[1], &send_error);
    close(fds[1]);
  });
  agent::FdByteSource in(fds[0], 5000);
  const bool received = out->Receive(in, error);
  close(fds[0]);  // a receive that gave up early: the writer's next write fails, it ends
  writer.join();
  EXPECT_TRUE(sent) << send_error;
  return received;
}

// What `s` writes to a pipe (Send, then SendBytes when bytes_again: a snapshot process's
// sending), read whole from the other end while a thread writes, as the child would.
std::string SentThroughAPipe(const RecordStream& s, bool bytes_again) {
  std::string bytes;
  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe";
    return bytes;
  }
  std::string send_error;
  std::thread writer([&] {
    EXPECT_TRUE(s.Send(fds[1], &send_error) && (!bytes_again || s.SendBytes(fds[1], &send_error)))
        << send_error;
    close(fds[1]);
  });
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  writer.join();
  close(fds[0]);
  return bytes;
}

// What a copy-on-write child records comes back whole through its pipe: every object, the
// slices a reader on several threads takes (checkpoints), and the state the next Append reads
// (the previous id and shape, the class table): objects appended after the transfer read back
// the same on either side.
TEST(RecordStream, ComesBackWholeThroughAPipeAndAppendsOnAsTheSender) {
  const std::vector<Made> made = MixedObjects(200000, 11);
  RecordStream sent;
  for (const Made& m : made) Put(sent, m);
  RecordStream received;
  received.Reserve(1000, 1000, 4);  // far too small: Receive maps what it needs
  std::string error;
  ASSERT_TRUE(ThroughAPipe(sent, &received, &error)) << error;
  EXPECT_EQ(received.object_count(), sent.object_count());
  EXPECT_EQ(received.ref_count(), sent.ref_count());
  EXPECT_EQ(received.bytes(), sent.bytes());
  EXPECT_EQ(received.classes(), sent.classes());
  ExpectSame(received, made);
  IdsAndRefs whole;
  for (const Made& m : made) whole.emplace_back(m.id, m.refs);
  ExpectSlicesGive(received, whole, 3);

  // Appended on both sides: objects of the last one's shape, of a known class, of a new one.
  std::vector<Made> more = {made.back(), made[5], made.back()};
  more[0].id = made.back().id + 64;
  more[1].id = more[0].id + 64;
  more[2].id = more[1].id + 64;
  more[2].klass = 0x7e00000f0000;
  std::vector<Made> all = made;
  for (const Made& m : more) {
    Put(sent, m);
    Put(received, m);
    all.push_back(m);
  }
  EXPECT_EQ(received.bytes(), sent.bytes());  // the same codes: the same state
  EXPECT_EQ(received.classes(), sent.classes());
  ExpectSame(received, all);

  // An empty stream too.
  RecordStream empty;
  ASSERT_TRUE(ThroughAPipe(empty, &received, &error)) << error;
  EXPECT_EQ(received.object_count(), 0u);
}

// The receive in steps, as the .NET port's walk reads a snapshot process's record: the head,
// then the bytes a window at a time, read as they come, each step in the place of what the
// reader left behind (Forget), twice (the sender's SendBytes, the receiver's Rewind), with
// objects appended between the passes; each pass reads every object as sent, and no read goes
// past the bytes that arrived (the reader stops there and goes on after the next step).
TEST(RecordStream, ArrivesInStepsIsReadTwiceAndGivenBackBehindTheReader) {
  const std::vector<Made> made = MixedObjects(500000, 13);
  RecordStream sent;
  for (const Made& m : made) Put(sent, m);
  const std::string bytes = SentThroughAPipe(sent, /*bytes_again=*/true);
  agent::MemoryByteSource in(bytes.data(), bytes.size());
  RecordStream r;
  r.Reserve(4 << 20, 0, 8);  // mapped, untouched: as the port reserves for a child's record
  // Appended between the passes (the port's non-GC heap objects): enough to pass a checkpoint
  // (every 65,536 objects) that lies beyond the bytes that arrive.
  ASSERT_LT(made.size() % 65536 + 30000, 2 * 65536u);
  ASSERT_GT(made.size() % 65536 + 30000, 65536u);
  std::vector<Made> appended(made.begin() + 7, made.begin() + 30007);
  for (size_t i = 0; i < appended.size(); ++i) appended[i].id = made.back().id + 64 * (i + 1);
  std::vector<Made> all = made;
  all.insert(all.end(), appended.begin(), appended.end());
  std::string error;
  uint64_t offset = 0;
  const size_t resident_before = ResidentBytes();
  size_t resident_most = resident_before;
  ASSERT_TRUE(r.ReceiveHead(in, &error, &offset)) << error;
  EXPECT_EQ(r.object_count(), made.size());
  EXPECT_EQ(r.bytes(), sent.bytes());
  EXPECT_TRUE(r.arriving());
  long faults[2] = {0, 0};  // minor page faults in each pass
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (const Made& m : appended) Put(r, m);  // every byte here: appending goes on as sent
      r.Rewind();
      EXPECT_TRUE(r.arriving());
    }
    const std::vector<Made>& want = pass == 0 ? made : all;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    faults[pass] = -usage.ru_minflt;
    RecordStream::Reader reader(r);
    StreamObject o;
    std::vector<uint64_t> refs;  // one for every object: no allocation per object
    size_t i = 0, steps = 0;
    for (;;) {
      while (reader.Next(&o, 3)) {
        ASSERT_LT(i, want.size());
        const Made& m = want[i];
        ASSERT_EQ(o.id, m.id) << pass << " " << i;
        ASSERT_EQ(o.values, m.values) << i;
        ASSERT_EQ(o.text, m.text) << i;
        refs.assign(o.refs.begin(), o.refs.end());
        while (reader.Part(&o)) refs.insert(refs.end(), o.refs.begin(), o.refs.end());
        ASSERT_EQ(refs, m.refs) << i;
        ++i;
        r.Forget(reader.Consumed());
      }
      if (!r.arriving()) break;
      ASSERT_TRUE(r.ReceiveMore(in, 100000, &offset, &error)) << error;
      resident_most = std::max(resident_most, ResidentBytes());
      ++steps;
    }
    getrusage(RUSAGE_SELF, &usage);
    faults[pass] += usage.ru_minflt;
    EXPECT_EQ(i, want.size()) << pass;
    EXPECT_GT(steps, 3u) << "the bytes came in steps";
  }
  // A window, never the whole record. (Under ASan its quarantine keeps what the test frees
  // resident, and its shadow memory faults too: the release stage checks these.)
  ASSERT_GT(sent.bytes(), size_t{4} << 20);
  if (!xrpm::testing::kUnderAsan) {
    EXPECT_LT(resident_most - resident_before, sent.bytes() / 2)
        << "resident " << resident_most - resident_before << " of " << sent.bytes() << " bytes";
    // Each step's bytes take the place of those read before them: the window's pages fault
    // in once a pass (a fault per 4 KiB page of the record would be ~1,700 a pass).
    for (long f : faults) EXPECT_LT(f, static_cast<long>(sent.bytes() / 4096 / 3)) << f;
  }
  EXPECT_EQ(offset, bytes.size());  // both sendings read, nothing more
  // A step past the end of the source: refused with the byte and what was missing.
  agent::MemoryByteSource cut(bytes.data(), bytes.size() / 3);
  offset = 0;
  ASSERT_TRUE(r.ReceiveHead(cut, &error, &offset)) << error;
  EXPECT_FALSE(r.ReceiveMore(cut, SIZE_MAX, &offset, &error));
  EXPECT_NE(error.find("more bytes of objects, found the end of the stream"), std::string::npos)
      << error;
  EXPECT_EQ(r.object_count(), 0u);
}

// A stream cut short anywhere, or whose header contradicts itself, is refused with the byte
// offset and what was expected, and leaves the stream empty; never a crash or a read past the
// bytes given.
TEST(RecordStream, ReceiveRefusesAShortOrInconsistentStream) {
  const std::vector<Made> made = MixedObjects(70000, 12);
  RecordStream s;
  for (const Made& m : made) Put(s, m);
  const std::string bytes = SentThroughAPipe(s, /*bytes_again=*/false);
  RecordStream r;
  std::string error;
  for (const size_t cut :
       {size_t{0}, size_t{7}, size_t{100}, size_t{200}, bytes.size() / 2, bytes.size() - 1}) {
    agent::MemoryByteSource in(bytes.data(), cut);
    EXPECT_FALSE(r.Receive(in, &error)) << cut;
    EXPECT_NE(error.find("the record at byte "), std::string::npos) << error;
    EXPECT_NE(error.find("expected"), std::string::npos) << error;
    EXPECT_NE(error.find("found the end of the stream"), std::string::npos) << error;
    EXPECT_EQ(r.object_count(), 0u);
    EXPECT_EQ(r.bytes(), 0u);
  }
  // The header's counts: objects without a checkpoint each 65,536, a wrong magic.
  std::string wrong = bytes;
  wrong[0] ^= 0x20;
  agent::MemoryByteSource bad_magic(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_magic, &error));
  EXPECT_NE(error.find("expected the magic XRS1"), std::string::npos) << error;
  wrong = bytes;
  // The object count (the u64 at 24, after the bytes used) 65,536 higher: a checkpoint short.
  wrong[24 + 2] = static_cast<char>(wrong[24 + 2] + 1);
  agent::MemoryByteSource bad_count(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_count, &error));
  EXPECT_NE(error.find("the record at byte 0: expected"), std::string::npos) << error;
  EXPECT_EQ(r.object_count(), 0u);
  // The last class (the u64 at 56) not the class at the last index: the next Append would
  // take the wrong index.
  wrong = bytes;
  wrong[56] = static_cast<char>(wrong[56] ^ 0x40);
  agent::MemoryByteSource bad_last(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_last, &error));
  EXPECT_NE(error.find("the record at byte 0: expected the last class"), std::string::npos)
      << error;
  // A checkpoint past the bytes (the header, 120 bytes, then 300 classes of 8, then the first
  // checkpoint's position).
  ASSERT_EQ(s.classes().size(), 300u);
  wrong = bytes;
  wrong[120 + 300 * 8 + 6] = 0x7f;
  agent::MemoryByteSource bad_checkpoint(wrong.data(), wrong.size());
  EXPECT_FALSE(r.Receive(bad_checkpoint, &error));
  EXPECT_NE(error.find("the record at byte 0: expected ascending checkpoints inside its"),
            std::string::npos)
      << error;
  EXPECT_EQ(r.object_count(), 0u);
  // And the whole stream is taken.
  agent::MemoryByteSource whole(bytes.data(), bytes.size());
  ASSERT_TRUE(r.Receive(whole, &error)) << error;
  ExpectSame(r, made);
}

}  // namespace
}  // namespace xrpm::dotnet
