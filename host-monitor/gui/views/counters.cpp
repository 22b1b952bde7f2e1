// Live counters: the device's performance counters like the original RPM's table (counter,
// total, per-second change, last, n / mean / min / max) grouped by category, with graphs over
// time of the counters ticked in the first column (with the game's markers as lines, hover for
// the text, when the Timeline records frames); pause / resume and CSV export. The data is
// the session's CounterBoard, updated from the client's history each frame.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

std::string Value(double v, const std::string& unit) {
  if (unit == "bytes") return v < 0 ? "-" + FormatBytes(uint64_t(-v)) : FormatBytes(uint64_t(v));
  if (unit == "ms") return FormatDuration(v / 1000.0);
  if (std::fabs(v) >= 1e7) return FormatShortCount(v);
  if (v == std::floor(v)) return v < 0 ? FormatSignedCount(int64_t(v)) : FormatCount(uint64_t(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

void Graphs(CounterBoard& board, const FrameRecording& rec) {
  std::vector<int> sel;
  for (size_t i = 0; i < board.counters().size(); ++i)
    if (board.counters()[i].selected) sel.push_back(int(i));
  if (sel.empty()) {
    TextMuted("Tick counters in the first column to graph them over time.");
    return;
  }
  const float w = ImGui::GetContentRegionAvail().x;
  const int per_row = w > 1100 ? 3 : w > 700 ? 2 : 1;
  const float gw = (w - float(per_row - 1) * 10) / float(per_row);
  for (size_t k = 0; k < sel.size(); ++k) {
    CounterBoard::Counter& c = board.counters()[sel[k]];
    if (k % per_row) ImGui::SameLine(0, 10);
    ImGui::BeginGroup();
    // Cumulative counters are graphed as their rate; others by their latest value.
    const bool rate = c.has_rate && c.stat.total != c.stat.last;
    const auto& series = rate ? c.rate : c.value;
    const size_t n = std::min<size_t>(series.size(), 600);
    const float* data = series.data() + (series.size() - n);
    float lo = 0, hi = 1;
    if (n) {
      lo = std::min(0.f, *std::min_element(data, data + n));
      hi = std::max(lo + 1.f, *std::max_element(data, data + n) * 1.1f);
    }
    const std::string title = c.desc.name + (rate ? " per second" : "");
    const std::string now = n ? Value(data[n - 1], c.desc.unit) : std::string("—");
    ImGui::PushID(sel[k]);
    ImGui::PlotLines("##g", n ? data : nullptr, int(n), 0, (title + ": " + now).c_str(), lo, hi,
                     ImVec2(gw, 110));
    // The game's markers (recorded with the Timeline's frames) at their time: a line, the text
    // on hover.
    const ImVec2 pad = ImGui::GetStyle().FramePadding;
    const ImVec2 a(ImGui::GetItemRectMin().x + pad.x, ImGui::GetItemRectMin().y + pad.y);
    const ImVec2 b(ImGui::GetItemRectMax().x - pad.x, ImGui::GetItemRectMax().y - pad.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool hovered = ImGui::IsItemHovered();
    const float mx = ImGui::GetIO().MousePos.x;
    std::string tip;
    for (const auto& m : board.MarkersOnGraph(rec.markers, n)) {
      const MarkerRow& mk = rec.markers[m.marker];
      const float x = a.x + float(m.x) * (b.x - a.x);
      const bool marker = mk.kind == MarkerKind::kMarker;
      dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y),
                  marker ? IM_COL32(250, 220, 90, 200) : IM_COL32(120, 220, 230, 200), 1.0f);
      if (hovered && std::fabs(mx - x) <= 4)
        tip += std::string(tip.empty() ? "" : "\n") + (marker ? "marker '" : "capture request '") +
               mk.text + "'";
    }
    if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
    ImGui::PopID();
    ImGui::EndGroup();
  }
}

}  // namespace

void DrawCountersView(App& app) {
  AppSession& ses = app.session();
  CounterBoard& board = ses.device().counters();
  const client::HostClient* c = ses.device().link().client();
  if (!c && board.counters().empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Live counters appear here once connected: garbage collections, bytes allocated, "
        "objects on the heap, JIT and more, like the Remote Performance Monitor's table. "
        "Connect to a device or press Launch emulator in the sidebar.");
    ImGui::PopTextWrapPos();
    return;
  }
  if (ImGui::Button(board.paused() ? "Resume" : "Pause", ImVec2(80, 0)))
    board.set_paused(!board.paused());
  ImGui::SameLine();
  ImGui::BeginDisabled(c == nullptr);
  if (ImGui::Button("Export CSV...")) app.ShowExportCountersDialog();
  ImGui::EndDisabled();
  ImGui::SameLine();
  std::string info = FormatCount(board.samples()) + " samples";
  if (c && c->counters().interval_ms())
    info += ", every " + std::to_string(c->counters().interval_ms()) + " ms";
  if (board.paused()) info += "  (paused: the table and graphs are frozen, samples keep arriving)";
  TextMuted(info);

  size_t selected = 0;
  for (const auto& ctr : board.counters()) selected += ctr.selected;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const size_t per_row = avail_w > 1100 ? 3 : avail_w > 700 ? 2 : 1;
  const size_t graph_rows = std::max<size_t>(1, (selected + per_row - 1) / per_row);
  const float graphs_h = float(std::min<size_t>(graph_rows, 2)) * 118.f + 16;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable | ImGuiTableFlags_Hideable;
  const float table_h = std::max(200.f, ImGui::GetContentRegionAvail().y - graphs_h);
  if (ImGui::BeginTable("counters", 9, flags, ImVec2(0, table_h))) {
    ImGui::TableSetupScrollFreeze(2, 1);
    ImGui::TableSetupColumn("Graph", 0, 44);
    ImGui::TableSetupColumn("Counter", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Total", 0, 100);
    ImGui::TableSetupColumn("Per second", 0, 100);
    ImGui::TableSetupColumn("Last", 0, 90);
    ImGui::TableSetupColumn("n", 0, 70);
    ImGui::TableSetupColumn("Mean", 0, 90);
    ImGui::TableSetupColumn("Min", 0, 90);
    ImGui::TableSetupColumn("Max", 0, 90);
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < board.categories().size(); ++k) {
      const std::string& cat = board.categories()[k];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TableNextColumn();
      TextColored(kAccent, cat.empty() ? std::string("(no category)") : cat);
      for (int i : board.InCategory(k)) {
        CounterBoard::Counter& ctr = board.counters()[i];
        const std::string& u = ctr.desc.unit;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(i);
        ImGui::Checkbox("##sel", &ctr.selected);
        ImGui::PopID();
        ImGui::TableNextColumn();
        ImGui::Indent(12);
        ImGui::TextUnformatted(ctr.desc.name.c_str());
        ImGui::Unindent(12);
        ImGui::TableNextColumn();
        TextRight(Value(double(ctr.stat.total), u));
        ImGui::TableNextColumn();
        TextRight(ctr.has_rate ? Value(ctr.per_second, u) : "—");
        ImGui::TableNextColumn();
        TextRight(Value(double(ctr.stat.last), u));
        ImGui::TableNextColumn();
        TextRight(FormatCount(ctr.stat.n));
        ImGui::TableNextColumn();
        TextRight(ctr.stat.n ? Value(ctr.stat.mean, u) : "—");
        ImGui::TableNextColumn();
        TextRight(ctr.stat.n ? Value(double(ctr.stat.min), u) : "—");
        ImGui::TableNextColumn();
        TextRight(ctr.stat.n ? Value(double(ctr.stat.max), u) : "—");
      }
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  Graphs(board, ses.recordings().shown().recording());
}

}  // namespace xrpm::gui
