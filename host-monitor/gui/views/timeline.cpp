// Timeline: the device's frames as they come: frame time per frame with lines at 16.7 and
// 33.3 ms, GC markers with their pause, bytes allocated per frame, bytes left before the next
// collection (NETCF's 1 MB budget) and the share of time spent in GC. Mouse wheel zooms around
// the pointer, right-drag (or the arrows) pans, the game's markers (Xrpm.Profiler.Marker, yellow;
// capture requests, cyan) are lines at their frames with the text (hover for it), left-drag selects
// a range of frames, which the Allocations view then shows; double-click clears the selection.
// The recording shown is the live one or one opened from a saved .xrpm (DrawRecordingBar: pick,
// open, save, close). Everything drawn comes from the session's FrameBoard.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/analysis/frame_summary.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

constexpr ImU32 kBarColor = IM_COL32(90, 160, 230, 255);
constexpr ImU32 kBarSlow = IM_COL32(240, 190, 80, 255);
constexpr ImU32 kBarHitch = IM_COL32(240, 100, 100, 255);
constexpr ImU32 kGcColor = IM_COL32(240, 100, 100, 255);
constexpr ImU32 kAllocColor = IM_COL32(150, 200, 120, 255);
constexpr ImU32 kBudgetColor = IM_COL32(200, 160, 230, 255);
constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 110);
constexpr ImU32 kSelection = IM_COL32(90, 160, 230, 50);
constexpr ImU32 kMarkerColor = IM_COL32(250, 220, 90, 230);    // Xrpm.Profiler.Marker
constexpr ImU32 kRequestColor = IM_COL32(120, 220, 230, 230);  // RequestCapture

std::string Ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", ms);
  return b;
}

// Drag state of the plots (left: selection, right: pan).
struct Drag {
  bool selecting = false;
  size_t anchor_row = 0;
  float pan_rest = 0;
};
Drag g_drag;

// One strip of the timeline: its rectangle, and what a row (frame) maps to horizontally.
struct Strip {
  ImVec2 a, b;
  size_t first, count;
  float RowX(size_t row) const { return a.x + (b.x - a.x) * float(row - first) / float(count); }
  float RowW() const { return (b.x - a.x) / float(count); }
  size_t RowAt(float x) const {
    const float t = std::clamp((x - a.x) / (b.x - a.x), 0.f, 0.9999f);
    return first + size_t(t * float(count));
  }
};

void Label(ImDrawList* dl, ImVec2 at, ImU32 col, const std::string& s) {
  dl->AddText(at, col, s.c_str());
}

// A caption in the top right corner of a strip.
void Caption(ImDrawList* dl, ImVec2 a, ImVec2 b, const std::string& s) {
  const float w = ImGui::CalcTextSize(s.c_str()).x;
  dl->AddText(ImVec2(std::max(a.x, b.x - w - 6), a.y + 2), IM_COL32(200, 200, 200, 200), s.c_str());
}

