// Compare view: pick two or more analysed snapshots of the same app (oldest first), compare them
// per type name on the worker, and browse the result: growing types (leak suspects) first with
// the paths that hold them, then every type sorted by the chosen delta; filterable. Its second
// mode, the leak filter over three captures, is leaks.cpp; its third, the allocation traffic of
// two frame recordings, alloc_compare.cpp.
#include <imgui.h>

#include <algorithm>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/app/compare_order.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
enum CompareCol {
  kCompareColName = 0,
  kCompareColDeltaCount = 100,
  kCompareColDeltaShallow,
  kCompareColDeltaRetained,
  kCompareColLast
};

CompareColumn ToColumn(int id) {
  switch (id) {
    case kCompareColName:
      return CompareColumn::kName;
    case kCompareColDeltaCount:
      return CompareColumn::kCountDelta;
    case kCompareColDeltaShallow:
      return CompareColumn::kShallowDelta;
    case kCompareColLast:
      return CompareColumn::kCountInLast;
    default:
      return CompareColumn::kRetainedDelta;
  }
}

ImVec4 DeltaColour(int64_t d) {
  return d > 0 ? kBad : d < 0 ? kGood : kMuted;
}

void DrawChooser(App& app, CompareViewState& st) {
  AppSession& ses = app.session();
  // Tick analysed snapshots; by default all of them.
  std::vector<uint32_t> ready;
  for (const auto& d : ses.documents().docs())
    if (d->analysis) ready.push_back(d->id);
  std::erase_if(st.chosen, [&](uint32_t id) {
    return std::find(ready.begin(), ready.end(), id) == ready.end();
  });
  TextMuted("Snapshots to compare (oldest first):");
  for (uint32_t id : ready) {
    SnapshotDoc* d = ses.documents().doc(id);
    ImGui::SameLine();
    bool on = std::find(st.chosen.begin(), st.chosen.end(), id) != st.chosen.end();
    if (ImGui::Checkbox(d->title.c_str(), &on)) {
      if (on)
        st.chosen.push_back(id);
      else
        std::erase(st.chosen, id);
    }
  }
  if (ready.size() < 2) {
    ImGui::SameLine();
    TextMuted(ready.empty() ? "none analysed yet" : "(open or capture at least one more)");
  }
  ImGui::SameLine();
  // Keep the documents' opening order: that is their order in time.
  std::vector<uint32_t> ordered;
  for (uint32_t id : ready)
    if (std::find(st.chosen.begin(), st.chosen.end(), id) != st.chosen.end()) ordered.push_back(id);
  ImGui::BeginDisabled(ordered.size() < 2 || !ses.Idle());
  if (ImGui::Button("Compare")) ses.comparisons().CompareSnapshots(ordered);
  ImGui::EndDisabled();
}

void DrawSuspects(App& app, const CompareResult& r) {
  if (r.growth.empty()) {
    TextColored(kGood, "No type grows steadily across these snapshots.");
    return;
  }
  SectionTitle("Growing types (leak suspects)");
  for (size_t i = 0; i < r.growth.size() && i < 5; ++i) {
    const analysis::Suspect& s = r.growth[i];
    ImGui::PushID(int(i));
    NumberedWrapped(i + 1, s.reason);
    if (!s.holders.paths.empty()) {
      ImGui::PushTextWrapPos(0);
      ImGui::Indent(20);
      TextMuted("held by: " + MergedPathText(r.last->index(), s.holders.paths.front()) + "  (" +
                FormatCount(s.holders.paths.front().count) + " instances)");
      ImGui::Unindent(20);
      ImGui::PopTextWrapPos();
    }
    ImGui::PopID();
  }
  (void)app;
}

}  // namespace

