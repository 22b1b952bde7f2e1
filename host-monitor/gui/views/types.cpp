// Types view: one row per type with instances, count, shallow and retained bytes and share of
// the heap; sortable (retained bytes, largest first, by default), filterable (Ctrl+F), and only
// the visible rows are drawn (ImGuiListClipper). The sorted order is cached in TypeListView and
// recomputed only when the filter, the sort or the table changes. Grouped by allocation site
// (Group by) the rows are sites, or (type, site) pairs, largest shallow bytes first, from the
// analysis' DocOrigins; the filter then matches type names and the sites' method names.
#include <imgui.h>

#include <cstring>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
enum TypesCol {
  kTypesColName,
  kTypesColCount,
  kTypesColShallow,
  kTypesColRetained,
  kTypesColShare
};

TypeColumn ToTypeColumn(int user_id) {
  switch (user_id) {
    case kTypesColName:
      return TypeColumn::kName;
    case kTypesColCount:
      return TypeColumn::kCount;
    case kTypesColShallow:
      return TypeColumn::kShallow;
    default:
      return TypeColumn::kRetained;
  }
}
// The types allocated at the chosen site (rows of type_sites), under the site table.
void DrawTypesOfSite(App& app, SnapshotDoc& doc, const DocOrigins& o, uint32_t site) {
  const Snapshot& snap = *doc.snapshot;
  SectionTitle(("Types allocated at " + SiteText(snap, site)).c_str());
  if (!ImGui::BeginTable("site_types", 3,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Type (double-click: its instances from this site)",
                          ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Instances", 0, 110);
  ImGui::TableSetupColumn("Shallow", 0, 100);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < o.type_sites.size(); ++i) {
    const auto& r = o.type_sites[i];
    if (r.site != site) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushID(int(i));
    if (ImGui::Selectable(
            std::string(r.type).c_str(), doc.selection.type == r.type_index,
            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
      doc.selection.type = r.type_index;
      doc.selection.object = -1;
      if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInstances);
    }
    ImGui::PopID();
    ImGui::TableNextColumn();
    TextRight(FormatCount(r.count));
    ImGui::TableNextColumn();
    TextRight(FormatBytes(r.bytes));
  }
  ImGui::EndTable();
}

// Types grouped by allocation site (rows: sites) or by (type, site).
void DrawSiteRows(App& app, SnapshotDoc& doc, TypesViewState& st) {
  const Snapshot& snap = *doc.snapshot;
  if (!OriginsOrNote(doc)) return;
  if (!AnalysisReadyOrNote(doc, "Analysing... sites and ages come with the analysis.")) return;
  const DocAnalysis& a = *doc.analysis;
  const DocOrigins& o = a.origins;
  const bool by_type = doc.selection.grouping == SiteGrouping::kTypeSite;
  const size_t total = by_type ? o.type_sites.size() : o.sites.size();
  if (st.site_analysis != &a || st.site_grouping != doc.selection.grouping ||
      st.site_filter != st.filter) {
    st.site_analysis = &a;
    st.site_grouping = doc.selection.grouping;
    st.site_filter = st.filter;
    st.site_rows.clear();
    for (size_t i = 0; i < total; ++i) {
      const bool match =
          by_type ? SiteRowMatches(snap, o.type_sites[i].type, o.type_sites[i].site, st.filter)
                  : SiteRowMatches(snap, {}, o.sites[i].site, st.filter);
      if (match) st.site_rows.push_back(uint32_t(i));
    }
  }
  ImGui::SameLine();
  TextMuted(FormatCount(st.site_rows.size()) + " of " + FormatCount(total) +
            (by_type ? " (type, site) groups" : " sites") + "  \u00b7  largest first" +
            (o.sampled ? "  \u00b7  sampled objects (estimate in tooltips)" : ""));
  const bool site_chosen = !by_type && doc.selection.site.has_value();
  const float h = site_chosen ? ImGui::GetContentRegionAvail().y * 0.6f : 0.f;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit;
  const int ncols = by_type ? 5 : 4;
  if (!ImGui::BeginTable("type_sites", ncols, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (by_type) ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthStretch, 0.8f);
  ImGui::TableSetupColumn("Allocation site (innermost method first)",
                          ImGuiTableColumnFlags_WidthStretch, 1.f);
  ImGui::TableSetupColumn("Instances", 0, 110);
  ImGui::TableSetupColumn("Shallow", 0, 100);
  ImGui::TableSetupColumn("% of heap", 0, 120);
  ImGui::TableHeadersRow();
  const double heap = snap.total_bytes() ? double(snap.total_bytes()) : 1.0;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(st.site_rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t k = st.site_rows[i];
      const uint32_t site = by_type ? o.type_sites[k].site : o.sites[k].site;
      const uint64_t count = by_type ? o.type_sites[k].count : o.sites[k].count;
      const uint64_t bytes = by_type ? o.type_sites[k].bytes : o.sites[k].bytes;
      const double est = by_type ? o.type_sites[k].est_bytes : o.sites[k].est_bytes;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(int(k));
      const std::string label = by_type ? std::string(o.type_sites[k].type) : SiteText(snap, site);
      const bool selected =
          by_type ? doc.selection.type == o.type_sites[k].type_index && doc.selection.site == site
                  : doc.selection.site == site;
      if (ImGui::Selectable(
              label.c_str(), selected,
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        doc.selection.site = site;
        if (by_type) {
          doc.selection.type = o.type_sites[k].type_index;
          doc.selection.object = -1;
          if (ImGui::IsMouseDoubleClicked(0)) app.SetView(View::kInstances);
        }
      }
      if (ImGui::IsItemHovered()) {
        std::string tip = analysis::SiteLabel(snap, site, 0, "\n");
        if (o.sampled && site != kUnknownSite)
          tip += "\n\nestimated live bytes from this site: " + FormatBytes(uint64_t(est));
        if (by_type) tip += "\n\nDouble-click: these instances";
        ImGui::SetTooltip("%s", tip.c_str());
      }
      ImGui::PopID();
      if (by_type) {
        ImGui::TableNextColumn();
        if (site == kUnknownSite)
          TextMuted(std::string(analysis::kUnknownSiteLabel));
        else
          ImGui::TextUnformatted(SiteText(snap, site).c_str());
      }
      ImGui::TableNextColumn();
      TextRight(FormatCount(count));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(bytes));
      ImGui::TableNextColumn();
      ShareBar(float(double(bytes) / heap), FormatPercent(double(bytes) / heap));
    }
  }
  ImGui::EndTable();
  if (site_chosen) DrawTypesOfSite(app, doc, o, *doc.selection.site);
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

  ImGui::SameLine();
  GroupingCombo(doc);
  if (doc.selection.grouping != SiteGrouping::kType) {
    if (snap.has_origins()) return DrawSiteRows(app, doc, st);
    OriginsOrNote(doc);  // says why, then the types as usual
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
                          0, kTypesColName);
  ImGui::TableSetupColumn("Instances", ImGuiTableColumnFlags_PreferSortDescending, 110,
                          kTypesColCount);
  ImGui::TableSetupColumn("Shallow", ImGuiTableColumnFlags_PreferSortDescending, 100,
                          kTypesColShallow);
  ImGui::TableSetupColumn(
      "Retained", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
      100, kTypesColRetained);
  ImGui::TableSetupColumn("% of heap", ImGuiTableColumnFlags_NoSort, 150, kTypesColShare);
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
