#include "xrpm/analysis/frame_summary.h"

#include <algorithm>
#include <vector>

namespace xrpm::analysis {
namespace {
// The q-quantile of sorted values (nearest rank).
template <class T>
T Quantile(const std::vector<T>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5))];
}
}  // namespace

FrameSummary SummarizeFrames(const FrameRecording& r, FrameRange range) {
  FrameSummary s;
  std::vector<double> ms;
  std::vector<uint64_t> alloc;
  double work_ms = 0;
  bool first = true;
  uint64_t prev = 0;
  for (const FrameRow& f : r.frames) {
    if (!range.Contains(f.frame)) continue;
    if (first) {
      s.first_frame = f.frame;
      first = false;
    } else if (f.frame > prev + 1) {
      s.missing_frames += f.frame - prev - 1;
    }
    prev = f.frame;
    s.last_frame = f.frame;
    const double d = f.duration_us / 1000.0;
    ms.push_back(d);
    work_ms += f.work_us / 1000.0;
    s.seconds += d / 1000.0;
    s.max_ms = std::max(s.max_ms, d);
    if (d > kFrameBudget60Ms + kFrameJitterMs) ++s.over_60hz;
    if (d > kFrameBudget30Ms + kFrameJitterMs) ++s.over_30hz;
    s.alloc_bytes += f.alloc_bytes;
    alloc.push_back(f.alloc_bytes);
    s.alloc_objects += f.alloc_objects;
    s.gcs += f.gcs;
    s.gc_ms += f.gc_pause_us / 1000.0;
    s.max_gc_ms = std::max(s.max_gc_ms, f.gc_pause_us / 1000.0);
    if (f.gcs) ++s.frames_with_gc;
  }
  s.frames = ms.size();
  if (s.frames == 0) return s;
  s.mean_ms = s.seconds * 1000.0 / s.frames;
  s.mean_work_ms = work_ms / s.frames;
  s.alloc_bytes_per_frame = double(s.alloc_bytes) / s.frames;
  std::sort(ms.begin(), ms.end());
  s.p50_ms = Quantile(ms, 0.5);
  s.p95_ms = Quantile(ms, 0.95);
  std::sort(alloc.begin(), alloc.end());
  s.alloc_bytes_p95 = Quantile(alloc, 0.95);
  s.alloc_bytes_max = alloc.back();
  if (s.seconds > 0) {
    s.gcs_per_second = s.gcs / s.seconds;
    s.gc_share = s.gc_ms / (s.seconds * 1000.0);
  }
  return s;
}

}  // namespace xrpm::analysis
