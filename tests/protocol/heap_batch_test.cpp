// Heap batches: a whole synthetic walk through HeapBatchWriter -> serialized envelopes ->
// DecodeHeapBatch reproduces the walk exactly, batch limits hold, the chained checksum matches,
// and damaged batches are rejected or caught by the checksum.
#include "xrpm/protocol/heap_batch.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::protocol {
namespace {

struct Walk {
  std::vector<RawType> types;
  std::vector<RawContainer> containers;
  RawBatch flat;  // roots, objects and refs of the whole walk, concatenated
};

Walk MakeWalk(uint64_t seed, size_t objects, size_t huge_refs) {
  std::mt19937_64 rng(seed);
  Walk w;
  for (uint32_t t = 1; t <= 50; ++t)
    w.types.push_back({t, "Game.Type" + std::to_string(t) + std::string(rng() % 40, 'x')});
  for (uint32_t c = 0; c < 20; ++c) w.containers.push_back({3, rng() % 100, rng(), 1, true, c % 4});
  uint64_t addr = 0x40000000;
  for (size_t i = 0; i < objects; ++i) {
    const uint32_t size = 12 + 4 * static_cast<uint32_t>(rng() % 30);
    if (rng() % 50 == 0) addr += 8;  // a free gap now and then
    w.flat.object_id.push_back(addr);
    w.flat.object_type.push_back(1 + rng() % 50);
    w.flat.object_size.push_back(size);
    addr += size;
  }
  for (size_t i = 0; i < objects; ++i) {
    const uint32_t n = i == objects / 2 ? static_cast<uint32_t>(huge_refs) : rng() % 6;
    w.flat.object_ref_count.push_back(n);
    for (uint32_t k = 0; k < n; ++k)
      w.flat.refs.push_back(rng() % 100 == 0 ? rng() : w.flat.object_id[rng() % objects]);
  }
  for (size_t r = 0; r < 300; ++r) {
    w.flat.root_object.push_back(w.flat.object_id[rng() % objects]);
    w.flat.root_flags.push_back(rng() % 8);
    w.flat.root_container.push_back(static_cast<uint32_t>(r / 15));
  }
  return w;
}

struct Received {
  std::vector<std::string> wire;
  uint64_t checksum = 0;
  RawBatch flat;
  std::vector<RawType> types;
  std::vector<RawContainer> containers;
};

void Append(Received* rx, const RawBatch& b) {
  rx->types.insert(rx->types.end(), b.types.begin(), b.types.end());
  rx->containers.insert(rx->containers.end(), b.containers.begin(), b.containers.end());
  auto cat = [](auto& dst, const auto& src) { dst.Append(src.data(), src.size()); };
  cat(rx->flat.root_object, b.root_object);
  cat(rx->flat.root_flags, b.root_flags);
  cat(rx->flat.root_container, b.root_container);
  cat(rx->flat.object_id, b.object_id);
  cat(rx->flat.object_type, b.object_type);
  cat(rx->flat.object_size, b.object_size);
  cat(rx->flat.object_ref_count, b.object_ref_count);
  cat(rx->flat.refs, b.refs);
}

// `switch_at`: an inline writer turns to background sealing before that object.
CaptureTotals Encode(const Walk& w, std::vector<std::string>* wire, bool background = false,
                     size_t switch_at = SIZE_MAX) {
  HeapBatchWriter writer(
      7,
      [&](wire::Envelope* env) {
        std::string bytes;
        EXPECT_TRUE(SerializeEnvelope(*env, kMaxAgentMessageBytes, &bytes));
        wire->push_back(std::move(bytes));
        return true;
      },
      background);
  for (const auto& t : w.types) EXPECT_TRUE(writer.Type(t.id, t.name.data(), t.name.size()));
  for (const auto& c : w.containers) EXPECT_TRUE(writer.Container(c));
  for (size_t r = 0; r < w.flat.root_object.size(); ++r)
    EXPECT_TRUE(writer.Root(w.flat.root_object[r], w.flat.root_flags[r], w.flat.root_container[r]));
  size_t ref = 0;
  for (size_t i = 0; i < w.flat.object_id.size(); ++i) {
    if (i == switch_at) {
      EXPECT_TRUE(writer.StartBackgroundSealing());
    }
    const uint32_t n = w.flat.object_ref_count[i];
    EXPECT_TRUE(writer.Object(w.flat.object_id[i], w.flat.object_type[i], w.flat.object_size[i],
                              w.flat.refs.data() + ref, n));
    ref += n;
  }
  EXPECT_TRUE(writer.Flush());
  return writer.totals();
}

bool DecodeAll(const std::vector<std::string>& wire, Received* rx, std::string* error) {
  RawBatch b;
  for (const std::string& bytes : wire) {
    wire::Envelope env;
    if (ParseEnvelope(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                      kMaxAgentMessageBytes, &env) != ParseStatus::kOk) {
      *error = "parse";
      return false;
    }
    if (!DecodeHeapBatch(env.heap_batch(), &b, error)) return false;
    rx->checksum = ChecksumBatch(b, rx->checksum);
    Append(rx, b);
  }
  return true;
}

TEST(HeapBatch, WholeWalkRoundTripsThroughBoundedBatches) {
  const Walk w = MakeWalk(42, 60000, 200000);  // one object with 200k refs spans batches
  std::vector<std::string> wire;
  const CaptureTotals totals = Encode(w, &wire);
  EXPECT_EQ(totals.objects, w.flat.object_id.size());
  EXPECT_EQ(totals.refs, w.flat.refs.size());
  EXPECT_EQ(totals.roots, w.flat.root_object.size());
  EXPECT_EQ(totals.batches, wire.size());
  EXPECT_GT(wire.size(), 10u);
  for (const auto& b : wire) EXPECT_LE(b.size(), kTargetBatchBytes + 1024);

  Received rx;
  std::string error;
  ASSERT_TRUE(DecodeAll(wire, &rx, &error)) << error;
  EXPECT_EQ(rx.checksum, totals.checksum);
  ASSERT_EQ(rx.types.size(), w.types.size());
  for (size_t i = 0; i < w.types.size(); ++i) {
    EXPECT_EQ(rx.types[i].id, w.types[i].id);
    EXPECT_EQ(rx.types[i].name, w.types[i].name);
  }
  ASSERT_EQ(rx.containers.size(), w.containers.size());
  EXPECT_EQ(rx.containers[5].id2, w.containers[5].id2);
  EXPECT_EQ(rx.flat.root_object, w.flat.root_object);
  EXPECT_EQ(rx.flat.root_flags, w.flat.root_flags);
  EXPECT_EQ(rx.flat.root_container, w.flat.root_container);
  EXPECT_EQ(rx.flat.object_id, w.flat.object_id);
  EXPECT_EQ(rx.flat.object_type, w.flat.object_type);
  EXPECT_EQ(rx.flat.object_size, w.flat.object_size);
  EXPECT_EQ(rx.flat.object_ref_count, w.flat.object_ref_count);
  EXPECT_EQ(rx.flat.refs, w.flat.refs);
}

TEST(HeapBatch, BackgroundSealingProducesTheSameBatches) {
  const Walk w = MakeWalk(11, 40000, 100000);
  std::vector<std::string> inline_wire, background_wire;
  const CaptureTotals a = Encode(w, &inline_wire);
  const CaptureTotals b = Encode(w, &background_wire, true);
  EXPECT_EQ(a.batches, b.batches);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_EQ(a.objects, b.objects);
  EXPECT_TRUE(inline_wire == background_wire) << "same bytes, same order";
}

TEST(HeapBatch, SwitchingToBackgroundSealingMidWalkProducesTheSameBatches) {
  const Walk w = MakeWalk(13, 40000, 100000);
  std::vector<std::string> inline_wire, switched_wire;
  const CaptureTotals a = Encode(w, &inline_wire);
  const CaptureTotals b = Encode(w, &switched_wire, false, 25000);  // after the huge object
  EXPECT_GT(a.batches, 10u);
  EXPECT_EQ(a.batches, b.batches);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_TRUE(inline_wire == switched_wire) << "same bytes, same order";
}

// The walk's phases (types, then roots, then objects): a column that a sealed batch left empty
// gives its buffer back, so the encoder does not hold every phase's columns at once.
TEST(HeapBatch, AColumnGivesItsBufferBackOnceABatchLeavesItEmpty) {
  BatchEncoder enc(4096);
  wire::HeapBatch out;
  uint64_t checksum = 0;
  uint32_t seq = 0;
  const std::string name(60, 'T');
  for (uint32_t t = 1; enc.AddType(t, name.data(), name.size()); ++t) {
  }
  enc.Seal(1, seq++, &out, &checksum);
  ASSERT_GT(enc.raw().types.capacity(), 0u) << "a batch with types keeps the column";
  ASSERT_TRUE(enc.AddContainer({3, 1, 2, 1, false, 0}));
  for (uint64_t r = 0; enc.AddRoot(0x1000 + 16 * r * 977, 0, 0); ++r) {
  }
  enc.Seal(1, seq++, &out, &checksum);
  EXPECT_EQ(enc.raw().types.capacity(), 0u) << "the roots' batch had no types";
  ASSERT_GT(enc.raw().root_object.capacity(), 0u);
  const uint64_t ref = 0x1000;
  for (uint64_t i = 0; enc.AddObject(0x4000000 + 32 * i, 1, 32, 1); ++i)
    ASSERT_EQ(enc.AddRefs(&ref, 1), 1u);
  const size_t with_roots = enc.FootprintBytes();
  enc.Seal(1, seq++, &out, &checksum);
  EXPECT_EQ(enc.raw().root_object.capacity(), 0u) << "the objects' batch had no roots";
  EXPECT_EQ(enc.raw().root_flags.capacity(), 0u);
  EXPECT_EQ(enc.raw().root_container.capacity(), 0u);
  EXPECT_EQ(enc.raw().containers.capacity(), 0u);
  // The encoder's scratch of the roots went with them: what is left is the objects' columns.
  EXPECT_EQ(enc.FootprintBytes(), enc.raw().CapacityBytes());
  EXPECT_LT(enc.FootprintBytes(), with_roots);
  // A later root still works (its columns grow again).
  ASSERT_TRUE(enc.AddRoot(0x2000, 1, 0));
  EXPECT_EQ(enc.raw().root_object.size(), 1u);
}

TEST(HeapBatch, BackgroundSinkStopStopsTheWalk) {
  const Walk w = MakeWalk(12, 40000, 10);
  int calls = 0;
  HeapBatchWriter writer(
      1, [&](wire::Envelope*) { return ++calls < 3; }, true);
  bool ok = true;
  size_t ref = 0, added = 0;
  for (size_t i = 0; i < w.flat.object_id.size() && ok; ++i, ++added) {
    const uint32_t n = w.flat.object_ref_count[i];
    ok = writer.Object(w.flat.object_id[i], 1, w.flat.object_size[i], w.flat.refs.data() + ref, n);
    ref += n;
  }
  EXPECT_FALSE(ok) << "a sink that refuses stops the writer";
  EXPECT_LT(added, w.flat.object_id.size());
  EXPECT_FALSE(writer.Flush());
  EXPECT_EQ(calls, 3);
}

TEST(HeapBatch, CompactedHeapEncodesIdsForFree) {
  // Contiguous 16-byte objects with small local references: ids cost nothing, refs little.
  HeapBatchWriter writer(1, [](wire::Envelope*) { return true; });
  std::vector<std::string> wire;
  HeapBatchWriter w2(1, [&](wire::Envelope* env) {
    wire.push_back(env->SerializeAsString());
    return true;
  });
  for (uint64_t i = 0; i < 10000; ++i) {
    const uint64_t id = 0x10000 + 16 * i;
    const uint64_t refs[2] = {id + 16, id - 32};
    ASSERT_TRUE(w2.Object(id, 3, 16, refs, 2));
  }
  ASSERT_TRUE(w2.Flush());
  size_t bytes = 0;
  for (auto& b : wire) bytes += b.size();
  EXPECT_LT(bytes, 10000u * 2) << "under 2 bytes per object";
}

TEST(HeapBatch, ChecksumCatchesReorderedBatches) {
  const Walk w = MakeWalk(7, 20000, 10);
  std::vector<std::string> wire;
  const CaptureTotals totals = Encode(w, &wire);
  ASSERT_GE(wire.size(), 3u);
  std::swap(wire[1], wire[2]);
  Received rx;
  std::string error;
  ASSERT_TRUE(DecodeAll(wire, &rx, &error)) << error;
  EXPECT_NE(rx.checksum, totals.checksum);
}

TEST(HeapBatch, DamagedBatchIsRejectedOrCaughtByChecksum) {
  const Walk w = MakeWalk(9, 5000, 10);
  std::vector<std::string> wire;
  const CaptureTotals totals = Encode(w, &wire);
  std::mt19937_64 rng(3);
  int rejected = 0, caught = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto damaged = wire;
    std::string& b = damaged[rng() % damaged.size()];
    b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
    Received rx;
    std::string error;
    if (!DecodeAll(damaged, &rx, &error)) {
      EXPECT_FALSE(error.empty());
      ++rejected;
    } else if (rx.checksum != totals.checksum) {
      ++caught;
    } else {
      // The flip hit a byte that does not change the decoded walk (e.g. an unused tag byte
      // turned into an unknown field): the data is still exactly right.
      EXPECT_EQ(rx.flat.refs, w.flat.refs);
    }
  }
  EXPECT_GT(rejected + caught, 150);
}

TEST(HeapBatch, DecoderRejectsCountsOverLimitsBeforeDecoding) {
  wire::HeapBatch b;
  b.set_object_count(kMaxBatchObjects + 1);
  RawBatch out;
  std::string error;
  EXPECT_FALSE(DecodeHeapBatch(b, &out, &error));
  EXPECT_NE(error.find("limits"), std::string::npos) << error;

  wire::HeapBatch c;
  c.set_object_count(2);
  c.set_object_gaps(std::string("\x01\x00", 2));  // two zero gaps, width 0
  c.set_object_types(std::string("\x00\x01\x01", 3));
  c.set_object_sizes(std::string("\x00\x10\x10", 3));
  c.set_object_ref_counts(std::string("\x00\x05\x00", 3));  // first object needs 5 refs
  c.set_ref_count(1);
  c.set_refs(std::string("\x00\x02", 2));
  EXPECT_FALSE(DecodeHeapBatch(c, &out, &error));
  EXPECT_NE(error.find("ref_count"), std::string::npos) << error;
}

}  // namespace
}  // namespace xrpm::protocol
