// Compare's leak filter (memlab's three snapshots): choose captures A, B and C of one run of
// the game; the worker finds C's objects allocated after A was captured and no later than B
// that are still held in C (analysis/leak_filter.h). The result is grouped by (type, site), by
// type or by site, largest first, each row with the merged path that holds its largest group;
// a double click opens the instances of a (type, site) group. When a capture has no origins,
// or they are out of order or of different runs, it says so instead.
//
// Thread-safety: UI thread only.
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

// The A/B/C combos and the Find button. Defaults: the first, second and last analysed docs.
void DrawLeakChooser(App& app, CompareViewState& st) {
  AppSession& ses = app.session();
  std::vector<SnapshotDoc*> ready;
  for (const auto& d : ses.documents().docs())
    if (d->analysis) ready.push_back(d.get());
  auto valid = [&](uint32_t id) {
    return std::any_of(ready.begin(), ready.end(), [&](auto* d) { return d->id == id; });
  };
  if (ready.size() >= 3 &&
      !(valid(st.leak_docs[0]) && valid(st.leak_docs[1]) && valid(st.leak_docs[2])))
    st.leak_docs = {ready[0]->id, ready[1]->id, ready.back()->id};
  static constexpr const char* kWhat[] = {"A", "B", "C"};
  for (size_t k = 0; k < 3; ++k) {
    SnapshotDoc* cur = ses.documents().doc(st.leak_docs[k]);
    ImGui::SetNextItemWidth(200);
    ImGui::PushID(int(k));
    if (ImGui::BeginCombo(kWhat[k], cur ? cur->title.c_str() : "choose...")) {
      for (SnapshotDoc* d : ready)
        if (ImGui::Selectable(d->title.c_str(), d->id == st.leak_docs[k])) st.leak_docs[k] = d->id;
      ImGui::EndCombo();
    }
    ImGui::PopID();
    ImGui::SameLine();
  }
  ImGui::BeginDisabled(ready.size() < 3 || !ses.Idle());
  if (ImGui::Button("Find leaks"))
    ses.comparisons().FindLeaks(st.leak_docs[0], st.leak_docs[1], st.leak_docs[2]);
  ImGui::EndDisabled();
  ImGui::SameLine();
  HelpMarker(
      "A: before the action that should not leak; B: after it; C: a little later. The "
      "objects of C allocated after A was captured and no later than B that are still "
      "alive are what leaked.");
  if (ready.size() < 3) {
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Needs three analysed captures of one run of the game: capture (A), do what "
        "should not leak, capture (B), play on a little, capture (C). The objects of C "
        "allocated between A and B that are still alive are what leaked.");
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

void DrawLeaksPanel(App& app) {
  CompareViewState& st = app.views().compare;
  AppSession& ses = app.session();
  DrawLeakChooser(app, st);
  const auto& res = ses.comparisons().leaks();
  if (!res) return;
  const LeaksResult& r = *res;
  ImGui::Separator();
  if (!r.error.empty()) {
    ImGui::PushTextWrapPos(0);
    TextColored(kWarn, r.error);
    ImGui::PopTextWrapPos();
    return;
  }
  const analysis::LeakReport& rep = r.report;
  const Snapshot& c = *r.c->snapshot;
  ImGui::PushTextWrapPos(0);
  TextMuted("Objects of " + r.titles[2] + " allocated between " + r.titles[0] + " (frame " +
            FormatCount(rep.window_first) + ") and " + r.titles[1] + " (frame " +
            FormatCount(rep.window_end) + ") and still held: " + FormatCount(rep.count) +
            " objects, " + FormatBytes(rep.bytes) + (rep.sampled ? " (sampled objects)" : ""));
  if (rep.unreachable_count)
    TextMuted(FormatCount(rep.unreachable_count) + " more in the window are garbage (" +
              FormatBytes(rep.unreachable_bytes) + ", no strong root): not counted");
  if (rep.unknown_count)
    TextMuted(FormatCount(rep.unknown_count) + " objects of C have no recorded origin");
  ImGui::PopTextWrapPos();
  if (rep.groups.empty()) {
    TextColored(kGood, "Nothing allocated between A and B is still held in C: no leak here.");
    return;
  }
  static constexpr const char* kGroupings[] = {"Type", "Allocation site", "Type and site"};
  int g = int(st.leak_grouping);
  ImGui::SetNextItemWidth(150);
  if (ImGui::Combo("Group by", &g, kGroupings, 3)) st.leak_grouping = SiteGrouping(g);
  if (st.leak_result != &r || st.rows_grouping != st.leak_grouping) {
    st.leak_result = &r;
    st.rows_grouping = st.leak_grouping;
    st.leak_rows = LeakRollup(rep, st.leak_grouping);
  }
  const bool show_type = st.leak_grouping != SiteGrouping::kSite;
  const bool show_site = st.leak_grouping != SiteGrouping::kType;
  const int ncols = int(show_type) + int(show_site) + 3;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("leaks", ncols, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (show_type) ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  if (show_site)
    ImGui::TableSetupColumn("Allocation site", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("Objects", 0, 70);
  ImGui::TableSetupColumn("Bytes", 0, 80);
  ImGui::TableSetupColumn("Held by (merged path of the largest group)",
                          ImGuiTableColumnFlags_WidthStretch, 1.4f);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(int(st.leak_rows.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const LeakRow& row = st.leak_rows[i];
      const analysis::LeakGroup& grp = rep.groups[row.largest];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string first = show_type ? row.type : SiteText(c, row.site);
      if (ImGui::Selectable(
              first.c_str(), false,
              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick) &&
          ImGui::IsMouseDoubleClicked(0)) {
        // Open C with the largest group's type (and site) selected in Instances.
        ses.documents().SetActive(r.docs[2]);
        if (SnapshotDoc* d = ses.documents().doc(r.docs[2])) {
          d->selection.type = c.object_type[grp.objects.front()];
          d->selection.site = show_site ? std::optional<uint32_t>(grp.site) : std::nullopt;
          d->selection.object = -1;
          app.SetView(View::kInstances);
        }
      }
      if (ImGui::IsItemHovered()) {
        std::string tip = analysis::SiteLabel(c, grp.site, 0, "\n");
        if (!grp.paths.paths.empty())
          tip += "\n\nheld by: " +
                 analysis::MergedPathLabel(r.c->index(), grp.paths.paths.front(), "\n  \u2192 ");
        if (row.groups > 1) tip += "\n(" + std::to_string(row.groups) + " groups; largest shown)";
        ImGui::SetTooltip("%s\n\nDouble-click: the instances in %s", tip.c_str(),
                          r.titles[2].c_str());
      }
      ImGui::PopID();
      if (show_type && show_site) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(SiteText(c, row.site).c_str());
      }
      ImGui::TableNextColumn();
      TextRight(FormatCount(row.count));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(row.bytes));
      ImGui::TableNextColumn();
      if (grp.paths.paths.empty())
        TextMuted("(no path)");
      else
        ImGui::TextUnformatted(MergedPathText(r.c->index(), grp.paths.paths.front()).c_str());
    }
  ImGui::EndTable();
}

}  // namespace xrpm::gui
