// Summary view: where the snapshot came from (for a capture: the device and what the capture
// cost, also when reopened from .xrpm), totals per AppDomain section, roots by
// descriptor, the largest types at a glance, and the reader's problems with the file.
#include <imgui.h>

#include <algorithm>
#include <ctime>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/capture_pause.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
void Row(const char* label, const std::string& value) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  TextMuted(label);
  ImGui::TableNextColumn();
  ImGui::TextWrapped("%s", value.c_str());  // within the column (a snapshot walk's pause is long)
}

std::string Ms(const std::optional<uint64_t>& ms) {
  if (!ms) return "—";
  return FormatDuration(double(*ms) / 1000.0) + " after boot";
}
void DrawSuspect(App& app, SnapshotDoc& doc, const analysis::Suspect& s, size_t i) {
  const DocAnalysis& a = *doc.analysis;
  ImGui::PushID(int(i));
  NumberedWrapped(i + 1, s.reason);
  ImGui::Indent(20);
  if (s.kind == analysis::Suspect::Kind::kObject && s.node != kNoIndex) {
    if (ImGui::SmallButton("Inspect")) {
      doc.selection.object = s.node;
      doc.selection.type = doc.snapshot->object_type[s.node];
      app.SetView(View::kInspector);
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Show in dominator tree")) {
      app.views().dominators.reveal = s.node;
      app.SetView(View::kDominators);
    }
    if (s.path.found()) {
      ImGui::SameLine();
      const size_t hops = s.path.nodes.size() - 1;
      TextMuted("held by " + RootText(a.index(), s.path.root_record) +
                (hops ? " through " + FormatCount(hops) + (hops == 1 ? " object" : " objects")
                      : std::string(" directly")));
    }
  } else if (!s.holders.paths.empty()) {
    if (ImGui::SmallButton("Show instances") && s.group != kNoIndex) {
      auto inst = a.index().Instances(s.group);
      if (!inst.empty()) doc.selection.type = doc.snapshot->object_type[inst.front()];
      app.SetView(View::kInstances);
    }
    ImGui::SameLine();
    TextMuted("held by: " + MergedPathText(a.index(), s.holders.paths.front()));
  }
  ImGui::Unindent(20);
  ImGui::PopID();
}

void DrawAnalysisSummary(App& app, SnapshotDoc& doc) {
  ImGui::Spacing();
  if (!doc.analysis) {
    if (doc.state == DocState::kAnalysing) {
      TextMuted("Analysing: retained sizes, dominators, paths and leak suspects follow...");
    } else {
      TextColored(kWarn, doc.analysis_note.empty() ? "Not analysed." : doc.analysis_note);
      ImGui::SameLine();
      if (ImGui::SmallButton("Analyse")) app.session().documents().Analyse(doc.id);
    }
    return;
  }
  const DocAnalysis& a = *doc.analysis;
  const auto& t = a.totals;
  SectionTitle("Leak suspects");
  TextMuted(
      "Live (reachable) heap: " + FormatBytes(t.reachable_bytes) + " in " +
      FormatCount(t.reachable_objects) + " objects; garbage: " + FormatBytes(t.unreachable_bytes) +
      " in " + FormatCount(t.unreachable_objects) + " objects" +
      (t.dangling_refs ? "; " + FormatCount(t.dangling_refs) + " references to missing objects"
                       : ""));
  if (a.suspects.empty()) {
    TextColored(kGood, "Nothing holds an outsized share of the heap.");
    return;
  }
  for (size_t i = 0; i < a.suspects.size(); ++i) DrawSuspect(app, doc, a.suspects[i], i);
}

// What the capture cost and where it came from: live, and again when reopened from .xrpm.
void DrawCaptureInfo(const CaptureInfo& c, float width) {
  ImGui::Spacing();
  TextMuted("Capture");
  if (!ImGui::BeginTable("capture", 2, ImGuiTableFlags_SizingFixedFit, ImVec2(width, 0))) return;
  ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, 150);
  ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
  const std::time_t t = static_cast<std::time_t>(c.captured_at_unix_ms / 1000);
  char when[40] = "-";
  if (std::tm tm{}; localtime_r(&t, &tm))
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  Row("Device",
      c.device.app_name + " on " + c.device.runtime_name + " " + c.device.runtime_version);
  Row("Platform", c.device.platform + ", " + std::to_string(c.device.pointer_bytes * 8) + "-bit");
  Row("From", c.device.endpoint);
  Row("Captured", std::string(when));
  Row("Game paused", DescribeCapturePause(c));
  Row("Transfer", FormatBytes(c.wire_bytes) + " in " + FormatCount(c.batches) + " batches, " +
                      FormatDuration(double(c.elapsed_us) / 1e6));
  Row("Agent memory", FormatBytes(c.agent_peak_bytes) + " at the peak");
  ImGui::EndTable();
}

}  // namespace

