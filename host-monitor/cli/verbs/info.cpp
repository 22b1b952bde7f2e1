// `xrpm info FILE`: what a snapshot file holds: its sections, counts, totals and problems; for a
// saved recording (xrpm frames/allocations -o), what the recording holds.
#include <array>
#include <ctime>

#include "shared/common.h"
#include "shared/origins.h"
#include "shared/verb.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/app/analysis_json.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/capture_pause.h"

namespace xrpm::cli {
namespace verb_info {

struct Opts : FileVerbOptions {};

std::string Stamp(const std::optional<uint64_t>& ms) {
  return ms ? FormatHexDigits(*ms) : "-";
}

std::string Duration(const AppDomainSection& s) {
  if (!s.start_ms || !s.end_ms || *s.end_ms < *s.start_ms) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(*s.end_ms - *s.start_ms) / 1000.0);
  return buf;
}

nlohmann::json CaptureJson(const CaptureInfo& c) {
  return {
      {"endpoint", c.device.endpoint},
      {"agent", c.device.agent_name},
      {"protocol_version", c.device.protocol_version},
      {"runtime", c.device.runtime_name},
      {"runtime_version", c.device.runtime_version},
      {"app", c.device.app_name},
      {"platform", c.device.platform},
      {"pointer_bytes", c.device.pointer_bytes},
      {"big_endian", c.device.big_endian},
      {"capture_id", c.capture_id},
      {"captured_at_unix_ms", c.captured_at_unix_ms},
      {"batches", c.batches},
      {"wire_bytes", c.wire_bytes},
      {"pause_us", c.pause_us},
      {"gc_us", c.gc_us},
      {"walk_us", c.walk_us},
      {"walk_after_pause_us", c.walk_after_pause_us},
      {"snapshot_walk", c.snapshot_walk()},
      {"stop_wait_us", c.stop_wait_us},
      {"stall_us", c.stall_us},
      {"agent_peak_bytes", c.agent_peak_bytes},
      {"elapsed_us", c.elapsed_us},
      {"last_marker", c.marker_age_us >= 0 ? nlohmann::json(c.last_marker) : nlohmann::json()},
      {"marker_age_us", c.marker_age_us >= 0 ? nlohmann::json(c.marker_age_us) : nlohmann::json()}};
}

// The capture's metadata as a short text block (files that keep it: .xrpm).
void PrintCapture(const CaptureInfo& c) {
  const std::time_t t = static_cast<std::time_t>(c.captured_at_unix_ms / 1000);
  char when[32] = "-";
  if (std::tm tm{}; gmtime_r(&t, &tm))
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  std::printf("\nCapture\n");
  using A = TextTable::Align;
  TextTable t2({{"", A::kLeft}, {"", A::kLeft}});
  t2.AddRow({"device", c.device.app_name + " on " + c.device.runtime_name + " " +
                           c.device.runtime_version + " (" + c.device.platform + ", " +
                           std::to_string(c.device.pointer_bytes * 8) + "-bit)"});
  t2.AddRow({"from", c.device.endpoint + ", " + c.device.agent_name});
  t2.AddRow({"taken", std::string(when) + ", capture " + std::to_string(c.capture_id)});
  t2.AddRow({"game paused", DescribeCapturePause(c)});
  t2.AddRow({"transfer", FormatBytes(c.wire_bytes) + " in " + FormatCount(c.batches) +
                             " batches, " + FormatPauseTime(c.elapsed_us) + " in all"});
  t2.AddRow({"agent memory", FormatBytes(c.agent_peak_bytes) + " at the peak"});
  if (c.marker_age_us >= 0) {
    char b[64];
    std::snprintf(b, sizeof b, "captured %.1f s after marker", c.marker_age_us / 1e6);
    t2.AddRow({"marker", std::string(b) + " '" + c.last_marker + "'"});
  }
  t2.Print(stdout, 2);
}

// Allocation origins: which objects have a site and frame, or why none do.
uint64_t KnownOrigins(const Snapshot& s) {
  uint64_t known = 0;
  for (size_t i = 0; i < s.object_count(); ++i) known += s.origin_known(i);
  return known;
}

nlohmann::json AllocationOriginsJson(const Snapshot& s) {
  nlohmann::json j = app::OriginsSummaryJson(s);
  if (!j.is_null()) j["objects_with_origin"] = KnownOrigins(s);
  return j;
}

void PrintAllocationOrigins(const Snapshot& s) {
  std::printf("\nAllocation origins: ");
  if (!s.origins) {
    std::printf("none (%s)\n", NoOriginsMessage().substr(NoOriginsMessage().find(':') + 2).c_str());
    return;
  }
  const uint64_t known = KnownOrigins(s);
  std::printf(
      "captured at frame %s; %s of %s objects have a site and frame, %s sites of %s "
      "methods\n",
      FormatCount(s.origins->capture_frame).c_str(), FormatCount(known).c_str(),
      FormatCount(s.object_count()).c_str(), FormatCount(s.origins->sites.size()).c_str(),
      FormatCount(s.origins->methods.size()).c_str());
  if (const std::string note = SampledNote(s); !note.empty()) std::printf("  %s\n", note.c_str());
}

// Object contents: layouts, field identities, labels, values, or why none.
nlohmann::json ObjectContentsJson(const Snapshot& s) {
  if (!s.fields.present()) return nullptr;
  const HeapFieldsSummary f = Summarize(s.fields);
  return {{"type_layouts", f.type_layouts},
          {"references_with_field", f.known_slots},
          {"labelled_roots", f.labelled_roots},
          {"values_captured", s.fields.values_captured},
          {"objects_with_values", f.objects_with_values},
          {"value_bytes", f.value_bytes},
          {"string_cap", s.fields.string_cap},
          {"model_bytes", f.model_bytes}};
}

void PrintObjectContents(const Snapshot& s) {
  std::printf("\nObject contents: ");
  if (!s.fields.present()) {
    std::printf("none (the source has no field layouts or values)\n");
    return;
  }
  const HeapFieldsSummary f = Summarize(s.fields);
  std::printf("%s type layouts; the field of %s of %s references; %s of %s roots labelled\n",
              FormatCount(f.type_layouts).c_str(), FormatCount(f.known_slots).c_str(),
              FormatCount(s.ref_count()).c_str(), FormatCount(f.labelled_roots).c_str(),
              FormatCount(s.root_count()).c_str());
  if (s.fields.values_captured)
    std::printf("  values of %s objects (%s; strings cut at %s characters); %s in memory\n",
                FormatCount(f.objects_with_values).c_str(), FormatBytes(f.value_bytes).c_str(),
                FormatCount(s.fields.string_cap).c_str(), FormatBytes(f.model_bytes).c_str());
  else
    std::printf("  captured without values (--no-values); %s in memory\n",
                FormatBytes(f.model_bytes).c_str());
}

// Does `path` hold a saved recording? (The table of contents only: cheap for any capture.)
bool IsRecording(const std::string& path) {
  std::string head(8, '\0');
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
  }
  if (!formats::LooksLikeXrpm(head)) return false;
  for (const formats::XrpmPartInfo& p : formats::ListXrpmParts(path))
    if (p.tag == formats::RecordingPartTags().front()) return true;
  return false;
}

