// `xrpm frames (--connect HOST:PORT [--duration S] | REC.xrpm) [--count N] [-o REC.xrpm]
// [--csv FILE] [--json]`: records the device's per-frame series (duration, bytes and objects
// allocated, collections and their pause, bytes left before the next collection) for S seconds or N
// frames and prints what an XNA developer asks first: how many frames missed 16.7 / 33.3 ms, how
// much each frame allocates, how often the GC runs and what share of the time it takes. --csv
// writes one row per frame (atomically; gc_kinds "gen 0 allocation, gen 2 induced"); --json has a
// `frames` array (each with its `collections`: generation and reason) and a `markers` array (what
// the game posted: Xrpm.Profiler.Marker / RequestCapture), which the text lists after the table. -o
// saves the whole recording; a saved one given in place of --connect prints exactly what the live
// run did. Where the device's frame rows carry an estimate of the bytes allocated rather than a
// count (.NET's sampled route), the text says "estimated from samples" and --json's
// `frame_totals` is "estimated" (else "exact").
#include <cstdio>

#include "shared/common.h"
#include "shared/record_frames.h"
#include "shared/verb.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/model/atomic_file.h"

namespace xrpm::cli {
namespace verb_frames {

struct Opts {
  FramesRecordOptions rec;
  std::string csv;
  bool json = false;
};

std::string Fixed(double v, int digits = 3) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

void WriteCsv(const std::string& path, const FrameRecording& r) {
  AtomicFile f(path);
  f.Write(
      "frame,ms,work_ms,alloc_bytes,alloc_objects,gcs,gc_ms,budget_left_bytes,end_us,gc_kinds\n");
  for (const auto& x : r.frames)
    f.Write(std::to_string(x.frame) + "," + Fixed(x.duration_us / 1000.0) + "," +
            Fixed(x.work_us / 1000.0) + "," + std::to_string(x.alloc_bytes) + "," +
            std::to_string(x.alloc_objects) + "," + std::to_string(x.gcs) + "," +
            Fixed(x.gc_pause_us / 1000.0) + "," + std::to_string(x.gc_budget_left) + "," +
            std::to_string(x.end_us) + ",\"" + analysis::GcKindsText(x.gc_kinds) + "\"\n");
  f.Commit();
}

nlohmann::json KindJson(protocol::GcKind k) {
  return {{"generation", k.generation}, {"reason", protocol::GcReasonName(k.reason)}};
}

nlohmann::json KindCountsJson(const analysis::FrameSummary& s) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& c : s.gcs_by_kind) {
    nlohmann::json k = KindJson(c.kind);
    k["count"] = c.count;
    a.push_back(k);
  }
  return a;
}

nlohmann::json SummaryJson(const analysis::FrameSummary& s) {
  return {{"frames", s.frames},
          {"first_frame", s.first_frame},
          {"last_frame", s.last_frame},
          {"missing_frames", s.missing_frames},
          {"seconds", s.seconds},
          {"mean_ms", s.mean_ms},
          {"p50_ms", s.p50_ms},
          {"p95_ms", s.p95_ms},
          {"max_ms", s.max_ms},
          {"mean_work_ms", s.mean_work_ms},
          {"over_16_7_ms", s.over_60hz},
          {"over_33_3_ms", s.over_30hz},
          {"alloc_bytes", s.alloc_bytes},
          {"alloc_objects", s.alloc_objects},
          {"alloc_bytes_per_frame", s.alloc_bytes_per_frame},
          {"gcs", s.gcs},
          {"gc_ms", s.gc_ms},
          {"max_gc_ms", s.max_gc_ms},
          {"gcs_per_second", s.gcs_per_second},
          {"gc_share", s.gc_share},
          {"collections_by_kind", KindCountsJson(s)}};
}

