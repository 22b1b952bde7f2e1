// Allocation-origin fields of heap batches (wire.proto HeapBatch 20-27): a walk with origins
// round-trips through bounded batches (inline and background sealing alike); a walk without
// them produces the very bytes and checksum of the encoder before origins existed (old hosts
// and old agents see no change); damaged origin fields are refused with a clear error or
// caught by the chained checksum; and the two columns stay small on an allocation-ordered heap.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "xrpm/protocol/column_codec.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/envelope_io.h"
#include "xrpm/protocol/heap_batch.h"
#include "xrpm/protocol/heap_batch_writer.h"

namespace xrpm::protocol {
namespace {

// A walk with origins: `before` objects before the clock, then objects allocated in order
// (frames rising slowly) with a site from `sites` (every 5th unknown).
struct OriginWalk {
  std::vector<std::string> methods;
  std::vector<std::vector<uint32_t>> sites;  // wire method ids, innermost first
  std::vector<uint64_t> id;
  std::vector<uint32_t> size, site;
  std::vector<uint64_t> frame;
  size_t before = 0;
};

OriginWalk MakeOriginWalk(size_t objects, size_t sites, size_t before, uint64_t seed) {
  std::mt19937_64 rng(seed);
  OriginWalk w;
  w.before = before;
  for (size_t m = 0; m < 40; ++m) w.methods.push_back("Game.Class" + std::to_string(m) + ".Run");
  for (size_t s = 0; s < sites; ++s) {
    std::vector<uint32_t> ms;
    const size_t depth = s == 0 ? 0 : 1 + rng() % kMaxStackDepth;
    for (size_t k = 0; k < depth; ++k) ms.push_back(1 + static_cast<uint32_t>(rng() % 40));
    w.sites.push_back(ms);
  }
  uint64_t addr = 0x40000000, f = 100;
  for (size_t i = 0; i < objects; ++i) {
    const uint32_t size = 12 + 4 * static_cast<uint32_t>(rng() % 30);
    w.id.push_back(addr);
    w.size.push_back(size);
    addr += size;
    if (rng() % 20 == 0) f += rng() % 5;
    const bool known = i >= before && i % 5 != 4;
    w.site.push_back(known ? 1 + static_cast<uint32_t>(rng() % sites) : 0);
    w.frame.push_back(known ? (rng() % 50 == 0 ? rng() % 1000 : f) : 0);  // some old objects
  }
  return w;
}

CaptureTotals EncodeOrigins(const OriginWalk& w, std::vector<std::string>* out, bool background,
                            size_t batch_bytes = kTargetBatchBytes) {
  HeapBatchWriter writer(
      5,
      [&](wire::Envelope* env) {
        std::string bytes;
        EXPECT_TRUE(SerializeEnvelope(*env, kMaxAgentMessageBytes, &bytes));
        out->push_back(std::move(bytes));
        return true;
      },
      background, batch_bytes);
  EXPECT_TRUE(writer.Type(1, "Game.T", 6));
  for (size_t i = 0; i < w.id.size(); ++i) {
    if (i == w.before) {
      EXPECT_TRUE(writer.Clock(777, 0));
      for (const auto& m : w.methods) EXPECT_TRUE(writer.OriginMethod(m));
      for (const auto& s : w.sites)
        EXPECT_TRUE(writer.Site(s.data(), static_cast<uint32_t>(s.size())));
    }
    const uint64_t ref = w.id[(i * 31) % w.id.size()];
    EXPECT_TRUE(writer.Object(w.id[i], 1, w.size[i], &ref, 1, w.site[i], w.frame[i]));
  }
  EXPECT_TRUE(writer.Flush());
  return writer.totals();
}

struct DecodedOrigins {
  uint64_t checksum = 0;
  int clocks = 0;
  uint64_t capture_frame = 0;
  std::vector<std::string> methods;
  std::vector<std::vector<uint32_t>> sites;
  std::vector<uint32_t> site;
  std::vector<uint64_t> frame;
  size_t objects = 0;
};

bool DecodeOrigins(const std::vector<std::string>& bytes, DecodedOrigins* d, std::string* error) {
  RawBatch b;
  for (const std::string& m : bytes) {
    wire::Envelope env;
    if (ParseEnvelope(reinterpret_cast<const uint8_t*>(m.data()), m.size(), kMaxAgentMessageBytes,
                      &env) != ParseStatus::kOk)
      return *error = "parse", false;
    if (!DecodeHeapBatch(env.heap_batch(), &b, error)) return false;
    d->checksum = ChecksumBatch(b, d->checksum);
    if (b.has_clock) {
      ++d->clocks;
      d->capture_frame = b.capture_frame;
    }
    d->methods.insert(d->methods.end(), b.origin_methods.begin(), b.origin_methods.end());
    const uint32_t* p = b.site_method.data();
    for (uint32_t depth : b.site_depth) {
      d->sites.emplace_back(p, p + depth);
      p += depth;
    }
    if (b.HasOriginColumns()) {
      d->site.insert(d->site.end(), b.object_site.begin(), b.object_site.end());
      d->frame.insert(d->frame.end(), b.object_frame.begin(), b.object_frame.end());
    } else if (d->clocks == 0) {
      d->site.insert(d->site.end(), b.object_id.size(), 0);  // before the clock: unknown
      d->frame.insert(d->frame.end(), b.object_id.size(), 0);
    }
    d->objects += b.object_id.size();
  }
  return true;
}

TEST(HeapBatchOrigins, WalkWithOriginsRoundTrips) {
  const OriginWalk w = MakeOriginWalk(70000, 300, 5000, 1);
  for (size_t batch_bytes : {size_t{16 * 1024}, kTargetBatchBytes}) {
    SCOPED_TRACE(batch_bytes);
    std::vector<std::string> wire, wire_bg;
    const CaptureTotals t = EncodeOrigins(w, &wire, false, batch_bytes);
    const CaptureTotals tb = EncodeOrigins(w, &wire_bg, true, batch_bytes);
    EXPECT_TRUE(wire == wire_bg) << "background sealing sends the same bytes";
    EXPECT_EQ(t.checksum, tb.checksum);
    EXPECT_EQ(t.sites, w.sites.size());
    EXPECT_EQ(t.origin_methods, w.methods.size());
    EXPECT_GT(wire.size(), 5u);
    for (const auto& b : wire) EXPECT_LE(b.size(), batch_bytes + 1024);
    DecodedOrigins d;
    std::string error;
    ASSERT_TRUE(DecodeOrigins(wire, &d, &error)) << error;
    EXPECT_EQ(d.checksum, t.checksum);
    EXPECT_EQ(d.clocks, 1);
    EXPECT_EQ(d.capture_frame, 777u);
    EXPECT_EQ(d.methods, w.methods);
    EXPECT_EQ(d.sites, w.sites);
    EXPECT_EQ(d.objects, w.id.size());
    EXPECT_EQ(d.site, w.site);
    EXPECT_EQ(d.frame, w.frame);
  }
}

// Golden values from the encoder before origins existed (main at 1a2558a): the same walk
// without origin calls gives the same bytes and the same chained checksum.
TEST(HeapBatchOrigins, WalkWithoutOriginsIsByteForByteTheOldEncoding) {
  std::string all;
  HeapBatchWriter w(
      3,
      [&](wire::Envelope* e) {
        all += e->SerializeAsString();
        return true;
      },
      false, 4096);
  ASSERT_TRUE(w.Type(1, "Game.A", 6));
  ASSERT_TRUE(w.Type(2, "Game.B", 6));
  ASSERT_TRUE(w.Container(RawContainer{3, 0x10, 0x6001, 1, true, 1}));
  ASSERT_TRUE(w.Root(0x1000, 1, 0));
  for (uint64_t i = 0; i < 3000; ++i) {
    const uint64_t refs[2] = {0x1000 + 16 * ((i * 7) % 3000), 0x1000 + 16 * ((i * 13) % 3000)};
    ASSERT_TRUE(w.Object(0x1000 + 16 * i, 1 + i % 2, 16, refs, i % 3));
  }
  ASSERT_TRUE(w.Flush());
  EXPECT_EQ(w.totals().batches, 6u);
  EXPECT_EQ(all.size(), 7045u);
  EXPECT_EQ(XXH3_64bits(all.data(), all.size()), 0xe0ca49ad93131090ull);
  EXPECT_EQ(w.totals().checksum, 0x5d093a77c0c71965ull);

  // And such a batch decodes with no origin data at all.
  wire::Envelope env;
  HeapBatchWriter one(1, [&](wire::Envelope* e) {
    env = *e;
    return true;
  });
  const uint64_t ref = 0x2000;
  ASSERT_TRUE(one.Object(0x2000, 1, 16, &ref, 1));
  ASSERT_TRUE(one.Flush());
  RawBatch b;
  std::string error;
  ASSERT_TRUE(DecodeHeapBatch(env.heap_batch(), &b, &error)) << error;
  EXPECT_FALSE(b.has_clock);
  EXPECT_FALSE(b.HasOriginColumns());
  EXPECT_TRUE(b.origin_methods.empty());
  EXPECT_TRUE(b.site_depth.empty());
}

TEST(HeapBatchOrigins, FlippedOriginIsRejectedOrCaughtByChecksum) {
  const OriginWalk w = MakeOriginWalk(3000, 20, 0, 2);
  std::vector<std::string> wire;
  const CaptureTotals t = EncodeOrigins(w, &wire, false, 8192);
  ASSERT_GE(wire.size(), 2u);
  // A changed frame_base, site id, clock or method name decodes fine but differs.
  const std::vector<std::function<void(wire::HeapBatch*)>> flips = {
      [](wire::HeapBatch* b) { b->set_frame_base(b->frame_base() + 1); },
      [](wire::HeapBatch* b) { (*b->mutable_object_sites())[2] ^= 1; },
      [](wire::HeapBatch* b) { (*b->mutable_object_frames())[2] ^= 1; },
      [](wire::HeapBatch* b) { b->mutable_origin_clock()->set_capture_frame(778); },
      [](wire::HeapBatch* b) { (*b->mutable_origin_methods(0))[0] = 'X'; },
  };
  for (size_t k = 0; k < flips.size(); ++k) {
    SCOPED_TRACE(k);
    auto damaged = wire;
    wire::Envelope env;
    ASSERT_TRUE(env.ParseFromString(damaged[0]));
    flips[k](env.mutable_heap_batch());
    damaged[0] = env.SerializeAsString();
    DecodedOrigins d;
    std::string error;
    if (DecodeOrigins(damaged, &d, &error))
      EXPECT_NE(d.checksum, t.checksum);
    else
      EXPECT_FALSE(error.empty());
  }
  // Random byte flips anywhere: rejected or caught, never a crash.
  std::mt19937_64 rng(4);
  int rejected = 0, caught = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto damaged = wire;
    std::string& b = damaged[rng() % damaged.size()];
    b[rng() % b.size()] ^= static_cast<char>(1 + rng() % 255);
    DecodedOrigins d;
    std::string error;
    if (!DecodeOrigins(damaged, &d, &error))
      ++rejected;
    else if (d.checksum != t.checksum)
      ++caught;
  }
  EXPECT_GT(rejected + caught, 250);
}

TEST(HeapBatchOrigins, DecoderRefusesOversizedDefinitionsBeforeAllocating) {
  wire::HeapBatch b;
  for (uint32_t i = 0; i <= kMaxBatchOriginMethods; ++i) b.add_origin_methods("M");
  RawBatch out;
  std::string error;
  EXPECT_FALSE(DecodeHeapBatch(b, &out, &error));
  EXPECT_NE(error.find("origin method definitions, over the batch limit"), std::string::npos)
      << error;

  wire::HeapBatch c;
  c.set_site_count(0xFFFFFFFFu);  // would be 16 GiB of depths
  EXPECT_FALSE(DecodeHeapBatch(c, &out, &error));
  EXPECT_NE(error.find("site definitions, over the batch limit"), std::string::npos) << error;

  wire::HeapBatch d;  // object sites for a batch without objects
  d.set_object_sites(std::string("\x00\x01", 2));
  EXPECT_FALSE(DecodeHeapBatch(d, &out, &error));
  EXPECT_NE(error.find("object sites: bytes present for 0 values"), std::string::npos) << error;
}

// Not a timing target: the byte budget of the two columns (<= 4 B/object, the origins' target) on
// an allocation-ordered heap with 300 sites, measured as the batches' size with minus without.
TEST(HeapBatchOrigins, OriginColumnsCostUnderFourBytesPerObject) {
  const size_t n = 200000;
  const OriginWalk w = MakeOriginWalk(n, 300, 0, 3);
  OriginWalk none = w;
  none.before = n;  // no clock: the same walk without origins
  std::vector<std::string> with, without;
  EncodeOrigins(w, &with, true);
  EncodeOrigins(none, &without, true);
  size_t a = 0, b = 0;
  for (const auto& s : with) a += s.size();
  for (const auto& s : without) b += s.size();
  const double per_object = static_cast<double>(a - b) / n;
  EXPECT_LT(per_object, 4.0);
  EXPECT_GT(per_object, 0.5) << "the columns are really there";
}

}  // namespace
}  // namespace xrpm::protocol
