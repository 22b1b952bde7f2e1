#include "xrpm/analysis/age_histogram.h"

#include <algorithm>
#include <bit>

#include "xrpm/analysis/site_stats.h"

namespace xrpm::analysis {
namespace {

template <class Each>
AgeHistogram Compute(const Snapshot& s, const AgeHistogramOptions& opts, Each each) {
  AgeHistogram h;
  h.has_origins = s.has_origins();
  h.sampled = s.origins && s.origins->sample_bytes > 0;
  h.capture_frame = s.origins ? s.origins->capture_frame : 0;
  const uint64_t w = opts.bin_frames;
  const size_t max_fixed = std::max<size_t>(opts.max_bins, 1);
  auto bin_of = [&](uint64_t age) -> size_t {
    if (w == 0) return AgeLog2Bin(age);
    return static_cast<size_t>(std::min<uint64_t>(age / w, max_fixed - 1));
  };
  each([&](size_t i) {
    const uint32_t size = s.object_size[i];
    if (!s.origin_known(i)) {
      ++h.unknown_count;
      h.unknown_bytes += size;
      return;
    }
    ++h.known_count;
    h.known_bytes += size;
    const size_t b = bin_of(s.age_frames(i));
    if (b >= h.bins.size()) h.bins.resize(b + 1);
    AgeBin& bin = h.bins[b];
    const double wgt = OriginWeight(s, size);
    ++bin.count;
    bin.bytes += size;
    bin.est_count += wgt;
    bin.est_bytes += wgt * size;
  });
  for (size_t b = 0; b < h.bins.size(); ++b) {
    AgeBin& bin = h.bins[b];
    if (w == 0) {
      bin.first = b == 0 ? 0 : uint64_t{1} << (b - 1);
      bin.last = b == 0 ? 0 : b == 64 ? UINT64_MAX : (uint64_t{1} << b) - 1;
    } else {
      bin.first = b * w;
      bin.last = b + 1 == max_fixed ? UINT64_MAX : (b + 1) * w - 1;
    }
  }
  return h;
}

}  // namespace

uint32_t AgeLog2Bin(uint64_t age) {
  return age == 0 ? 0 : static_cast<uint32_t>(std::bit_width(age));
}

AgeHistogram ComputeAgeHistogram(const Snapshot& s, const AgeHistogramOptions& opts) {
  return Compute(s, opts, [&s](auto&& f) {
    for (size_t i = 0; i < s.object_count(); ++i) f(i);
  });
}

AgeHistogram ComputeAgeHistogramOf(const Snapshot& s, std::span<const uint32_t> objects,
                                   const AgeHistogramOptions& opts) {
  return Compute(s, opts, [objects](auto&& f) {
    for (const uint32_t i : objects) f(i);
  });
}

}  // namespace xrpm::analysis
