// RecordStream (device-agent/ports/dotnet/src/record_stream.h): what goes in comes back out,
// object for object, whatever the addresses, classes, slots, values and text; and the stream is
// several times smaller than fixed-size records on a heap whose references point nearby.
#include "record_stream.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

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
    EXPECT_EQ(o.refs, m.refs) << i;
    EXPECT_EQ(o.slots, m.slots) << i;
    EXPECT_EQ(o.values, m.values) << i;
    EXPECT_EQ(o.text, m.text) << i;
  }
  EXPECT_FALSE(reader.Next(&o));
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
    while (reader.NextRefs(&id, &refs)) {
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
  s.Reserve(100, 4);
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
    ASSERT_TRUE(slice.NextRefs(&id, &refs));
    EXPECT_EQ(id, m.id);
    EXPECT_EQ(refs, m.refs);
  }
  EXPECT_FALSE(slice.NextRefs(&id, &refs));
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

// A reservation the objects' bytes fit in (with room for one run of 1,024 references' worst
// case) is never grown, even by an array of a million references whose worst case (15 bytes
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
  const size_t reservation = measure.bytes() + 1024 * 15;
  s.Reserve(reservation, 1);
  s.Append(array, 0x7e0000000100, 8 * 1024, false, refs.data(), slots.data(), kElements, nullptr, 0,
           nullptr, 0);
  EXPECT_EQ(s.bytes(), measure.bytes());
  EXPECT_EQ(s.reserved(), reservation) << "grown inside the reservation";
  RecordStream::Reader reader(s);
  StreamObject o;
  ASSERT_TRUE(reader.Next(&o));
  EXPECT_EQ(o.refs, refs);
  EXPECT_EQ(o.slots, slots);
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
      while (reader.Next(&o)) whole.emplace_back(o.id, o.refs);
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
    while (first.NextRefs(&got_id, &refs)) ++read;
    while (last.NextRefs(&got_id, &refs)) ++read;
    EXPECT_EQ(read, count + 1);
    EXPECT_EQ(got_id, 0x10u);
    EXPECT_EQ(refs, std::vector<uint64_t>{0x20});
  }
}

}  // namespace
}  // namespace xrpm::dotnet
