#include "object_links.h"

#include <imgui.h>

#include "app.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::gui {
using namespace xrpm::app;

bool AnalysisReadyOrNote(const app::SnapshotDoc& doc, const char* waiting) {
  if (doc.analysis) return true;
  TextMuted(doc.analysis_note.empty() ? std::string(waiting) : doc.analysis_note);
  return false;
}

std::string ObjectLabel(const Snapshot& snap, uint32_t v) {
  if (v >= snap.object_count()) return "?";
  std::string s = snap.type_name_of(v) + " " + FormatHex(snap.object_id[v]);
  if (const auto text = StringOf(snap, v)) s += "  " + QuoteString(text->text, 40, text->cut);
  return s;
}

void StringTextTooltip(const Snapshot& snap, uint32_t v) {
  const auto text = StringOf(snap, v);
  if (!text) return;
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextUnformatted(QuoteString(text->text, size_t{1} << 20, text->cut).c_str());
    ImGui::PopTextWrapPos();
    TextMuted(FormatCount(text->full_length) + " characters" +
              (text->cut ? " (cut at the capture's cap)" : "") + " · right-click copies the text");
    ImGui::EndTooltip();
  }
  if (ImGui::IsItemClicked(ImGuiMouseButton_Right))
    ImGui::SetClipboardText(std::string(text->text).c_str());
}

bool ObjectLink(App& app, SnapshotDoc& doc, uint32_t v, bool open_on_click) {
  ImGui::PushID(static_cast<int>(v));
  const bool selected = doc.selection.object == int64_t(v);
  const bool clicked = ImGui::Selectable(ObjectLabel(*doc.snapshot, v).c_str(), selected,
                                         ImGuiSelectableFlags_AllowDoubleClick);
  if (clicked) {
    doc.selection.object = v;
    doc.selection.type = doc.snapshot->object_type[v];
    if (open_on_click || ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInspector);
  }
  if (StringOf(*doc.snapshot, v))
    StringTextTooltip(*doc.snapshot, v);
  else if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Double-click to inspect");
  ImGui::PopID();
  return clicked;
}

std::string RootText(const analysis::GraphIndex& g, uint32_t record) {
  return analysis::RootLabel(analysis::DescribeRoot(g, record));
}

void DrawRootPath(App& app, SnapshotDoc& doc, const analysis::RootPath& path) {
  const DocAnalysis& a = *doc.analysis;
  if (!path.found()) {
    TextColored(kWarn,
                "No strong root reaches this object: it is garbage the next GC frees "
                "(or held only by weak references).");
    return;
  }
  TextColored(kAccent, "root: " + RootText(a.index(), path.root_record));
  // nodes[0] is the object, nodes.back() is held by the root: draw from the root down. Long
  // chains (linked lists) show their two ends.
  constexpr size_t kEnds = 15;
  const size_t n = path.nodes.size();
  ImGui::Indent(14.f);
  for (size_t k = 0; k < n; ++k) {
    if (n > 2 * kEnds && k == kEnds) {
      TextMuted("… " + FormatCount(n - 2 * kEnds) + " more hops …");
      k = n - kEnds;
    }
    const uint32_t v = path.nodes[n - 1 - k];
    ImGui::TextDisabled("→");
    ImGui::SameLine();
    // The field of the previous hop that holds this one ("._items", "[12]").
    if (k > 0) {
      const std::string field = analysis::HoldingField(a.index(), path.nodes[n - k], v);
      if (!field.empty()) {
        TextColored(kAccent, field.front() == '[' ? field : "." + field);
        ImGui::SameLine();
      }
    }
    ObjectLink(app, doc, v, /*open_on_click=*/true);
    ImGui::SameLine();
    TextMuted(FormatBytes(a.dom().retained(v)) + " retained");
  }
  ImGui::Unindent(14.f);
}

bool OriginsOrNote(const SnapshotDoc& doc) {
  if (doc.snapshot->has_origins()) return true;
  ImGui::PushTextWrapPos(0);
  TextColored(kWarn, NoOriginsNote(*doc.snapshot, doc.path));
  ImGui::PopTextWrapPos();
  return false;
}

void GroupingCombo(SnapshotDoc& doc) {
  static constexpr const char* kLabels[] = {"Type", "Allocation site", "Type and site"};
  const bool has = doc.snapshot->has_origins();
  ImGui::BeginDisabled(!has);
  ImGui::SetNextItemWidth(150);
  int g = has ? int(doc.selection.grouping) : 0;
  if (ImGui::Combo("Group by", &g, kLabels, 3)) {
    doc.selection.grouping = SiteGrouping(g);
    doc.selection.site.reset();
  }
  ImGui::EndDisabled();
  if (!has && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", NoOriginsNote(*doc.snapshot, doc.path).c_str());
}

std::string SiteText(const Snapshot& snap, uint32_t site) {
  return analysis::SiteLabel(snap, site, 3);
}

std::string MergedPathText(const analysis::GraphIndex& g, const analysis::MergedPath& p) {
  return analysis::MergedPathLabel(g, p, "  \u2192  ");
}

}  // namespace xrpm::gui
