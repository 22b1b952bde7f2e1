// Instances view: every object of the selected type (ImGuiListClipper: millions are fine),
// sortable by retained size (default), size and reference count; a click selects an object, a
// double click opens it in the Inspector. With allocation origins it shows each instance's age
// and site, and grouped by site (Group by) a table of the type's sites above the list: a click
// narrows the list to that site. Below: the few root paths that hold most of the
// instances (merged shortest paths, computed on the worker when the type is first shown).
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/analysis/object_contents.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
enum Col { kColObject, kColSize, kColRetained, kColRefs, kColAge, kColSite, kColField0 };

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
  if (st.field_names.empty()) return;
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
    for (const std::string& f : st.field_names) {
      auto it = std::find(st.field_columns.begin(), st.field_columns.end(), f);
      bool on = it != st.field_columns.end();
      if (ImGui::Checkbox(f.c_str(), &on)) {
        if (on)
          st.field_columns.push_back(f);
        else
          st.field_columns.erase(it);
      }
    }
    ImGui::EndPopup();
  }
  if (!st.filter_error.empty()) TextColored(kWarn, st.filter_error);
}

// The type's instances by allocation site; a click narrows the list (doc.selection.site).
void DrawSites(SnapshotDoc& doc, const InstancesViewState& st, float height) {
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
  for (const auto& r : st.sites) all_count += r.count, all_bytes += r.bytes;
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
  row("All sites (" + FormatCount(st.sites.size()) + ")", !doc.selection.site, all_count, all_bytes,
      std::nullopt);
  for (size_t i = 0; i < st.sites.size(); ++i) {
    const auto& r = st.sites[i];
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
  const bool origins = snap.has_origins();
  const std::string filter = st.filter;
  if (st.doc != doc.id || st.type != doc.selection.type || st.analysis != a ||
      st.site != doc.selection.site || filter != st.built_filter) {
    if (st.doc != doc.id || st.type != doc.selection.type || st.analysis != a) {
      st.sites = a && origins
                     ? analysis::SiteStatsOfGroup(a->index(), a->index().group_of_type(type))
                     : std::vector<analysis::SiteRow>{};
      const std::vector<std::string> names =
          a ? analysis::GroupFieldNames(a->index(), a->index().group_of_type(type))
            : std::vector<std::string>{};
      if (names != st.field_names) {  // another type: its first few fields as columns
        st.field_names = names;
        st.field_columns.assign(names.begin(), names.begin() + std::min<size_t>(names.size(), 4));
      }
    }
    st.doc = doc.id;
    st.type = doc.selection.type;
    st.analysis = a;
    st.site = doc.selection.site;
    st.filter_error.clear();
    st.built_filter = filter;
    if (a) {
      auto nodes = a->index().Instances(a->index().group_of_type(type));
      st.objects.assign(nodes.begin(), nodes.end());
      if (!filter.empty()) {
        const auto f = analysis::ParseFieldFilter(filter);
        if (!f) {
          st.filter_error = "expected FIELD=VALUE, found '" + filter + "'";
        } else {
          try {
            const analysis::InstanceList l = analysis::ListInstances(
                a->index(), a->index().group_of_type(type), std::span(&*f, 1), SIZE_MAX);
            st.objects.assign(l.rows.begin(), l.rows.end());
          } catch (const std::invalid_argument& e) {
            st.filter_error = e.what();
          }
        }
      }
    } else {
      st.objects = InstancesOfType(snap, type);
    }
    if (st.site)
      std::erase_if(st.objects,
                    [&](uint64_t o) { return SiteOfObject(snap, uint32_t(o)) != *st.site; });
    st.sort_column = -1;  // re-sort below
  }

  GroupingCombo(doc);
  ImGui::SameLine(0, 16);
  TextColored(kAccent, snap.types[type].name);
  ImGui::SameLine();
  TextMuted(FormatCount(st.objects.size()) + " instances");
  if (st.site && origins) {
    ImGui::SameLine();
    TextMuted("allocated at");
    ImGui::SameLine();
    TextColored(kWarn, SiteText(snap, *st.site));
    ImGui::SameLine();
    if (ImGui::SmallButton("All sites")) doc.selection.site.reset();
  }
  DrawFieldControls(st);
  const bool by_site = origins && a && doc.selection.grouping != SiteGrouping::kType;
  if (by_site)
    DrawSites(doc, st,
              std::min(ImGui::GetContentRegionAvail().y * 0.3f,
                       ImGui::GetTextLineHeightWithSpacing() * (st.sites.size() + 2.5f)));

  const bool holders = a != nullptr;
  const float table_h = holders ? ImGui::GetContentRegionAvail().y * 0.62f : 0.f;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const int fields = a ? static_cast<int>(std::min<size_t>(st.field_columns.size(), 32)) : 0;
  if (ImGui::BeginTable("instances", (origins ? 6 : 4) + fields, flags, ImVec2(0, table_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Object",
                            ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort,
                            origins ? 0.5f : 1.f, kColObject);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_PreferSortDescending, 100, kColSize);
    ImGui::TableSetupColumn(
        "Retained", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
        110, kColRetained);
    ImGui::TableSetupColumn(origins ? "Refs out" : "References out",
                            ImGuiTableColumnFlags_PreferSortDescending, origins ? 80 : 130,
                            kColRefs);
    if (origins) {
      ImGui::TableSetupColumn("Age (frames)", ImGuiTableColumnFlags_NoSort, 100, kColAge);
      ImGui::TableSetupColumn("Allocation site",
                              ImGuiTableColumnFlags_NoSort | ImGuiTableColumnFlags_WidthStretch,
                              1.f, kColSite);
    }
    for (int k = 0; k < fields; ++k)
      ImGui::TableSetupColumn(st.field_columns[k].c_str(), 0, 120, kColField0 + k);
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
      const int col = sort->SpecsCount ? int(sort->Specs[0].ColumnUserID) : kColRetained;
      const bool desc =
          sort->SpecsCount ? sort->Specs[0].SortDirection == ImGuiSortDirection_Descending : true;
      if (sort->SpecsDirty || col != st.sort_column || desc != st.sort_descending) {
        st.sort_column = col;
        st.sort_descending = desc;
        if (col >= kColField0 && col - kColField0 < fields) {
          analysis::SortByField(a->index(), st.objects, st.field_columns[col - kColField0], desc);
          sort->SpecsDirty = false;
        } else {
          const InstanceOrder order = col == kColRefs   ? InstanceOrder::kRefs
                                      : col == kColSize ? InstanceOrder::kSize
                                                        : InstanceOrder::kRetained;
          SortInstances(snap, st.objects, order, desc,
                        a ? a->dom().retained_sizes() : std::span<const uint64_t>());
          sort->SpecsDirty = false;
        }
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
        if (origins) {
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
          FieldCell(snap, &a->index(), o, st.field_columns[k]);
          ImGui::PopID();
        }
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
