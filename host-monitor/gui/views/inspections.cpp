// Inspections view: the automatic inspections of the active snapshot, computed with
// its analysis (DocAnalysis::inspections, rows from app/inspection_rows.h). One section per
// inspection, those with problems first (what it found in all, or why it was skipped), one
// row per finding: severity,
// what (the text, event field or type), count, bytes (wasted, retained or shallow, as the
// inspection says), the first object (click: select it; double click: the Inspector with its
// path to the root), an Instances link for the objects' type, and the merged path that holds
// the finding's objects.
//
// Thread-safety: UI thread only.
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/app/inspection_rows.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

ImVec4 SeverityColor(Severity s) {
  switch (s) {
    case Severity::kProblem:
      return kBad;
    case Severity::kWarning:
      return kWarn;
    case Severity::kInfo:
      break;
  }
  return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
}

void DrawFindings(App& app, SnapshotDoc& doc, const analysis::Inspection& in,
                  const std::vector<InspectionRow>& rows) {
  const DocAnalysis& a = *doc.analysis;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("findings", 7, flags)) return;
  ImGui::TableSetupColumn("Severity", 0, 64);
  ImGui::TableSetupColumn("What", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableSetupColumn("Objects", 0, 64);
  ImGui::TableSetupColumn(("Bytes (" + in.bytes_meaning + ")").c_str(), 0, 110);
  ImGui::TableSetupColumn("First object", 0, 190);
  ImGui::TableSetupColumn("Type", 0, 70);
  ImGui::TableSetupColumn("Held by (merged path)", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  for (const InspectionRow& r : rows) {
    const analysis::Finding& f = in.findings[r.finding];
    ImGui::TableNextRow();
    ImGui::PushID(static_cast<int>(r.finding));
    ImGui::TableNextColumn();
    TextColored(SeverityColor(r.severity), SeverityName(r.severity));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(f.what.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.what.c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(f.count));
    ImGui::TableNextColumn();
    TextRight(FormatBytes(f.bytes));
    ImGui::TableNextColumn();
    if (r.object != kNoIndex)
      ObjectLink(app, doc, r.object);
    else
      TextMuted("-");
    ImGui::TableNextColumn();
    if (r.type != kNoIndex && ImGui::SmallButton("Instances")) {
      doc.selection.type = r.type;
      doc.selection.site.reset();
      doc.selection.object = r.object;
      app.SetView(View::kInstances);
    }
    if (r.type != kNoIndex && ImGui::IsItemHovered())
      ImGui::SetTooltip("The instances of %s", a.snapshot->types[r.type].name.c_str());
    ImGui::TableNextColumn();
    if (f.path.empty())
      TextMuted("(no path)");
    else
      ImGui::TextUnformatted(f.path.c_str());
    if (!f.path.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.path.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

}  // namespace

void DrawInspectionsView(App& app, SnapshotDoc& doc) {
  if (!AnalysisReadyOrNote(doc, "Analysing... the inspections need the object graph.")) return;
  const DocAnalysis& a = *doc.analysis;
  const std::vector<InspectionRow> rows = InspectionRows(a);
  size_t problems = 0;
  for (const InspectionRow& r : rows) problems += r.severity == Severity::kProblem;
  TextMuted(FormatCount(rows.size()) + " finding(s), " + FormatCount(problems) +
            " problem(s): objects kept alive that the program is done with");
  ImGui::SameLine();
  HelpMarker(
      "Automatic inspections (docs/INSPECTIONS.md, the same as `xrpm inspect`). problem: "
      "event-handler leaks and disposed objects still held; warning: >= 1 % of the reachable "
      "heap or >= 100 objects; info: the rest. Click an object to select it, double-click to "
      "see it and its path in the Inspector; Instances lists the objects of its type.");
  // Sections with the most severe findings first; otherwise in the inspections' order.
  std::vector<Severity> worst(a.inspections.size(), Severity::kInfo);
  for (const InspectionRow& r : rows)
    worst[r.inspection] = std::max(worst[r.inspection], r.severity);
  std::vector<uint32_t> order(a.inspections.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return worst[x] > worst[y]; });
  for (uint32_t i : order) {
    const analysis::Inspection& in = a.inspections[i];
    std::string head = in.name;
    if (in.skipped)
      head += "  (skipped)";
    else
      head += "  " + FormatCount(in.total_count) + " objects, " + FormatBytes(in.total_bytes) +
              " " + in.bytes_meaning + ", " + FormatCount(in.findings.size()) + " findings";
    ImGui::PushID(static_cast<int>(i));
    const ImGuiTreeNodeFlags open = in.findings.empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen;
    if (ImGui::CollapsingHeader((head + "###inspection").c_str(), open)) {
      if (in.skipped) {
        ImGui::PushTextWrapPos(0);
        TextMuted("Skipped: " + *in.skipped + ".");
        ImGui::PopTextWrapPos();
      } else if (in.findings.empty()) {
        if (!in.note.empty()) TextMuted("Note: " + in.note + ".");
        TextMuted("Nothing found.");
      } else {
        if (!in.note.empty()) {
          ImGui::PushTextWrapPos(0);
          TextMuted("Note: " + in.note + ".");
          ImGui::PopTextWrapPos();
        }
        std::vector<InspectionRow> mine;
        for (const InspectionRow& r : rows)
          if (r.inspection == i) mine.push_back(r);
        DrawFindings(app, doc, in, mine);
      }
    }
    ImGui::PopID();
  }
}

}  // namespace xrpm::gui