void DrawCompareView(App& app) {
  CompareViewState& st = app.views().compare;
  AppSession& ses = app.session();
  int mode = int(st.mode);
  ImGui::RadioButton("By type over time", &mode, int(CompareMode::kByType));
  ImGui::SameLine();
  ImGui::RadioButton("Leaks: allocated between A and B, alive in C", &mode,
                     int(CompareMode::kLeaks));
  ImGui::SameLine();
  ImGui::RadioButton("Allocations: two recordings per call site", &mode,
                     int(CompareMode::kAllocations));
  st.mode = CompareMode(mode);
  ImGui::Separator();
  if (st.mode == CompareMode::kLeaks) return DrawLeaksPanel(app);
  if (st.mode == CompareMode::kAllocations) return DrawAllocComparePanel(app);
  if (st.chosen.empty())
    for (const auto& d : ses.documents().docs())
      if (d->analysis) st.chosen.push_back(d->id);
  DrawChooser(app, st);

  const auto& res = ses.comparisons().snapshots();
  if (!res) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Compare shows what changed between snapshots of the same game, per type: instances, "
        "shallow and retained bytes, and which types keep growing. Object ids differ between "
        "dumps, so types are matched by name. Capture a snapshot, play on, capture again, "
        "then press Compare.");
    ImGui::PopTextWrapPos();
    return;
  }
  const CompareResult& r = *res;
  ImGui::Separator();
  std::string names;
  for (size_t i = 0; i < r.titles.size(); ++i) names += (i ? "  \u2192  " : "") + r.titles[i];
  TextMuted("Compared: " + names);
  for (const auto& w : r.diff.warnings) TextColored(kWarn, w);
  DrawSuspects(app, r);

  ImGui::Spacing();
  ImGui::SetNextItemWidth(300);
  ImGui::InputTextWithHint("##cmpfilter", "Filter types", st.filter, sizeof st.filter);

  const size_t snaps = r.titles.size();
  const size_t shown_snaps = std::min<size_t>(snaps, 4);  // first and last few: stays readable
  const int ncols = 1 + int(shown_snaps) + 3;
  const ImGuiTableFlags flags = ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Hideable;
  if (!ImGui::BeginTable("compare", ncols, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("Type", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoHide,
                          0, kCompareColName);
  std::vector<size_t> which;  // snapshot index per count column
  for (size_t i = 0; i < shown_snaps; ++i) which.push_back(i + 1 == shown_snaps ? snaps - 1 : i);
  for (size_t k = 0; k < which.size(); ++k) {
    const std::string h = "#" + std::to_string(which[k] + 1) + " instances";
    ImGui::TableSetupColumn(h.c_str(),
                            ImGuiTableColumnFlags_PreferSortDescending |
                                (k + 1 == which.size() ? 0 : ImGuiTableColumnFlags_NoSort),
                            110, k + 1 == which.size() ? kCompareColLast : 1 + int(k));
  }
  ImGui::TableSetupColumn("\u0394 instances", ImGuiTableColumnFlags_PreferSortDescending, 110,
                          kCompareColDeltaCount);
  ImGui::TableSetupColumn("\u0394 shallow", ImGuiTableColumnFlags_PreferSortDescending, 110,
                          kCompareColDeltaShallow);
  ImGui::TableSetupColumn(
      "\u0394 retained",
      ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 110,
      kCompareColDeltaRetained);
  ImGui::TableHeadersRow();

  int col = st.sort_column;
  bool desc = st.sort_descending;
  if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs()) {
    if (sort->SpecsCount) {
      col = int(sort->Specs[0].ColumnUserID);
      desc = sort->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    }
    sort->SpecsDirty = false;
  }
  if (st.result != &r || col != st.sort_column || desc != st.sort_descending ||
      st.applied_filter != st.filter) {
    st.result = &r;
    st.sort_column = col;
    st.sort_descending = desc;
    st.applied_filter = st.filter;
    st.order = CompareOrder(r, st.filter, ToColumn(col), desc);
  }

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(st.order.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t row = st.order[i];
      const analysis::TypeSeries& t = r.diff.rows[row];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool suspect = IsGrowthSuspect(r, row);
      if (suspect) {
        TextColored(kWarn, "\u25b2");
        ImGui::SameLine();
      }
      ImGui::TextUnformatted(t.name.c_str());
      if (t.is_new) {
        ImGui::SameLine();
        TextColored(kAccent, "new");
      } else if (t.vanished) {
        ImGui::SameLine();
        TextMuted("gone");
      }
      for (size_t k : which) {
        ImGui::TableNextColumn();
        TextRight(k < t.at.size() && t.present[k] ? FormatCount(t.at[k].count) : "—");
      }
      auto delta = [](int64_t d, const std::string& text) {
        ImGui::TableNextColumn();
        ImGui::PushStyleColor(ImGuiCol_Text, DeltaColour(d));
        TextRight(text);
        ImGui::PopStyleColor();
      };
      delta(t.count_delta, FormatSignedCount(t.count_delta));
      delta(t.shallow_delta, FormatSignedBytes(t.shallow_delta));
      delta(t.retained_delta, FormatSignedBytes(t.retained_delta));
    }
  ImGui::EndTable();
}

}  // namespace xrpm::gui