int RunRecording(const Opts& o) {
  const formats::SavedRecording r = formats::LoadRecordingFile(o.file);
  const analysis::FrameSummary s = analysis::SummarizeFrames(r.rec);
  if (o.json) {
    PrintJson({{"file", o.file},
               {"format", "xrpm-recording"},
               {"app", r.rec.app},
               {"endpoint", r.endpoint},
               {"frames", s.frames},
               {"first_frame", s.first_frame},
               {"last_frame", s.last_frame},
               {"seconds", s.seconds},
               {"samples", r.rec.samples.size()},
               {"sample_bytes", r.rec.sample_bytes},
               {"frame_totals", FrameTotalsName(r.rec.frame_totals)},
               {"markers", r.rec.markers.size()},
               {"tags", r.rec.tags}});
    return kExitOk;
  }
  std::printf("%s  (xrpm recording)\n\n", o.file.c_str());
  std::printf("Recording of %s on %s: %s frames (%llu..%llu) over %.1f s, %s allocation samples",
              r.rec.app.c_str(), r.endpoint.c_str(), FormatCount(s.frames).c_str(),
              static_cast<unsigned long long>(s.first_frame),
              static_cast<unsigned long long>(s.last_frame), s.seconds,
              FormatCount(r.rec.samples.size()).c_str());
  if (r.rec.sample_bytes) std::printf(" (one per %s)", FormatBytes(r.rec.sample_bytes).c_str());
  std::printf(", %s markers, %s scope tags\n", FormatCount(r.rec.markers.size()).c_str(),
              FormatCount(r.rec.tags.size()).c_str());
  std::printf("Bytes and objects allocated per frame: %s\n",
              analysis::FrameTotalsLabel(r.rec.frame_totals));
  std::printf("Read it with: xrpm frames %s; xrpm allocations %s [--by type|method|stack|tag]\n",
              o.file.c_str(), o.file.c_str());
  return kExitOk;
}

