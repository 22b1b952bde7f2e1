// Instances view: every object of the selected type (ImGuiListClipper: millions are fine),
// sortable by retained size (default), size and reference count; a click selects an object, a
// double click opens it in the Inspector. With allocation origins it shows each instance's age
// and site, and grouped by site (Group by) a table of the type's sites above the list: a click
// narrows the list to that site. Below: the few root paths that hold most of the
// instances (merged shortest paths, computed on the worker when the type is first shown).
// What is listed, in which order, comes from app::InstanceListView; this file only draws it.
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/analysis/object_contents.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
enum InstCol {
  kInstColObject,
  kInstColSize,
  kInstColRetained,
  kInstColRefs,
  kInstColAge,
  kInstColSite,
  kInstColField0
};

// A field's value in a cell: the referenced object's label (with a string's text) or the value.
void FieldCell(const Snapshot& snap, const analysis::GraphIndex* g, uint64_t o,
               const std::string& field) {
  const FieldValue v = analysis::ReadFieldByName(snap, o, field);
  if (v.kind == FieldValue::Kind::kRef) {
    const uint32_t n = g ? g->Find(v.ref) : kNoIndex;
    ImGui::TextUnformatted(n != kNoIndex ? ObjectLabel(snap, n).c_str() : FormatHex(v.ref).c_str());
    if (n != kNoIndex) StringTextTooltip(snap, n);
  } else if (v.kind == FieldValue::Kind::kMissing) {
    ImGui::TextDisabled("?");
  } else {
    ImGui::TextUnformatted(FormatValue(v).c_str());
  }
}

// The filter box and the field-columns chooser (the type's fields as checkboxes).
void DrawFieldControls(InstancesViewState& st) {
  if (st.list.field_names().empty()) return;
  ImGui::SetNextItemWidth(260);
  if (ImGui::InputTextWithHint("##filter", "Filter: FIELD=VALUE (e.g. IsAlive=false)",
                               st.filter_input.data(), st.filter_input.size(),
                               ImGuiInputTextFlags_EnterReturnsTrue))
    st.filter = st.filter_input.data();
  ImGui::SameLine();
  if (!st.filter.empty() && ImGui::SmallButton("Clear filter")) {
    st.filter_input[0] = 0;
    st.filter.clear();
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("Field columns...")) ImGui::OpenPopup("field_columns");
  if (ImGui::BeginPopup("field_columns")) {
    for (const std::string& f : st.list.field_names()) {
      const auto& cols = st.list.field_columns();
      bool on = std::find(cols.begin(), cols.end(), f) != cols.end();
      if (ImGui::Checkbox(f.c_str(), &on)) st.list.ShowFieldColumn(f, on);
    }
    ImGui::EndPopup();
  }
  if (!st.list.filter_error().empty()) TextColored(kWarn, st.list.filter_error());
}

// The type's instances by allocation site; a click narrows the list (doc.selection.site).
void DrawSites(SnapshotDoc& doc, const std::vector<analysis::SiteRow>& sites, float height) {
  const Snapshot& snap = *doc.snapshot;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("sites", 3, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(
      snap.origins->sample_bytes ? "Allocation site (sampled objects)" : "Allocation site",
      ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Instances", 0, 100);
  ImGui::TableSetupColumn("Shallow", 0, 100);
  ImGui::TableHeadersRow();
  uint64_t all_count = 0, all_bytes = 0;
  for (const auto& r : sites) all_count += r.count, all_bytes += r.bytes;
  auto row = [&](const std::string& label, bool selected, uint64_t count, uint64_t bytes,
                 std::optional<uint32_t> site) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns))
      doc.selection.site = site;
    if (site && ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", analysis::SiteLabel(snap, *site, 0, "\n").c_str());
    ImGui::TableNextColumn();
    TextRight(FormatCount(count));
    ImGui::TableNextColumn();
    TextRight(FormatBytes(bytes));
  };
  row("All sites (" + FormatCount(sites.size()) + ")", !doc.selection.site, all_count, all_bytes,
      std::nullopt);
  for (size_t i = 0; i < sites.size(); ++i) {
    const auto& r = sites[i];
    ImGui::PushID(int(i));
    row(SiteText(snap, r.site), doc.selection.site == r.site, r.count, r.bytes, r.site);
    ImGui::PopID();
  }
  ImGui::EndTable();
}

