// A capture's columns reserved ahead (CaptureAssembler::Prepare, at the previous capture's
// sizes, larger or smaller) and warmed on a background thread (PageWarmer) assemble the same
// snapshot as without: objects, references split across batches, roots; a reservation the
// capture does not use leaves nothing behind. An assembler prepared twice before its first
// batch (a forecast, then exact figures) assembles the same snapshot.
// ctest-labels: threaded
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "assembled_walk.h"
#include "xrpm/client/capture_assembler.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::testing {
namespace {

using client::CaptureAssembler;
using client::CaptureSizes;

// 200,000 small objects in a chain, and every 1,000th an array of 5,000 references (continued
// across the small batches), held by one static root.
Walk ChainWithArrays() {
  Walk w;
  protocol::HeapBatchWriter writer(
      1,
      [&](wire::Envelope* env) {
        w.batches.push_back(env->heap_batch());
        return true;
      },
      false, 16384);
  EXPECT_TRUE(writer.Type(1, "Game.Node", 9));
  EXPECT_TRUE(writer.Type(2, "Game.Node[]", 11));
  EXPECT_TRUE(writer.Container(protocol::RawContainer{11, 1, 0, 4, false, 0}));
  EXPECT_TRUE(writer.Root(0x10000, 0, 0));
  std::vector<uint64_t> elements(5000);
  for (uint64_t i = 0; i < 200000; ++i) {
    const uint64_t id = 0x10000 + i * 32;
    if (i % 1000 == 999) {
      for (size_t k = 0; k < elements.size(); ++k) elements[k] = 0x10000 + ((i * 7 + k) % i) * 32;
      EXPECT_TRUE(writer.Object(id, 2, 24 + 8 * 5000, elements.data(), elements.size()));
    } else {
      const uint64_t next = id + 32;
      EXPECT_TRUE(writer.Object(id, 1, 32, &next, i + 1 < 200000 ? 1 : 0));
    }
  }
  EXPECT_TRUE(writer.Flush());
  w.totals = writer.totals();
  return w;
}

TEST(CapturePrepare, ReservedAheadAssemblesTheSameSnapshot) {
  const Walk w = ChainWithArrays();
  ASSERT_GT(w.batches.size(), 10u);
  Snapshot plain;
  std::string error;
  ASSERT_TRUE(Assemble(w, &plain, &error)) << error;
  ASSERT_EQ(plain.object_count(), 200000u);
  ASSERT_EQ(plain.ref_count(), 200u * 5000 + (200000 - 200));
  const CaptureSizes exact = client::SizesOf(plain);
  EXPECT_EQ(exact.objects, 200000u);
  EXPECT_EQ(exact.refs, plain.ref_count());
  for (const CaptureSizes& sizes :
       {exact, CaptureSizes{.objects = 1000, .refs = 2000},
        CaptureSizes{.objects = 900000, .refs = 9000000, .slots = true, .value_bytes = 1 << 24}}) {
    Snapshot prepared;
    ASSERT_TRUE(Assemble(w, &prepared, &error, &sizes)) << error;
    EXPECT_TRUE(prepared == plain) << "reserved for " << sizes.objects << " objects";
    EXPECT_TRUE(prepared.fields.ref_slot.empty());  // reserved, unused, given back
    EXPECT_EQ(prepared.fields.values.data.capacity(), 0u);
  }
}

// Sizes from an agent's hint may be anything: the reservation stays within half the memory
// available, and the capture assembles the same.
TEST(CapturePrepare, AReservationBeyondTheMemoryAvailableIsCutToHalfOfIt) {
  const Walk w = ChainWithArrays();
  Snapshot plain;
  std::string error;
  ASSERT_TRUE(Assemble(w, &plain, &error)) << error;
  const uint64_t memory = uint64_t{64} << 20;
  for (const CaptureSizes& sizes :
       {CaptureSizes{
            .objects = UINT64_MAX, .refs = UINT64_MAX, .slots = true, .value_bytes = UINT64_MAX},
        CaptureSizes{.objects = 1'000'000'000, .refs = 64'000'000'000, .slots = true}}) {
    client::CaptureAssembler a(1'000'000'000);
    a.Prepare(sizes, memory);
    Snapshot s;
    ASSERT_TRUE(AssembleWith(a, w, &s, &error)) << error;
    EXPECT_TRUE(s == plain);
  }
  // Nothing at all reserved when even one object would not fit.
  Snapshot prepared;
  const CaptureSizes some{.objects = 1000, .refs = 1000};
  ASSERT_TRUE(Assemble(w, &prepared, &error, &some, 0)) << error;
  EXPECT_TRUE(prepared == plain);
}

// A host prepared by a runtime's forecast prepares again by the CaptureBegin's exact figures
// (larger or smaller), before the first batch, while the first warming may still run.
TEST(CapturePrepare, PreparedAgainBeforeTheFirstBatchAssemblesTheSameSnapshot) {
  const Walk w = ChainWithArrays();
  Snapshot plain;
  std::string error;
  ASSERT_TRUE(Assemble(w, &plain, &error)) << error;
  for (const uint64_t forecast : {uint64_t{1000}, uint64_t{3'000'000}}) {
    CaptureAssembler a;
    a.Prepare({.objects = forecast, .refs = 3 * forecast, .slots = true}, AvailableMemoryBytes());
    ASSERT_TRUE(a.prepared());
    a.Prepare(client::SizesOf(plain), AvailableMemoryBytes());
    ASSERT_TRUE(a.prepared());
    Snapshot s;
    ASSERT_TRUE(AssembleWith(a, w, &s, &error)) << error;
    EXPECT_TRUE(s == plain) << "forecast " << forecast;
  }
}

TEST(CapturePrepare, AnAssemblerDroppedWhileWarmingStopsCleanly) {
  const Walk w = ChainWithArrays();
  for (int i = 0; i < 3; ++i) {
    CaptureAssembler a;
    a.Prepare({.objects = 4'000'000, .refs = 16'000'000, .slots = true, .value_bytes = 1 << 26},
              AvailableMemoryBytes());
    wire::CaptureBegin b;
    b.set_capture_id(1);
    std::string error;
    ASSERT_TRUE(a.Begin(b, 10, &error)) << error;
    ASSERT_TRUE(a.Batch(w.batches[0], 10, &error)) << error;
  }  // destroyed mid-capture: the warming thread is joined before the columns go
}

}  // namespace
}  // namespace xrpm::testing