// Frame times with the 60 Hz and 30 Hz lines, GC markers and the game's markers; returns the
// strip for input.
Strip FrameTimes(ImDrawList* dl, const FrameRecording& r, size_t first, size_t count,
                 const std::vector<FrameBoard::MarkerAt>& marks, ImVec2 a, ImVec2 b) {
  Strip s{a, b, first, count};
  dl->AddRectFilled(a, b, IM_COL32(0, 0, 0, 60));
  double top = 40;
  for (size_t i = first; i < first + count && i < r.frames.size(); ++i)
    top = std::max(top, r.frames[i].duration_us / 1000.0 * 1.1);
  auto y = [&](double ms) { return b.y - float(ms / top) * (b.y - a.y - 14); };
  const float w = std::max(1.f, s.RowW() - (s.RowW() > 4 ? 1.f : 0.f));
  for (size_t i = first; i < first + count && i < r.frames.size(); ++i) {
    const FrameRow& f = r.frames[i];
    const double ms = f.duration_us / 1000.0;
    const ImU32 col = ms > analysis::kFrameBudget30Ms + analysis::kFrameJitterMs   ? kBarHitch
                      : ms > analysis::kFrameBudget60Ms + analysis::kFrameJitterMs ? kBarSlow
                                                                                   : kBarColor;
    const float x = s.RowX(i);
    dl->AddRectFilled(ImVec2(x, y(ms)), ImVec2(x + w, b.y), col);
    if (f.gcs) {  // GC marker: a triangle on top, and the pause as a darker part of the bar
      const double pause = f.gc_pause_us / 1000.0;
      dl->AddRectFilled(ImVec2(x, y(std::min(pause, ms))), ImVec2(x + w, b.y),
                        IM_COL32(160, 40, 40, 255));
      const float cx = x + w / 2;
      dl->AddTriangleFilled(ImVec2(cx - 5, a.y + 2), ImVec2(cx + 5, a.y + 2), ImVec2(cx, a.y + 10),
                            kGcColor);
      if (s.RowW() > 30) Label(dl, ImVec2(cx + 6, a.y), kGcColor, "GC " + Ms(pause));
    }
  }
  // The game's markers: a line down the strip at their frame, the text beside it when there is
  // room (all of it in the tooltip).
  float last_label_end = -1e9f;
  for (const FrameBoard::MarkerAt& m : marks) {
    const MarkerRow& mk = r.markers[m.marker];
    const ImU32 col = mk.kind == MarkerKind::kMarker ? kMarkerColor : kRequestColor;
    const float x = s.RowX(m.row) + w / 2;
    dl->AddLine(ImVec2(x, a.y + 12), ImVec2(x, b.y), col, 1.5f);
    const float tw = ImGui::CalcTextSize(mk.text.c_str()).x;
    if (x + 3 > last_label_end && x + 3 + tw < b.x) {
      Label(dl, ImVec2(x + 3, a.y + 12), col, mk.text);
      last_label_end = x + 3 + tw + 6;
    }
  }
  // The 60 Hz and 30 Hz lines over the bars.
  for (double line : {analysis::kFrameBudget60Ms, analysis::kFrameBudget30Ms}) {
    dl->AddLine(ImVec2(a.x, y(line)), ImVec2(b.x, y(line)), kGrid, 1.5f);
    Label(dl, ImVec2(a.x + 4, y(line) - 16), IM_COL32(230, 230, 230, 220),
          line < 20 ? "16.7 ms (60 Hz)" : "33.3 ms (30 Hz)");
  }
  Caption(dl, a, b, "frame time (max " + Ms(top / 1.1) + ")");
  return s;
}

// Bars (alloc bytes per frame) or a line (bytes left in the GC budget).
void Series(ImDrawList* dl, const FrameRecording& r, const Strip& s, bool budget) {
  dl->AddRectFilled(s.a, s.b, IM_COL32(0, 0, 0, 60));
  double top = 1;
  size_t end = std::min(s.first + s.count, r.frames.size());
  for (size_t i = s.first; i < end; ++i)
    top = std::max(top, budget ? double(std::max<int64_t>(0, r.frames[i].gc_budget_left))
                               : double(r.frames[i].alloc_bytes));
  auto y = [&](double v) { return s.b.y - float(v / top) * (s.b.y - s.a.y - 4); };
  const float w = std::max(1.f, s.RowW() - (s.RowW() > 4 ? 1.f : 0.f));
  ImVec2 prev;
  bool have = false;
  for (size_t i = s.first; i < end; ++i) {
    const FrameRow& f = r.frames[i];
    const float x = s.RowX(i);
    if (budget) {
      if (f.gc_budget_left < 0) continue;
      const ImVec2 p(x + w / 2, y(double(f.gc_budget_left)));
      if (have) dl->AddLine(prev, p, kBudgetColor, 1.5f);
      prev = p;
      have = true;
    } else {
      dl->AddRectFilled(ImVec2(x, y(double(f.alloc_bytes))), ImVec2(x + w, s.b.y), kAllocColor);
    }
  }
  Caption(
      dl, s.a, s.b,
      std::string(budget ? "bytes left before the next GC (max " : "allocated per frame (max ") +
          FormatBytes(uint64_t(top)) + ")");
}