void DrawHolders(App& app, SnapshotDoc& doc, uint32_t type) {
  const DocAnalysis& a = *doc.analysis;
  const uint32_t group = a.index().group_of_type(type);
  app.session().documents().FindHolders(doc.id, type);  // no-op when done or running
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

// The table's sort specs as the list's order: the first spec's column (Retained descending when
// there is none); a field column's id names a field of `fields`.
InstanceSort OrderOf(const ImGuiTableSortSpecs& sort, const std::vector<std::string>& fields,
                     int field_count) {
  const int col = sort.SpecsCount ? int(sort.Specs[0].ColumnUserID) : kInstColRetained;
  InstanceSort order;
  order.descending =
      sort.SpecsCount ? sort.Specs[0].SortDirection == ImGuiSortDirection_Descending : true;
  if (col >= kInstColField0 && col - kInstColField0 < field_count) {
    order.column = InstanceColumn::kField;
    order.field = fields[col - kInstColField0];
  } else {
    order.column = col == kInstColRefs   ? InstanceColumn::kRefs
                   : col == kInstColSize ? InstanceColumn::kSize
                                         : InstanceColumn::kRetained;
  }
  return order;
}

// The type's name, instance count and the site the list is narrowed to, above the list.
void DrawTitle(SnapshotDoc& doc, const InstanceListView& list, uint32_t type) {
  const Snapshot& snap = *doc.snapshot;
  GroupingCombo(doc);
  ImGui::SameLine(0, 16);
  TextColored(kAccent, snap.types[type].name);
  ImGui::SameLine();
  TextMuted(FormatCount(list.objects().size()) + " instances");
  if (doc.selection.site && snap.has_origins()) {
    ImGui::SameLine();
    TextMuted("allocated at");
    ImGui::SameLine();
    TextColored(kWarn, SiteText(snap, *doc.selection.site));
    ImGui::SameLine();
    if (ImGui::SmallButton("All sites")) doc.selection.site.reset();
  }
}

// One instance's row: its id (a click selects it, a double click inspects it), sizes,
// references, age and site, and the chosen fields.
void DrawInstanceRow(App& app, SnapshotDoc& doc, const std::vector<std::string>& field_columns,
                     int fields, int row, uint64_t o) {
  const Snapshot& snap = *doc.snapshot;
  const DocAnalysis* a = doc.analysis.get();
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::PushID(row);
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
  if (snap.has_origins()) {
    const bool known = snap.origin_known(o);
    ImGui::TableNextColumn();
    TextRight(known ? FormatCount(snap.age_frames(o)) : "?");
    ImGui::TableNextColumn();
    if (known)
      ImGui::TextUnformatted(SiteText(snap, SiteOfObject(snap, uint32_t(o))).c_str());
    else
      TextMuted(std::string(analysis::kUnknownSiteLabel));
  }
  for (int k = 0; k < fields; ++k) {
    ImGui::TableNextColumn();
    ImGui::PushID(k);
    FieldCell(snap, &a->index(), o, field_columns[k]);
    ImGui::PopID();
  }
}

// The instances, sorted as the table's headers say (the list re-sorts only on change).
void DrawInstanceTable(App& app, SnapshotDoc& doc, InstanceListView& list, float height) {
  const Snapshot& snap = *doc.snapshot;
  const DocAnalysis* a = doc.analysis.get();
  const bool origins = snap.has_origins();
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const std::vector<std::string>& field_columns = list.field_columns();
  const int fields = a ? static_cast<int>(std::min<size_t>(field_columns.size(), 32)) : 0;
  if (!ImGui::BeginTable("instances", (origins ? 6 : 4) + fields, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  // The id column fits the widest id of the list (and its header); it follows the list, so the
  // user does not resize it.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float id_width = std::max(ImGui::CalcTextSize(list.widest_id_label().c_str()).x,
                                  ImGui::CalcTextSize("Object").x) +
                         style.CellPadding.x * 2;
  ImGui::TableSetupColumn("Object",
                          ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_NoResize |
                              ImGuiTableColumnFlags_NoSort,
                          id_width, kInstColObject);
  ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_PreferSortDescending, 100, kInstColSize);
  ImGui::TableSetupColumn(
      "Retained", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
      110, kInstColRetained);
  ImGui::TableSetupColumn(origins ? "Refs out" : "References out",
                          ImGuiTableColumnFlags_PreferSortDescending, origins ? 80 : 130,
                          kInstColRefs);
  if (origins) {
    ImGui::TableSetupColumn("Age (frames)", ImGuiTableColumnFlags_NoSort, 100, kInstColAge);
    ImGui::TableSetupColumn("Allocation site",
                            ImGuiTableColumnFlags_NoSort | ImGuiTableColumnFlags_WidthStretch, 1.f,
                            kInstColSite);
  }
  for (int k = 0; k < fields; ++k)
    ImGui::TableSetupColumn(field_columns[k].c_str(), 0, 120, kInstColField0 + k);
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
    list.Sort(snap, a, OrderOf(*sort, field_columns, fields));
    sort->SpecsDirty = false;
  }

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(list.objects().size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i)
      DrawInstanceRow(app, doc, field_columns, fields, i, list.objects()[i]);
  ImGui::EndTable();
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
  st.list.Update(snap, a, {doc.id, type, doc.selection.site, st.filter});

  DrawTitle(doc, st.list, type);
  DrawFieldControls(st);
  const bool by_site = snap.has_origins() && a && doc.selection.grouping != SiteGrouping::kType;
  if (by_site)
    DrawSites(doc, st.list.sites(),
              std::min(ImGui::GetContentRegionAvail().y * 0.3f,
                       ImGui::GetTextLineHeightWithSpacing() * (st.list.sites().size() + 2.5f)));
  const bool holders = a != nullptr;
  DrawInstanceTable(app, doc, st.list, holders ? ImGui::GetContentRegionAvail().y * 0.62f : 0.f);
  if (holders) {
    ImGui::BeginChild("##holders");
    DrawHolders(app, doc, type);
    ImGui::EndChild();
  }
}

}  // namespace xrpm::gui