void DrawSummaryView(App& app, SnapshotDoc& doc) {
  const Snapshot& snap = *doc.snapshot;
  const HeapOverview& h = *doc.overview;
  const TypeTable& types = *doc.types;

  TextColored(kAccent, doc.title);
  TextMuted(snap.source.empty() ? std::string(DocOriginName(doc.origin)) : snap.source);
  ImGui::Spacing();

  const float half = ImGui::GetContentRegionAvail().x * 0.5f - 8;
  ImGui::BeginGroup();
  if (ImGui::BeginTable("totals", 2, ImGuiTableFlags_SizingFixedFit, ImVec2(half, 0))) {
    ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, 150);
    ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
    Row("Objects", FormatCount(h.objects));
    Row("Heap size", FormatBytes(h.bytes) + "  (" + FormatCount(h.bytes) + " bytes)");
    if (h.sampled) {
      const auto n = static_cast<uint64_t>(h.scaled_objects + 0.5);
      const auto b = static_cast<uint64_t>(h.scaled_bytes + 0.5);
      Row("Sampled dump", "yes; scaled to the whole heap:");
      Row("  objects, scaled", FormatCount(n));
      Row("  size, scaled", FormatBytes(b) + "  (" + FormatCount(b) + " bytes)");
    }
    Row("References", FormatCount(h.refs));
    Row("Roots", FormatCount(h.roots));
    Row("Types with instances",
        FormatCount(types.rows.size()) + " of " + FormatCount(snap.type_count()));
    Row("Largest object", FormatBytes(h.largest_object));
    Row("State", std::string(DocStateName(doc.state)) + (doc.unsaved ? ", unsaved" : ""));
    if (doc.origin == DocOrigin::kOpened) Row("Loaded in", FormatDuration(doc.load_seconds));
    if (doc.origin == DocOrigin::kGenerated) Row("Generated in", FormatDuration(doc.load_seconds));
    if (doc.analysis_seconds > 0) Row("Analysed in", FormatDuration(doc.analysis_seconds));
    Row("Memory held",
        FormatBytes(snap.MemoryBytes() + (doc.analysis ? doc.analysis->MemoryBytes() : 0)));
    ImGui::EndTable();
  }
  if (snap.capture) DrawCaptureInfo(*snap.capture, half);
  ImGui::EndGroup();
  ImGui::SameLine(0, 16);
  ImGui::BeginGroup();
  TextMuted("Roots by descriptor");
  if (ImGui::BeginTable("rootkinds", 2, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg,
                        ImVec2(half, 0))) {
    ImGui::TableSetupColumn("k", ImGuiTableColumnFlags_WidthFixed, 150);
    ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch);
    for (int k = 0; k < kRootKindCount; ++k)
      Row(std::string(RootKindName(RootKind(k))).c_str(), FormatCount(h.roots_by_kind[k]));
    Row("weak / pinned", FormatCount(h.weak_roots) + " / " + FormatCount(h.pinned_roots));
    ImGui::EndTable();
  }
  ImGui::EndGroup();

  ImGui::Spacing();
  TextMuted("AppDomains");
  if (ImGui::BeginTable(
          "sections", 7,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("AppDomain", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Objects");
    ImGui::TableSetupColumn("Bytes");
    ImGui::TableSetupColumn("Types");
    ImGui::TableSetupColumn("Roots");
    ImGui::TableSetupColumn("Started");
    ImGui::TableSetupColumn("Ended");
    ImGui::TableHeadersRow();
    for (const auto& s : h.sections) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.name.c_str());
      if (!s.closed) {
        ImGui::SameLine();
        TextColored(kWarn, "(unclosed)");
      }
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.objects));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(s.bytes));
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.types));
      ImGui::TableNextColumn();
      TextRight(FormatCount(s.roots));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(Ms(s.start_ms).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(Ms(s.end_ms).c_str());
    }
    ImGui::EndTable();
  }

  // Largest types, by retained size when known.
  ImGui::Spacing();
  TextMuted(types.has_retained ? "Largest types by retained size"
                               : "Largest types by shallow size");
  std::vector<const TypeRow*> top;
  for (const auto& r : types.rows) top.push_back(&r);
  auto key = [&](const TypeRow* r) { return types.has_retained ? r->retained : r->shallow; };
  const size_t n = std::min<size_t>(8, top.size());
  std::partial_sort(top.begin(), top.begin() + n, top.end(),
                    [&](auto* a, auto* b) { return key(a) > key(b); });
  if (ImGui::BeginTable("top", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Instances", 0, 110);
    ImGui::TableSetupColumn("Share", 0, 220);
    for (size_t i = 0; i < n; ++i) {
      const TypeRow& r = *top[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(snap.types[r.type].name.c_str(),
                            doc.selection.type == int64_t(r.type))) {
        doc.selection.type = r.type;
        app.SetView(View::kTypes);
      }
      ImGui::TableNextColumn();
      TextRight(FormatCount(r.count));
      ImGui::TableNextColumn();
      const double share = h.bytes ? double(key(&r)) / double(h.bytes) : 0;
      ShareBar(float(share), FormatBytes(key(&r)) + "  " + FormatPercent(share));
    }
    ImGui::EndTable();
  }

  DrawAnalysisSummary(app, doc);

  if (doc.diagnostics_total) {
    ImGui::Spacing();
    TextColored(kWarn, FormatCount(doc.diagnostics_total) +
                           " problems were found in the file (it was loaded leniently):");
    for (const auto& d : doc.diagnostics) ImGui::BulletText("%s", d.c_str());
    if (doc.diagnostics_total > doc.diagnostics.size())
      TextMuted("... and " + FormatCount(doc.diagnostics_total - doc.diagnostics.size()) + " more");
  }
}

}  // namespace xrpm::gui