void Figures(FrameBoard& board) {
  const analysis::FrameSummary& s = board.summary();
  const std::string range = board.selection()
                                ? "selected frames " + std::to_string(board.selection()->first) +
                                      ".." + std::to_string(board.selection()->last)
                                : std::string("whole session");
  ImGui::Text("%s: %s frames, mean %s, p95 %s, max %s", range.c_str(),
              FormatCount(s.frames).c_str(), Ms(s.mean_ms).c_str(), Ms(s.p95_ms).c_str(),
              Ms(s.max_ms).c_str());
  ImGui::SameLine(0, 24);
  TextColored(s.over_60hz ? kWarn : kGood, FormatCount(s.over_60hz) + " over 16.7 ms");
  ImGui::SameLine(0, 12);
  TextColored(s.over_30hz ? kBad : kGood, FormatCount(s.over_30hz) + " over 33.3 ms");
  char gc[160];
  std::snprintf(gc, sizeof gc, "%s GCs (%.2f per s), max pause %s; time in GC %s",
                FormatCount(s.gcs).c_str(), s.gcs_per_second, Ms(s.max_gc_ms).c_str(),
                FormatPercent(s.gc_share).c_str());
  ImGui::TextUnformatted(gc);
  ImGui::SameLine(0, 24);
  TextMuted("allocated " + FormatBytes(uint64_t(s.alloc_bytes_per_frame)) + " per frame");
}

}  // namespace

void DrawRecordingBar(App& app) {
  AppSession& ses = app.session();
  const uint32_t shown = ses.recordings().shown_id();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("Recording");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(280);
  if (ImGui::BeginCombo("##recording", ses.recordings().Title(shown).c_str())) {
    if (ImGui::Selectable(ses.recordings().Title(kLiveRecording).c_str(), shown == kLiveRecording))
      ses.recordings().Show(kLiveRecording);
    for (const auto& rd : ses.recordings().docs()) {
      ImGui::PushID(int(rd->id));
      const bool ready = rd->state == RecordingDoc::State::kReady;
      const std::string label =
          rd->title + (rd->state == RecordingDoc::State::kLoading ? " (reading)"
                       : ready                                    ? ""
                                                                  : " (refused)");
      if (ImGui::Selectable(label.c_str(), shown == rd->id,
                            ready ? 0 : ImGuiSelectableFlags_Disabled))
        ses.recordings().Show(rd->id);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", rd->path.c_str());
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button("Open recording...")) app.ShowOpenDialog();
  ImGui::SameLine();
  ImGui::BeginDisabled(ses.recordings().shown().recording().frames.empty());
  if (ImGui::Button("Save recording...")) app.ShowSaveRecordingDialog();
  ImGui::EndDisabled();
  uint32_t close = 0;
  if (shown != kLiveRecording) {
    ImGui::SameLine();
    if (ImGui::Button("Close recording")) close = shown;
    if (const RecordingDoc* rd = ses.recordings().doc(shown)) {
      ImGui::SameLine(0, 16);
      TextMuted("saved recording" + (rd->endpoint.empty() ? std::string() : " of " + rd->endpoint) +
                ": " + rd->path);
    }
  }
  // A refused file: the reader's error (file, part, byte offset, what it found) until dismissed.
  for (const auto& rd : ses.recordings().docs()) {
    if (rd->state != RecordingDoc::State::kFailed) continue;
    ImGui::PushID(int(rd->id));
    ImGui::PushTextWrapPos(0);
    TextColored(kBad, rd->problem);
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton("Dismiss")) close = rd->id;
    ImGui::PopID();
  }
  if (close) ses.recordings().Close(close);
}

