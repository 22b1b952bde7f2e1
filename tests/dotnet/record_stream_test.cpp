// RecordStream (device-agent/ports/dotnet/src/record_stream.h): what goes in comes back out,
// object for object, whatever the addresses, classes, slots, values and text; and the stream is
// several times smaller than fixed-size records on a heap whose references point nearby.
#include "record_stream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "record_stream_objects.h"
#include "xrpm/protocol/varint.h"

namespace xrpm::dotnet {
namespace {

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

}  // namespace
}  // namespace xrpm::dotnet
