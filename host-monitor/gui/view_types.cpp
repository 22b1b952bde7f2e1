// Types view: one row per type with instances, count, shallow and retained bytes and share of
// the heap; sortable (retained bytes, largest first, by default), filterable (Ctrl+F), and only
// the visible rows are drawn (ImGuiListClipper). The sorted order is cached in TypeListView and
// recomputed only when the filter, the sort or the table changes.
#include <imgui.h>

#include <cstring>

#include "app.h"
#include "views.h"
#include "widgets.h"
#include "xrpm/core/session/human_format.h"

namespace xrpm::gui {
using namespace xrpm::session;

namespace {
enum Col { kColName, kColCount, kColShallow, kColRetained, kColShare };

TypeColumn ToTypeColumn(int user_id) {
  switch (user_id) {
    case kColName:
      return TypeColumn::kName;
    case kColCount:
      return TypeColumn::kCount;
    case kColShallow:
      return TypeColumn::kShallow;
    default:
      return TypeColumn::kRetained;
  }
}
}  // namespace

void DrawTypesView(App& app, SnapshotDoc& doc) {
  TypesViewState& st = app.views().types;
  const Snapshot& snap = *doc.snapshot;
  const TypeTable& table = *doc.types;

  if (st.doc != doc.id) {  // switched document: show its filter
    st.doc = doc.id;
    std::snprintf(st.filter, sizeof st.filter, "%s", doc.selection.type_filter.c_str());
  } else if (doc.selection.type_filter != st.filter) {  // set by a script step
    std::snprintf(st.filter, sizeof st.filter, "%s", doc.selection.type_filter.c_str());
  }
  ImGui::SetNextItemWidth(360);
  if (ImGui::InputTextWithHint("##filter", "Filter types (Ctrl+F)", st.filter, sizeof st.filter))
    doc.selection.type_filter = st.filter;
  ImGui::SameLine();
  if (st.filter[0] && ImGui::SmallButton("Clear")) {
    st.filter[0] = 0;
    doc.selection.type_filter.clear();
  }

  const auto& rows = st.list.rows();
  ImGui::SameLine();
  TextMuted(FormatCount(rows.size()) + " of " + FormatCount(table.rows.size()) + " types  ·  " +
            FormatCount(table.total_objects) + " objects  ·  " + FormatBytes(table.total_bytes));
  if (!table.has_retained) {
    ImGui::SameLine();
    TextColored(kWarn, doc.state == DocState::kAnalysing ? "retained sizes: analysing..."
                                                         : "retained sizes not computed");
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Reorderable |
                                ImGuiTableFlags_Hideable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("types", 5, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoHide,
                          0, kColName);
  ImGui::TableSetupColumn("Instances", ImGuiTableColumnFlags_PreferSortDescending, 110, kColCount);
  ImGui::TableSetupColumn("Shallow", ImGuiTableColumnFlags_PreferSortDescending, 100, kColShallow);
  ImGui::TableSetupColumn(
      "Retained", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
      100, kColRetained);
  ImGui::TableSetupColumn("% of heap", ImGuiTableColumnFlags_NoSort, 150, kColShare);
  ImGui::TableHeadersRow();

  if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
    if (sort->SpecsCount > 0) {
      st.column = ToTypeColumn(int(sort->Specs[0].ColumnUserID));
      st.descending = sort->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    }
    sort->SpecsDirty = false;
  }
  const auto& order = st.list.Update(snap, doc.types, st.filter, st.column, st.descending);

  const double total = table.total_bytes ? double(table.total_bytes) : 1.0;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(order.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const TypeRow& r = table.rows[order[i]];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(r.type));
      const bool selected = doc.selection.type == int64_t(r.type);
      if (ImGui::Selectable(
              snap.types[r.type].name.c_str(), selected,
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        doc.selection.type = r.type;
        doc.selection.object = -1;
        if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInstances);
      }
      if (ImGui::BeginPopupContextItem("##row")) {
        doc.selection.type = r.type;
        if (ImGui::MenuItem("Show instances")) app.SetView(View::kInstances);
        if (ImGui::MenuItem("Copy type name"))
          ImGui::SetClipboardText(snap.types[r.type].name.c_str());
        ImGui::EndPopup();
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      TextRight(FormatCount(r.count));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(r.shallow));
      ImGui::TableNextColumn();
      TextRight(r.retained == kUnknown ? "…" : FormatBytes(r.retained));
      ImGui::TableNextColumn();
      const double share = double(r.retained == kUnknown ? r.shallow : r.retained) / total;
      ShareBar(float(share), FormatPercent(share));
    }
  }
  ImGui::EndTable();
}

}  // namespace xrpm::gui
