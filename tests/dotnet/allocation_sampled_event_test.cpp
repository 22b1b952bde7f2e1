// The AllocationSampled payload parser (allocation_sampled_event.h): both layouts .NET 10 wrote
// (with and without HeapIndex), 4- and 8-byte pointers, and what a bad payload is told.
#include "allocation_sampled_event.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "xrpm/protocol/sampling.h"

namespace xrpm::dotnet {
namespace {

void PutLe(std::vector<uint8_t>* out, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::vector<uint8_t> Payload(size_t pointer, bool heap_index, const std::u16string& name,
                             uint64_t size, uint64_t offset, uint64_t address = 0x7E0011223344ull) {
  std::vector<uint8_t> p;
  PutLe(&p, 1, 4);                        // AllocationKind: large
  PutLe(&p, 7, 2);                        // ClrInstanceID
  PutLe(&p, 0x7F00AABBCCDDull, pointer);  // TypeID
  for (char16_t c : name) PutLe(&p, c, 2);
  PutLe(&p, 0, 2);
  if (heap_index) PutLe(&p, 3, 4);
  PutLe(&p, address, pointer);  // Address
  PutLe(&p, size, 8);
  PutLe(&p, offset, 8);
  return p;
}

TEST(AllocationSampledEvent, ReadsBothLayoutsAndPointerSizes) {
  for (size_t pointer : {size_t{4}, size_t{8}}) {
    for (bool heap : {false, true}) {
      const auto p = Payload(pointer, heap, u"Allocations.Garbage", 24, 5);
      AllocationSampledEvent e;
      std::string error;
      ASSERT_TRUE(ParseAllocationSampled(p.data(), p.size(), pointer, &e, &error)) << error;
      EXPECT_EQ(e.kind, 1u);
      EXPECT_EQ(e.type_id, pointer == 8 ? 0x7F00AABBCCDDull : 0xAABBCCDDull);
      EXPECT_EQ(e.type_name_units, 19u);
      EXPECT_EQ(e.address, pointer == 8 ? 0x7E0011223344ull : 0x11223344ull)
          << "the object, which allocation origins key on";
      EXPECT_EQ(e.object_size, 24u);
      EXPECT_EQ(e.sampled_offset, 5u);
    }
  }
}

TEST(AllocationSampledEvent, BadPayloadsSayWhereAndWhat) {
  const auto good = Payload(8, false, u"T", 100, 99);
  AllocationSampledEvent e;
  std::string error;
  // Cut anywhere: an error naming a byte and what was expected.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(ParseAllocationSampled(good.data(), n, 8, &e, &error)) << n;
    EXPECT_EQ(error.rfind("byte ", 0), 0u) << error;
    EXPECT_NE(error.find("expected"), std::string::npos) << error;
  }
  auto longer = good;
  longer.push_back(0);
  EXPECT_FALSE(ParseAllocationSampled(longer.data(), longer.size(), 8, &e, &error));
  EXPECT_NE(error.find("found 25"), std::string::npos) << error;
  const auto past = Payload(8, false, u"T", 100, 100);
  EXPECT_FALSE(ParseAllocationSampled(past.data(), past.size(), 8, &e, &error));
  EXPECT_NE(error.find("below the object size"), std::string::npos) << error;
  const auto empty = Payload(8, false, u"T", 0, 0);
  EXPECT_FALSE(ParseAllocationSampled(empty.data(), empty.size(), 8, &e, &error));
  EXPECT_FALSE(ParseAllocationSampled(good.data(), good.size(), 2, &e, &error));
  const auto nowhere = Payload(8, false, u"T", 100, 1, 0);
  EXPECT_FALSE(ParseAllocationSampled(nowhere.data(), nowhere.size(), 8, &e, &error));
  EXPECT_NE(error.find("an object address"), std::string::npos) << error;
}

// The runtime's per-object probability 1 - (1 - 1/102400)^s is the host's Poisson p(s) at mean
// 102,400 (what the agent tells the host for this route) to within 1e-5 relative.
TEST(AllocationSampledEvent, RuntimeProbabilityMatchesTheHostsModel) {
  for (double s : {1.0, 24.0, 32.0, 1000.0, 85000.0, 1e6, 1e8}) {
    const double runtime = -std::expm1(s * std::log1p(-1.0 / kRuntimeSampleBytes));
    const double host = protocol::SampleProbability(s, kRuntimeSampleBytes);
    EXPECT_NEAR(runtime / host, 1.0, 1e-5) << s;
  }
}

}  // namespace
}  // namespace xrpm::dotnet
