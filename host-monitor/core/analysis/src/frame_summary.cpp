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
    for (size_t k = 0; k < protocol::GcKindCount(f.gc_kinds); ++k) {
      const protocol::GcKind kind = protocol::GcKindAt(f.gc_kinds, k);
      auto it = std::find_if(s.gcs_by_kind.begin(), s.gcs_by_kind.end(), [&](const auto& c) {
        return c.kind.generation == kind.generation && c.kind.reason == kind.reason;
      });
      if (it == s.gcs_by_kind.end()) it = s.gcs_by_kind.insert(s.gcs_by_kind.end(), {kind, 0});
      ++it->count;
    }
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

std::string GcKindText(protocol::GcKind kind) {
  std::string t = "gen " + std::to_string(kind.generation);
  if (kind.reason != protocol::GcReason::kUnknown)
    t += std::string(" ") + protocol::GcReasonName(kind.reason);
  return t;
}

std::string GcKindsText(uint32_t packed) {
  std::string t;
  for (size_t i = 0; i < protocol::GcKindCount(packed); ++i)
    t += (i ? ", " : "") + GcKindText(protocol::GcKindAt(packed, i));
  return t;
}

std::string FrameGcsText(uint32_t gcs, uint32_t packed) {
  const std::string kinds = GcKindsText(packed);
  std::string t = std::to_string(gcs) + " GC";
  if (kinds.empty()) return t;
  return t + " (" + kinds + (gcs > protocol::GcKindCount(packed) ? ", ...)" : ")");
}

}  // namespace xrpm::analysis