void DrawTimelineView(App& app) {
  AppSession& ses = app.session();
  DrawRecordingBar(app);
  FrameBoard& board = ses.recordings().shown();
  const bool live = ses.recordings().shown_id() == kLiveRecording;
  client::HostClient* c = ses.device().link().client();
  const FrameRecording& r = board.recording();
  const client::FramesStatus st = c && live ? c->frames_status() : client::FramesStatus{};
  if (!c && r.frames.empty()) {
    ImGui::Spacing();
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "Frame times, collections and allocation appear here once connected: press Record "
        "frames to stream every frame of the game (its time, what it allocated, the GCs that "
        "ran) and sampled allocations with their call stacks. Connect to a device or press "
        "Launch emulator in the sidebar. Or open a recording saved before (Open recording..., "
        "or a file from xrpm frames -o).");
    ImGui::PopTextWrapPos();
    return;
  }
  ImGui::BeginDisabled(c == nullptr || c->state() != client::ConnectionState::kConnected);
  if (st.requested) {
    if (ImGui::Button("Stop recording", ImVec2(130, 0))) ses.device().StopFrames();
  } else if (ImGui::Button("Record frames", ImVec2(130, 0))) {
    ses.device().StartFrames(ses.device().frame_sample_bytes());
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  int bytes = int(ses.device().frame_sample_bytes());
  ImGui::SetNextItemWidth(120);
  if (ImGui::InputInt("bytes per sample", &bytes, 1024, 16384))
    ses.device().set_frame_sample_bytes(uint32_t(std::clamp(bytes, 64, 64 << 20)));
  ImGui::SameLine();
  HelpMarker(
      "One allocation is sampled per this many bytes allocated, on average, without bias "
      "towards any size or site; estimates are scaled from the samples. Smaller: more precise "
      "for a game that allocates little, more data on the wire.");
  ImGui::SameLine(0, 20);
  if (ImGui::ArrowButton("##left", ImGuiDir_Left)) board.Pan(-int64_t(board.window_count() / 4));
  ImGui::SameLine();
  if (ImGui::ArrowButton("##right", ImGuiDir_Right)) board.Pan(int64_t(board.window_count() / 4));
  ImGui::SameLine();
  if (ImGui::Button("-")) board.Zoom(2.0, board.window_first() + board.window_count() / 2);
  ImGui::SameLine();
  if (ImGui::Button("+")) board.Zoom(0.5, board.window_first() + board.window_count() / 2);
  ImGui::SameLine();
  ImGui::BeginDisabled(board.following());
  if (ImGui::Button("Follow")) board.Follow();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!board.selection());
  if (ImGui::Button("Clear selection")) board.ClearSelection();
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Allocations of this range")) app.SetView(View::kAllocations);
  std::string info =
      FormatCount(r.frames.size()) + " frames, " + FormatCount(r.samples.size()) + " samples";
  if (!r.markers.empty()) info += ", " + FormatCount(r.markers.size()) + " markers";
  if (r.dropped_records) info += ", " + FormatCount(r.dropped_records) + " records dropped";
  if (!st.error.empty()) info = st.error;
  TextMuted(info + "  (wheel: zoom, right-drag: pan, drag: select frames, double-click: clear)");
  Figures(board);

  if (r.frames.empty()) {
    TextMuted(st.requested ? "Waiting for the first frames..." : "");
    return;
  }
  const size_t first = board.window_first();
  const size_t count = std::min(board.window_count(), r.frames.size() - first);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float height = std::max(260.f, ImGui::GetContentRegionAvail().y - 30);
  const float h1 = height * 0.5f, h2 = height * 0.25f - 8, h3 = height * 0.25f - 8;
  ImGui::InvisibleButton("##timeline", ImVec2(width, height),
                         ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const std::vector<FrameBoard::MarkerAt> marks = board.MarkersIn(first, count);
  const Strip s =
      FrameTimes(dl, r, first, count, marks, origin, ImVec2(origin.x + width, origin.y + h1));
  const Strip alloc{ImVec2(origin.x, origin.y + h1 + 8),
                    ImVec2(origin.x + width, origin.y + h1 + 8 + h2), first, count};
  Series(dl, r, alloc, false);
  const Strip budget{ImVec2(origin.x, alloc.b.y + 8), ImVec2(origin.x + width, alloc.b.y + 8 + h3),
                     first, count};
  Series(dl, r, budget, true);

  // Selection band across the three strips.
  if (board.selection()) {
    const auto sel = *board.selection();
    auto row_of = [&](uint64_t frame) {
      auto it = std::lower_bound(r.frames.begin(), r.frames.end(), frame,
                                 [](const FrameRow& f, uint64_t v) { return f.frame < v; });
      return size_t(it - r.frames.begin());
    };
    const size_t r0 = std::max(row_of(sel.first), first);
    const size_t r1 = std::min(row_of(sel.last + 1), first + count);
    if (r0 < r1)
      dl->AddRectFilled(ImVec2(s.RowX(r0), origin.y), ImVec2(s.RowX(r1), budget.b.y), kSelection);
  }

  // Input: wheel zoom, right-drag pan, left-drag select, double-click clears.
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemHovered()) {
    const size_t row = s.RowAt(io.MousePos.x);
    if (io.MouseWheel != 0) board.Zoom(io.MouseWheel > 0 ? 0.8 : 1.25, row);
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      board.ClearSelection();
    } else if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      g_drag.selecting = true;
      g_drag.anchor_row = row;
    }
    if (row < r.frames.size() && !g_drag.selecting) {
      const FrameRow& f = r.frames[row];
      ImGui::BeginTooltip();
      ImGui::Text("frame %llu: %s (work %s)", static_cast<unsigned long long>(f.frame),
                  Ms(f.duration_us / 1000.0).c_str(), Ms(f.work_us / 1000.0).c_str());
      ImGui::Text("allocated %s in %s objects", FormatBytes(f.alloc_bytes).c_str(),
                  FormatCount(f.alloc_objects).c_str());
      if (f.gcs)
        ImGui::Text("%s, pause %s", analysis::FrameGcsText(f.gcs, f.gc_kinds).c_str(),
                    Ms(f.gc_pause_us / 1000.0).c_str());
      if (f.gc_budget_left >= 0)
        ImGui::Text("%s left before the next GC", FormatBytes(uint64_t(f.gc_budget_left)).c_str());
      for (const FrameBoard::MarkerAt& m : marks)
        if (m.row == row) {
          const MarkerRow& mk = r.markers[m.marker];
          TextColored(
              mk.kind == MarkerKind::kMarker ? kWarn : kGood,
              std::string(mk.kind == MarkerKind::kMarker ? "marker '" : "capture request '") +
                  mk.text + "'");
        }
      ImGui::EndTooltip();
    }
  }
  if (g_drag.selecting) {
    const size_t row = s.RowAt(io.MousePos.x);
    const size_t a = std::min(row, g_drag.anchor_row), b = std::max(row, g_drag.anchor_row);
    dl->AddRectFilled(ImVec2(s.RowX(a), origin.y), ImVec2(s.RowX(b + 1), budget.b.y), kSelection);
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
      g_drag.selecting = false;
      if (a < r.frames.size() && b < r.frames.size())
        board.Select(r.frames[a].frame, r.frames[b].frame);
    }
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Right)) {
    g_drag.pan_rest -= io.MouseDelta.x / std::max(0.01f, s.RowW());
    const auto rows = int64_t(g_drag.pan_rest);
    if (rows) {
      board.Pan(rows);
      g_drag.pan_rest -= float(rows);
    }
  }
}

}  // namespace xrpm::gui