int Run(const Opts& o) {
  const FramesRecorded got = RecordFrames(o.rec, "frames");
  const FrameRecording& r = got.rec;
  if (!o.csv.empty()) WriteCsv(o.csv, r);
  const analysis::FrameSummary s = analysis::SummarizeFrames(r);
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& x : r.frames) {
      nlohmann::json kinds = nlohmann::json::array();
      for (size_t k = 0; k < protocol::GcKindCount(x.gc_kinds); ++k)
        kinds.push_back(KindJson(protocol::GcKindAt(x.gc_kinds, k)));
      rows.push_back({{"frame", x.frame},
                      {"ms", x.duration_us / 1000.0},
                      {"work_ms", x.work_us / 1000.0},
                      {"alloc_bytes", x.alloc_bytes},
                      {"alloc_objects", x.alloc_objects},
                      {"gcs", x.gcs},
                      {"gc_ms", x.gc_pause_us / 1000.0},
                      {"budget_left_bytes", x.gc_budget_left},
                      {"end_us", x.end_us},
                      {"collections", kinds}});
    }
    nlohmann::json marks = nlohmann::json::array();
    for (const auto& m : r.markers)
      marks.push_back({{"kind", MarkerKindName(m.kind)},
                       {"text", m.text},
                       {"frame", m.frame},
                       {"time_us", m.time_us}});
    PrintJson({{"endpoint", got.endpoint},
               {"app", r.app},
               {"frame_totals", FrameTotalsName(r.frame_totals)},
               {"dropped_records", r.dropped_records},
               {"wire_bytes", r.wire_bytes},
               {"summary", SummaryJson(s)},
               {"frames", rows},
               {"markers", marks},
               {"dropped_markers", r.dropped_markers}});
    return kExitOk;
  }
  std::printf("%s on %s: %s frames over %.1f s", r.app.c_str(), got.endpoint.c_str(),
              FormatCount(s.frames).c_str(), s.seconds);
  if (s.missing_frames)
    std::printf(" (%s missing: the device dropped records the host did not take in time)",
                FormatCount(s.missing_frames).c_str());
  std::printf("\n");
  TextTable t({{""}, {"", TextTable::Align::kRight}});
  t.AddRow({"frame time mean / p50 / p95 / max", Fixed(s.mean_ms, 1) + " / " + Fixed(s.p50_ms, 1) +
                                                     " / " + Fixed(s.p95_ms, 1) + " / " +
                                                     Fixed(s.max_ms, 1) + " ms"});
  t.AddRow(
      {"frames over 16.7 ms (60 Hz)",
       FormatCount(s.over_60hz) + "  (" + Percent(double(s.over_60hz), double(s.frames)) + ")"});
  t.AddRow(
      {"frames over 33.3 ms (30 Hz)",
       FormatCount(s.over_30hz) + "  (" + Percent(double(s.over_30hz), double(s.frames)) + ")"});
  t.AddRow(
      {r.frame_totals == FrameTotals::kEstimated
           ? std::string("allocated per frame (") + analysis::FrameTotalsLabel(r.frame_totals) + ")"
           : std::string("allocated per frame"),
       FormatBytes(static_cast<uint64_t>(s.alloc_bytes_per_frame)) + "  (" +
           Fixed(double(s.alloc_objects) / double(s.frames), 1) + " objects)"});
  t.AddRow({"collections", FormatCount(s.gcs) + "  (" + Fixed(s.gcs_per_second, 2) + " per s, " +
                               Fixed(s.gc_ms / (s.gcs ? s.gcs : 1), 1) + " ms each, max " +
                               Fixed(s.max_gc_ms, 1) + " ms)"});
  if (!s.gcs_by_kind.empty()) {
    std::string kinds;
    for (const auto& c : s.gcs_by_kind)
      kinds +=
          (kinds.empty() ? "" : ", ") + analysis::GcKindText(c.kind) + ": " + FormatCount(c.count);
    t.AddRow({"collections by kind", kinds});
  }
  t.AddRow({"time in GC", Percent(s.gc_share, 1.0)});
  t.Print(stdout, 2);
  if (!r.markers.empty()) {
    const uint64_t t0 = r.frames.empty() ? r.markers.front().time_us
                                         : r.frames.front().end_us - r.frames.front().duration_us;
    std::printf("markers:\n");
    for (const auto& m : r.markers)
      std::printf("  %+8.3f s  frame %-8llu %s%s\n",
                  (static_cast<double>(m.time_us) - static_cast<double>(t0)) / 1e6,
                  static_cast<unsigned long long>(m.frame),
                  m.kind == MarkerKind::kCaptureRequest ? "capture requested: " : "",
                  m.text.c_str());
  }
  if (r.dropped_markers)
    std::printf("  (%s markers dropped: the game posted faster than the device could queue)\n",
                FormatCount(r.dropped_markers).c_str());
  return kExitOk;
}

VerbRegistration reg{"frames",
                     "Record the per-frame series of a device: frame time, allocation, GCs",
                     [](CLI::App& cmd) -> VerbRun {
                       auto o = std::make_shared<Opts>();
                       AddFramesRecordOptions(cmd, o->rec, false);
                       cmd.add_option("--csv", o->csv, "Write one row per frame to this CSV file");
                       AddJsonFlag(cmd, o->json);
                       return [o] { return Run(*o); };
                     }};

}  // namespace verb_frames
}  // namespace xrpm::cli
