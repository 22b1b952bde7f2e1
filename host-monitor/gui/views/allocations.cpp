// Allocations: who allocated during the frames selected in the Timeline (or the whole session):
// by type, by allocating method (bottom-up: bytes the method allocated itself, and through it),
// or as a top-down call tree; estimated bytes and objects scaled from the samples, their share,
// and per-frame figures during gameplay beside the frame rows' own figure (the runtime's exact
// count, or its estimate from samples where the recording says so: the wording is the analysis
// layer's, FrameTotalsPhrase). Filter and sort like the Types table. The numbers come from the
// session's FrameBoard: the live recording or one opened from a file (the recording bar on top
// picks it).
#include <imgui.h>

#include <cmath>

#include "app.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

std::string Bytes(double b) {
  return FormatBytes(uint64_t(std::llround(std::max(0.0, b))));
}

void Tree(const analysis::AllocationProfile& p, uint32_t node, double min_bytes) {
  for (uint32_t c : p.tree[node].children) {
    const analysis::CallTreeNode& n = p.tree[c];
    if (n.total.bytes < min_bytes) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool leaf = n.children.empty();
    ImGuiTreeNodeFlags flags =
        ImGuiTreeNodeFlags_SpanFullWidth |
        (leaf ? ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen : 0) |
        (n.total.bytes > 0.2 * p.total.bytes ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    ImGui::PushID(int(c));
    const bool open = ImGui::TreeNodeEx(n.method.c_str(), flags);
    ImGui::PopID();
    ImGui::TableNextColumn();
    TextRight(Bytes(n.total.bytes));
    ImGui::TableNextColumn();
    ShareBar(float(p.total.bytes > 0 ? n.total.bytes / p.total.bytes : 0),
             FormatPercent(p.total.bytes > 0 ? n.total.bytes / p.total.bytes : 0));
    ImGui::TableNextColumn();
    TextRight(Bytes(n.self.bytes));
    ImGui::TableNextColumn();
    TextRight(FormatCount(uint64_t(std::llround(n.total.objects))));
    if (open && !leaf) {
      Tree(p, c, min_bytes);
      ImGui::TreePop();
    }
  }
}

void Table(FrameBoard& board) {
  const std::vector<AllocRow>& rows = board.rows();
  const bool by_type = board.group == AllocGroup::kType;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("allocs", 6, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn(by_type ? "Type" : "Allocating method",
                          ImGuiTableColumnFlags_WidthStretch, 0, int(AllocColumn::kName));
  ImGui::TableSetupColumn(
      "Bytes (est.)",
      ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending, 110,
      int(AllocColumn::kBytes));
  ImGui::TableSetupColumn("Share", ImGuiTableColumnFlags_PreferSortDescending, 140,
                          int(AllocColumn::kShare));
  ImGui::TableSetupColumn("Objects (est.)", ImGuiTableColumnFlags_PreferSortDescending, 110,
                          int(AllocColumn::kObjects));
  ImGui::TableSetupColumn("Per frame", ImGuiTableColumnFlags_PreferSortDescending, 100,
                          int(AllocColumn::kPerFrame));
  ImGui::TableSetupColumn(by_type ? "Samples" : "Through it",
                          ImGuiTableColumnFlags_PreferSortDescending, 100,
                          int(AllocColumn::kSamples));
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
    board.column = static_cast<AllocColumn>(specs->Specs[0].ColumnUserID);
    board.descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
  }
  ImGuiListClipper clip;
  clip.Begin(int(rows.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const AllocRow& r = rows[size_t(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name.c_str());
      if (ImGui::IsItemHovered() && !by_type) {
        ImGui::BeginTooltip();
        ImGui::Text("%s samples, %s sampled", FormatCount(r.est.samples).c_str(),
                    FormatBytes(r.est.sampled_bytes).c_str());
        ImGui::EndTooltip();
      }
      ImGui::TableNextColumn();
      TextRight(Bytes(r.est.bytes));
      ImGui::TableNextColumn();
      ShareBar(float(r.share), FormatPercent(r.share));
      ImGui::TableNextColumn();
      TextRight(FormatCount(uint64_t(std::llround(r.est.objects))));
      ImGui::TableNextColumn();
      TextRight(Bytes(r.per_frame));
      ImGui::TableNextColumn();
      TextRight(by_type ? FormatCount(r.est.samples) : Bytes(r.through.bytes));
    }
  ImGui::EndTable();
}

}  // namespace

void DrawAllocationsView(App& app) {
  DrawRecordingBar(app);
  FrameBoard& board = app.session().recordings().shown();
  const analysis::AllocationProfile& p = board.profile();
  if (board.recording().frames.empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Which code allocates during gameplay: record frames in the Timeline (sampled "
        "allocations arrive with their call stacks), then select a range of frames there, or "
        "look at the whole session here.");
    ImGui::PopTextWrapPos();
    return;
  }
  const std::string range = board.selection()
                                ? "Frames " + std::to_string(board.selection()->first) + ".." +
                                      std::to_string(board.selection()->last) +
                                      " (selected in the Timeline)"
                                : std::string("The whole session");
  ImGui::TextUnformatted(range.c_str());
  ImGui::SameLine(0, 16);
  TextMuted(FormatCount(p.frames) + " frames, " + FormatCount(p.total.samples) +
            " samples (one per " + FormatBytes(p.sample_bytes) + " allocated)");
  const double per_frame = p.EstimatedBytesPerFrame();
  ImGui::Text(
      "Per frame during gameplay: %s in %s objects (estimated); %s", Bytes(per_frame).c_str(),
      FormatCount(uint64_t(std::llround(p.frames ? p.total.objects / p.frames : 0))).c_str(),
      analysis::FrameTotalsPhrase(p.frame_totals, Bytes(p.ExactBytesPerFrame())).c_str());
  TextMuted("total " + Bytes(p.total.bytes) + " estimated, " +
            analysis::FrameTotalsPhrase(p.frame_totals, FormatBytes(p.exact_bytes)));
  ImGui::SameLine();
  const std::string help =
      std::string(
          "Estimated: each sampled allocation of s bytes counts s / (1 - exp(-s/N)) "
          "bytes and 1 / (1 - exp(-s/N)) objects, N the sampling interval. ") +
      analysis::FrameTotalsHelp(p.frame_totals);
  HelpMarker(help.c_str());

  int g = static_cast<int>(board.group);
  ImGui::RadioButton("By type", &g, 0);
  ImGui::SameLine();
  ImGui::RadioButton("By allocating method (bottom-up)", &g, 1);
  ImGui::SameLine();
  ImGui::RadioButton("Call tree (top-down)", &g, 2);
  board.group = static_cast<AllocGroup>(g);
  if (board.group != AllocGroup::kStack) {
    ImGui::SameLine(0, 24);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s", board.filter.c_str());
    ImGui::SetNextItemWidth(260);
    if (ImGui::InputTextWithHint("##filter", "Filter (substring)", buf, sizeof buf))
      board.filter = buf;
    Table(board);
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (ImGui::BeginTable("tree", 5, flags)) {
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("Method (outermost first)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Bytes (est.)", 0, 110);
    ImGui::TableSetupColumn("Share", 0, 140);
    ImGui::TableSetupColumn("Self", 0, 100);
    ImGui::TableSetupColumn("Objects", 0, 100);
    ImGui::TableHeadersRow();
    Tree(p, 0, p.total.bytes * 0.001);  // nodes under 0.1 % are left out
    ImGui::EndTable();
  }
}

}  // namespace xrpm::gui
