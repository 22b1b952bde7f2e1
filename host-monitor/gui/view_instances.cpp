// Instances view: every object of the selected type (ImGuiListClipper: millions are fine),
// sortable by retained size (default), size and reference count; a click selects an object, a
// double click opens it in the Inspector. Below: the few root paths that hold most of the
// instances (merged shortest paths, computed on the worker when the type is first shown).
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "view_common.h"
#include "views.h"
#include "widgets.h"
#include "xrpm/core/session/human_format.h"

namespace xrpm::gui {
using namespace xrpm::session;

namespace {
enum Col { kColObject, kColSize, kColRetained, kColRefs };

void DrawHolders(App& app, SnapshotDoc& doc, uint32_t type) {
  const DocAnalysis& a = *doc.analysis;
  const uint32_t group = a.index().group_of_type(type);
  app.session().FindHolders(doc.id, type);  // no-op when done or running
  SectionTitle("Paths from GC roots holding these instances (merged shortest paths)");
  if (!doc.holders || doc.holders->group != group) {
    TextMuted("Finding paths...");
    return;
  }
  const analysis::MergedPaths& mp = doc.holders->paths;
  if (mp.paths.empty()) {
    TextMuted(mp.unreachable ? "No strong root reaches any instance (all garbage)." : "No paths.");
    return;
  }
  if (!ImGui::BeginTable(
          "holders", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_BordersInnerV))
    return;
  ImGui::TableSetupColumn("Instances", 0, 100);
  ImGui::TableSetupColumn("Retained", 0, 100);
  ImGui::TableSetupColumn("Path (root \u2192 ... \u2192 instances; Type+ is a run of that type)",
                          ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < mp.paths.size(); ++i) {
    const auto& p = mp.paths[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    TextRight(FormatCount(p.count));
    ImGui::TableNextColumn();
    TextRight(FormatBytes(p.retained_bytes));
    ImGui::TableNextColumn();
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(MergedPathText(a.index(), p).c_str(), false) && p.example != kNoIndex) {
      doc.selection.object = p.example;
      app.SetView(View::kInspector);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Click to inspect an instance on this path");
    ImGui::PopID();
  }
  ImGui::EndTable();
  if (mp.other_paths)
    TextMuted("... and " + FormatCount(mp.other_instances) + " instances on " +
              FormatCount(mp.other_paths) + " other paths");
  if (mp.unreachable)
    TextMuted(FormatCount(mp.unreachable) + " instances are unreachable (garbage)");
}
}  // namespace

void DrawInstancesView(App& app, SnapshotDoc& doc) {
  const Snapshot& snap = *doc.snapshot;
  if (doc.selection.type < 0) {
    TextMuted("Select a type in the Types view (double-click a row) to list its instances.");
    return;
  }
  InstancesViewState& st = app.views().instances;
  const uint32_t type = static_cast<uint32_t>(doc.selection.type);
  const DocAnalysis* a = doc.analysis.get();
  if (st.doc != doc.id || st.type != doc.selection.type || st.analysis != a) {
    st.doc = doc.id;
    st.type = doc.selection.type;
    st.analysis = a;
    if (a) {
      auto nodes = a->index().Instances(a->index().group_of_type(type));
      st.objects.assign(nodes.begin(), nodes.end());
    } else {
      st.objects = InstancesOfType(snap, type);
    }
    st.sort_column = -1;  // re-sort below
  }

  TextColored(kAccent, snap.types[type].name);
  ImGui::SameLine();
  TextMuted(FormatCount(st.objects.size()) + " instances");

  const bool holders = a != nullptr;
  const float table_h = holders ? ImGui::GetContentRegionAvail().y * 0.62f : 0.f;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("instances", 4, flags, ImVec2(0, table_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn(
        "Object", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 0, kColObject);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_PreferSortDescending, 100, kColSize);
    ImGui::TableSetupColumn(
        "Retained", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
        110, kColRetained);
    ImGui::TableSetupColumn("References out", ImGuiTableColumnFlags_PreferSortDescending, 130,
                            kColRefs);
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
      const int col = sort->SpecsCount ? int(sort->Specs[0].ColumnUserID) : kColRetained;
      const bool desc =
          sort->SpecsCount ? sort->Specs[0].SortDirection == ImGuiSortDirection_Descending : true;
      if (sort->SpecsDirty || col != st.sort_column || desc != st.sort_descending) {
        st.sort_column = col;
        st.sort_descending = desc;
        const InstanceOrder order = col == kColRefs   ? InstanceOrder::kRefs
                                    : col == kColSize ? InstanceOrder::kSize
                                                      : InstanceOrder::kRetained;
        SortInstances(snap, st.objects, order, desc,
                      a ? a->dom().retained_sizes() : std::span<const uint64_t>());
        sort->SpecsDirty = false;
      }
    }

    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(st.objects.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const uint64_t o = st.objects[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(i);
        const std::string label = FormatHex(snap.object_id[o]);
        if (ImGui::Selectable(
                label.c_str(), doc.selection.object == int64_t(o),
                ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
          doc.selection.object = int64_t(o);
          if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInspector);
        }
        ImGui::PopID();
        ImGui::TableNextColumn();
        TextRight(FormatBytes(snap.object_size[o]));
        ImGui::TableNextColumn();
        TextRight(a ? FormatBytes(a->dom().retained(uint32_t(o))) : "\u2026");
        ImGui::TableNextColumn();
        TextRight(FormatCount(snap.object_refs(o).size()));
      }
    }
    ImGui::EndTable();
  }
  if (holders) {
    ImGui::BeginChild("##holders");
    DrawHolders(app, doc, type);
    ImGui::EndChild();
  }
}

}  // namespace xrpm::gui