int Run(const Opts& o) {
  if (IsRecording(o.file)) return RunRecording(o);
  LoadedSnapshot l = LoadForCli(o.file, o.in);
  const Snapshot& s = l.snap;

  std::array<uint64_t, kRootKindCount> by_kind{};
  uint64_t pinned = 0, weak = 0, interior = 0;
  for (size_t r = 0; r < s.root_count(); ++r) {
    if (s.root_kind[r] < kRootKindCount) ++by_kind[s.root_kind[r]];
    pinned += (s.root_flags[r] & kRootPinned) != 0;
    weak += (s.root_flags[r] & kRootWeak) != 0;
    interior += (s.root_flags[r] & kRootInterior) != 0;
  }
  uint32_t placeholders = 0;
  for (const TypeInfo& t : s.types) placeholders += t.placeholder;
  const uint64_t bytes = s.total_bytes();
  // Sampled dumps (.gcdump): the totals as stored and as scaled to the whole heap.
  const bool sampled = s.sampled();
  const double scaled_objects = s.scaled_object_count(), scaled_bytes = s.scaled_total_bytes();

  if (o.json) {
    nlohmann::json secs = nlohmann::json::array();
    for (size_t i = 0; i < s.sections.size(); ++i) {
      const AppDomainSection& sec = s.sections[i];
      SectionFigures f = Figures(s, sec);
      secs.push_back({{"index", i},
                      {"name", sec.name},
                      {"end_name", sec.end_name},
                      {"version", sec.version},
                      {"start_ms", sec.start_ms ? nlohmann::json(*sec.start_ms) : nlohmann::json()},
                      {"end_ms", sec.end_ms ? nlohmann::json(*sec.end_ms) : nlohmann::json()},
                      {"closed", sec.closed},
                      {"types", f.types},
                      {"placeholder_types", f.placeholders},
                      {"objects", f.objects},
                      {"references", f.refs},
                      {"roots", f.roots},
                      {"bytes", f.bytes}});
    }
    nlohmann::json kinds = nlohmann::json::object();
    for (int k = 0; k < kRootKindCount; ++k)
      kinds[std::string(RootKindName(static_cast<RootKind>(k)))] = by_kind[static_cast<size_t>(k)];
    PrintJson({{"file", l.path},
               {"format", l.format},
               {"file_bytes", l.file_bytes},
               {"sections", secs},
               {"totals",
                {{"sections", s.sections.size()},
                 {"types", s.type_count()},
                 {"placeholder_types", placeholders},
                 {"objects", s.object_count()},
                 {"references", s.ref_count()},
                 {"roots", s.root_count()},
                 {"bytes", bytes},
                 {"scaled_objects", scaled_objects},
                 {"scaled_bytes", scaled_bytes}}},
               {"sampled", sampled},
               {"roots_by_kind", kinds},
               {"roots_by_flag", {{"pinned", pinned}, {"weak", weak}, {"interior", interior}}},
               {"root_origins", s.root_origins.size()},
               {"capture", s.capture ? CaptureJson(*s.capture) : nlohmann::json()},
               {"allocation_origins", AllocationOriginsJson(s)},
               {"object_contents", ObjectContentsJson(s)},
               {"diagnostics", DiagnosticsJson(l.diags)}});
    return kExitOk;
  }

  std::printf("%s  (%s, %s%s)\n\n", l.path.c_str(), l.format.c_str(),
              FormatBytes(l.file_bytes).c_str(), sampled ? ", sampled" : "");
  using A = TextTable::Align;
  TextTable secs({{"#", A::kRight},
                  {"appdomain", A::kLeft},
                  {"ver", A::kRight},
                  {"start", A::kRight},
                  {"end", A::kRight},
                  {"duration", A::kRight},
                  {"types", A::kRight},
                  {"objects", A::kRight},
                  {"refs", A::kRight},
                  {"roots", A::kRight},
                  {"size", A::kRight},
                  {"note", A::kLeft}});
  for (size_t i = 0; i < s.sections.size(); ++i) {
    const AppDomainSection& sec = s.sections[i];
    SectionFigures f = Figures(s, sec);
    std::string note;
    if (!sec.closed) note = "unclosed";
    if (!sec.end_name.empty())
      note += (note.empty() ? "" : ", ") + ("ends as '" + sec.end_name + "'");
    secs.AddRow({std::to_string(i), sec.name.empty() ? "(unnamed)" : sec.name,
                 std::to_string(sec.version), Stamp(sec.start_ms), Stamp(sec.end_ms), Duration(sec),
                 FormatCount(f.types), FormatCount(f.objects), FormatCount(f.refs),
                 FormatCount(f.roots), FormatBytes(f.bytes), note});
  }
  std::printf("Sections: %zu\n", s.sections.size());
  if (secs.rows()) secs.Print(stdout, 2);

  if (s.capture) PrintCapture(*s.capture);
  PrintAllocationOrigins(s);
  PrintObjectContents(s);

  std::printf("\nTotals\n");
  TextTable tot({{"", A::kLeft}, {"", A::kRight}, {"", A::kLeft}});
  tot.AddRow({"types", FormatCount(s.type_count()),
              placeholders ? "(" + FormatCount(placeholders) + " without a type record)" : ""});
  tot.AddRow({"objects", FormatCount(s.object_count()), ""});
  tot.AddRow({"references", FormatCount(s.ref_count()), ""});
  tot.AddRow({"roots", FormatCount(s.root_count()), ""});
  tot.AddRow({"size", FormatBytes(bytes), "(" + FormatCount(bytes) + " bytes)"});
  if (sampled) {
    const auto scaled_n = static_cast<uint64_t>(scaled_objects + 0.5);
    const auto scaled_b = static_cast<uint64_t>(scaled_bytes + 0.5);
    tot.AddRow({"objects, scaled", FormatCount(scaled_n), "(the whole heap, estimated)"});
    tot.AddRow({"size, scaled", FormatBytes(scaled_b), "(" + FormatCount(scaled_b) + " bytes)"});
  }
  tot.Print(stdout, 2);
  if (sampled)
    std::printf(
        "  sampled dump: the file holds a sample of the heap; the scaled figures apply each\n"
        "  type's count multiplier to its stored objects and sizes\n");

  if (s.root_count()) {
    std::printf("\nRoots\n");
    TextTable roots({{"kind", A::kLeft}, {"count", A::kRight}, {"share", A::kRight}});
    for (int k = 0; k < kRootKindCount; ++k) {
      uint64_t n = by_kind[static_cast<size_t>(k)];
      if (n)
        roots.AddRow({std::string(RootKindName(static_cast<RootKind>(k))), FormatCount(n),
                      Percent(static_cast<double>(n), static_cast<double>(s.root_count()))});
    }
    roots.Print(stdout, 2);
    if (pinned || weak || interior)
      std::printf("  flags: %s pinned, %s weak, %s interior\n", FormatCount(pinned).c_str(),
                  FormatCount(weak).c_str(), FormatCount(interior).c_str());
  }

  std::printf("\nDiagnostics: ");
  if (l.diags.empty()) {
    std::printf("none\n");
  } else {
    std::string by;
    for (const auto& [code, n] : l.diags.counts())
      by += (by.empty() ? "" : ", ") + code + " " + FormatCount(n);
    std::printf("%s (%s; listed on stderr)\n", FormatCount(l.diags.total()).c_str(), by.c_str());
  }
  return kExitOk;
}

VerbRegistration reg{"info", "Show a snapshot file's sections, counts, totals and input problems",
                     [](CLI::App& cmd) -> VerbRun {
                       auto o = std::make_shared<Opts>();
                       AddFileOptions(cmd, *o);
                       return [o] { return Run(*o); };
                     }};

}  // namespace verb_info
}  // namespace xrpm::cli
