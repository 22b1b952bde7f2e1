#include "app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "widgets.h"
#include "xrpm/app/demo_heap.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/available_memory.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using app::DocState;
using app::SnapshotDoc;
using xrpm::FormatBytes;
using xrpm::FormatCount;

namespace {

uint64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}

bool Ctrl(int key) {
  const ImGuiIO& io = ImGui::GetIO();
  return io.KeyCtrl && !io.KeyShift && !io.KeyAlt && ImGui::IsKeyPressed(key, false);
}

bool EscapePressed() {
  return ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
}

}  // namespace

App::App(app::AppSession& session) : session_(session) {}

bool App::Animating() const {
  const auto& link = session_.device().link();
  return !session_.Idle() || link.capturing() ||
         link.phase() == app::DeviceLink::Phase::kConnecting ||
         link.phase() == app::DeviceLink::Phase::kStartingEmulator ||
         (link.phase() == app::DeviceLink::Phase::kConnected &&
          !session_.device().counters().paused());
}

void App::ShowSaveRecordingDialog() {
  const FrameRecording& r = session_.recordings().shown().recording();
  if (r.frames.empty()) return;
  save_recording_ = true;
  export_counters_ = false;
  save_doc_ = 0;
  std::string name = r.app.empty() ? "recording" : r.app;
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0)
    name.resize(name.size() - 4);
  for (char& c : name)
    if (c == ' ' || c == '/') c = '_';
  file_dialog_.Open(FileDialog::Mode::kSave, session_.settings().last_dir, name + "-frames.xrpm",
                    /*snapshot_formats=*/false);
}

app::AppSession::Opened App::OpenPath(const std::string& path) {
  const app::AppSession::Opened o = session_.Open(path);
  SetView(o.recording ? View::kTimeline : View::kInspections);
  return o;
}

void App::ShowExportCountersDialog() {
  export_counters_ = true;
  save_recording_ = false;
  save_doc_ = 0;
  file_dialog_.Open(FileDialog::Mode::kSave, session_.settings().last_dir, "counters.csv",
                    /*snapshot_formats=*/false);
}

void App::ShowDemoDialog() {
  show_demo_dialog_ = true;
  demo_available_bytes_ = AvailableMemoryBytes();  // once, not every frame
}

const char* App::DialogName() const {
  if (quit_prompt_) return "quit-unsaved";
  if (close_prompt_doc_) return "close-unsaved";
  if (show_demo_dialog_) return "demo";
  if (!file_dialog_.is_open()) return "none";
  if (export_counters_) return "export";
  return file_dialog_.mode() == FileDialog::Mode::kSave ? "save" : "open";
}

void App::SetView(View v) {
  view_ = v;
  view_requested_ = true;
}

void App::RequestQuit(bool force) {
  if (force || !session_.documents().HasUnsaved()) {
    quit_requested_ = true;
    return;
  }
  quit_prompt_ = true;
}

void App::Frame() {
  HandleShortcuts();
  if (session_.TakeLandedCapture()) SetView(View::kInspections);  // as after File > Open

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.f);
  ImGui::Begin("xrpm monitor", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_MenuBar |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoMove);
  ImGui::PopStyleVar(2);
  DrawMenuBar();

  const float status_h = ImGui::GetFrameHeightWithSpacing() + 6;
  const float avail_h = ImGui::GetContentRegionAvail().y - status_h;
  float& sidebar_w = session_.settings().sidebar_width;
  sidebar_w = std::clamp(sidebar_w, 220.f, std::max(220.f, vp->WorkSize.x * 0.5f));
  DrawSidebar(sidebar_w, avail_h);

  // Splitter: drag to resize the sidebar.
  ImGui::SameLine(0, 0);
  ImGui::InvisibleButton("##split", ImVec2(6, avail_h));
  if (ImGui::IsItemHovered() || ImGui::IsItemActive())
    ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
  if (ImGui::IsItemActive()) sidebar_w += ImGui::GetIO().MouseDelta.x;
  ImGui::SameLine(0, 0);

  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 8));
  ImGui::BeginChild("##main", ImVec2(0, avail_h), false, ImGuiWindowFlags_AlwaysUseWindowPadding);
  DrawMain();
  ImGui::EndChild();
  ImGui::PopStyleVar();

  DrawStatusBar();
  DrawModals();
  ImGui::End();

  if (show_log_) {
    ImGui::SetNextWindowSize(ImVec2(720, 320), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Log", &show_log_)) {
      for (const auto& e : session_.log()) {
        char t[32];
        std::snprintf(t, sizeof t, "%8.1f s  ", e.time_s);
        TextMuted(t);
        ImGui::SameLine();
        const ImVec4 c = e.level == app::LogEntry::kError ? kBad
                         : e.level == app::LogEntry::kWarning
                             ? kWarn
                             : ImGui::GetStyle().Colors[ImGuiCol_Text];
        ImGui::PushTextWrapPos(0);
        TextColored(c, e.text);
        ImGui::PopTextWrapPos();
      }
      if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.f);
    }
    ImGui::End();
  }
}

std::string App::WindowTitle() {
  std::string title = "xrpm monitor";
  if (SnapshotDoc* d = session_.documents().active())
    title += " — " + d->title + (d->unsaved ? " *" : "");
  return title;
}

void App::OpenDropped(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      session_.Log(app::LogEntry::kWarning,
                   "Dropped a folder; drop snapshot files instead: " + path);
      continue;
    }
    OpenPath(path);
  }
}

void App::HandleShortcuts() {
  if (ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;  // dialogs own the keyboard
  if (Ctrl(GLFW_KEY_O)) ShowOpenDialog();
  if (Ctrl(GLFW_KEY_S)) {
    if (SnapshotDoc* d = session_.documents().active()) {
      if (d->unsaved && !d->path.empty())
        session_.documents().SaveAs(d->id, d->path);
      else
        ShowSaveDialog(d->id);
    }
  }
  if (Ctrl(GLFW_KEY_F)) {
    SetView(View::kTypes);
    focus_filter_ = true;
  }
  if (Ctrl(GLFW_KEY_W))
    if (SnapshotDoc* d = session_.documents().active()) AskClose(d->id);
  if (Ctrl(GLFW_KEY_Q)) RequestQuit();
}

void App::ShowOpenDialog() {
  save_doc_ = 0;
  export_counters_ = save_recording_ = false;
  file_dialog_.Open(FileDialog::Mode::kOpen, session_.settings().last_dir);
}

void App::ShowSaveDialog(uint32_t id) {
  SnapshotDoc* d = session_.documents().doc(id);
  if (!d || !d->snapshot) return;
  save_doc_ = id;
  export_counters_ = save_recording_ = false;
  std::string name =
      d->path.empty() ? d->title : std::filesystem::path(d->path).filename().string();
  if (d->path.empty()) {
    // "Capture 1 — bubbles.exe" -> "Capture_1-bubbles": a file name without the app's ".exe".
    if (size_t dash = name.find(" — "); dash != std::string::npos) name.replace(dash, 5, "-");
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0)
      name.resize(name.size() - 4);
  }
  for (char& c : name)
    if (c == ' ' || c == '/') c = '_';
  // Import-only formats (.gcdump) cannot be written: their extension goes.
  const formats::FormatInfo* f = formats::FormatForPath(name, /*for_reading=*/false);
  if (f && !f->can_write) name = std::filesystem::path(name).replace_extension().string();
  // Never saved (a capture), or no writable extension: the lossless .xrpm unless the user picks
  // another format.
  if (d->path.empty() || !formats::FormatForPath(name, /*for_reading=*/false)) name += ".xrpm";
  std::string dir = d->path.empty() ? session_.settings().last_dir
                                    : std::filesystem::path(d->path).parent_path().string();
  file_dialog_.Open(FileDialog::Mode::kSave, dir, name, true,
                    [snap = d->snapshot](const std::string& format) {
                      return formats::FormatLosses(*snap, format);
                    });
}

void App::AskClose(uint32_t id) {
  if (!session_.documents().Close(id)) close_prompt_doc_ = id;
}

void App::DrawMenuBar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open...", "Ctrl+O")) ShowOpenDialog();
    if (ImGui::BeginMenu("Open recent", !session_.settings().recent_files.empty())) {
      std::string chosen;
      for (const auto& f : session_.settings().recent_files)
        if (ImGui::MenuItem(f.c_str())) chosen = f;
      ImGui::Separator();
      if (ImGui::MenuItem("Clear list")) session_.settings().recent_files.clear();
      ImGui::EndMenu();
      if (!chosen.empty()) OpenPath(chosen);
    }
    if (ImGui::MenuItem("Generate demo heap...")) ShowDemoDialog();
    SnapshotDoc* d = session_.documents().active();
    if (ImGui::MenuItem("Save As...", "Ctrl+S", false, d && d->snapshot)) ShowSaveDialog(d->id);
    if (ImGui::MenuItem("Save recording As...", nullptr, false,
                        !session_.recordings().shown().recording().frames.empty()))
      ShowSaveRecordingDialog();
    if (ImGui::MenuItem("Close snapshot", "Ctrl+W", false, d != nullptr)) AskClose(d->id);
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) RequestQuit();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    for (int i = 0; i < kViewCount; ++i) {
      View v = static_cast<View>(i);
      if (v == View::kConnection) continue;
      if (ImGui::MenuItem(ViewTitle(v), nullptr, view_ == v)) SetView(v);
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Find type", "Ctrl+F")) {
      SetView(View::kTypes);
      focus_filter_ = true;
    }
    ImGui::MenuItem("Log", nullptr, &show_log_);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("xrpm monitor 0.1 — Remote Performance Monitor for NETCF / XNA heaps");
    TextMuted(
        "Drop snapshot files (.xrpm, .gclog, IBM classic .txt, .gcdump) or saved frame "
        "recordings (.xrpm from Save recording or xrpm frames -o) on the window to open them.");
    TextMuted("Ctrl+O open, Ctrl+S save, Ctrl+F find type, Ctrl+W close, Ctrl+Q quit.");
    TextMuted("Settings: " + session_.config_dir());
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void App::DrawSidebar(float width, float height) {
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10, 8));
  ImGui::BeginChild("##sidebar", ImVec2(width, height), false,
                    ImGuiWindowFlags_AlwaysUseWindowPadding);
  DrawConnectionView(*this);
  DrawSnapshotList();
  ImGui::EndChild();
  ImGui::PopStyleVar();
}

void App::DrawSnapshotList() {
  SectionTitle("SNAPSHOTS");
  const auto& docs = session_.documents().docs();
  if (docs.empty()) {
    ImGui::PushTextWrapPos(0);
    TextMuted(
        "No snapshot yet. Capture one from a device, open a .xrpm, .gclog, IBM classic .txt or "
        ".NET .gcdump (Ctrl+O) or drop files on this window.");
    ImGui::PopTextWrapPos();
  }
  uint32_t close_id = 0, save_id = 0;
  for (const auto& dp : docs) {
    SnapshotDoc& d = *dp;
    ImGui::PushID(static_cast<int>(d.id));
    const bool active = d.id == session_.documents().active_id();
    const char* badge = d.origin == app::DocOrigin::kCaptured    ? "[capture]"
                        : d.origin == app::DocOrigin::kGenerated ? "[demo]"
                                                                 : "[file]";
    std::string label = std::string(badge) + " " + d.title + (d.unsaved ? "  *" : "");
    if (ImGui::Selectable(label.c_str(), active, ImGuiSelectableFlags_AllowItemOverlap))
      session_.documents().SetActive(d.id);
    if (ImGui::IsItemHovered() && !d.path.empty()) ImGui::SetTooltip("%s", d.path.c_str());
    if (ImGui::BeginPopupContextItem("##ctx")) {
      if (ImGui::MenuItem("Save As...", nullptr, false, d.snapshot != nullptr)) save_id = d.id;
      if (ImGui::MenuItem("Close")) close_id = d.id;
      ImGui::EndPopup();
    }
    ImGui::Indent(12);
    switch (d.state) {
      case DocState::kLoading:
        TextMuted("loading...");
        break;
      case DocState::kFailed:
        ImGui::PushTextWrapPos(0);
        TextColored(kBad, d.problem);
        ImGui::PopTextWrapPos();
        break;
      default: {
        std::string line = xrpm::FormatShortCount(double(d.snapshot->object_count())) +
                           " objects, " + FormatBytes(d.overview ? d.overview->bytes : 0);
        if (d.state == DocState::kAnalysing) line += ", analysing...";
        TextMuted(line);
        if (d.unsaved) {
          ImGui::SameLine();
          TextColored(kWarn, "unsaved");
        }
      }
    }
    ImGui::Unindent(12);
    ImGui::PopID();
  }
  ImGui::Spacing();
  if (ImGui::Button("Open...")) ShowOpenDialog();
  ImGui::SameLine();
  SnapshotDoc* a = session_.documents().active();
  ImGui::BeginDisabled(!a || !a->snapshot);
  if (ImGui::Button("Save As...")) save_id = a->id;
  ImGui::SameLine();
  ImGui::EndDisabled();
  ImGui::BeginDisabled(!a);
  if (ImGui::Button("Close")) close_id = a->id;
  ImGui::EndDisabled();
  if (save_id) ShowSaveDialog(save_id);
  if (close_id) AskClose(close_id);

  const auto& recent = session_.settings().recent_files;
  if (docs.empty() && !recent.empty()) {
    SectionTitle("RECENT FILES");
    std::string chosen;
    for (size_t i = 0; i < recent.size() && i < 6; ++i) {
      const std::string name = std::filesystem::path(recent[i]).filename().string();
      if (ImGui::Selectable((name + "##" + std::to_string(i)).c_str())) chosen = recent[i];
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", recent[i].c_str());
    }
    if (!chosen.empty()) OpenPath(chosen);
  }
}

void App::DrawMain() {
  SnapshotDoc* d = session_.documents().active();
  if (!ImGui::BeginTabBar("##views")) return;
  for (int i = 0; i < kViewCount; ++i) {
    const View v = static_cast<View>(i);
    if (v == View::kConnection) continue;
    ImGuiTabItemFlags flags = (view_requested_ && view_ == v) ? ImGuiTabItemFlags_SetSelected : 0;
    if (!ImGui::BeginTabItem(ViewTitle(v), nullptr, flags)) continue;
    if (!view_requested_) view_ = v;
    ImGui::BeginChild("##view");
    if (v == View::kCounters) {
      DrawCountersView(*this);
    } else if (v == View::kTimeline) {
      DrawTimelineView(*this);
    } else if (v == View::kAllocations) {
      DrawAllocationsView(*this);
    } else if (v == View::kCompare) {
      DrawCompareView(*this);
    } else if (!d) {
      ImGui::Spacing();
      TextMuted("Open or capture a snapshot to see its " + std::string(ViewTitle(v)) + ".");
    } else if (d->state == DocState::kLoading) {
      ImGui::Spacing();
      TextMuted("Loading " + d->title + "...");
    } else if (d->state == DocState::kFailed) {
      ImGui::Spacing();
      ImGui::PushTextWrapPos(0);
      TextColored(kBad, d->problem);
      ImGui::PopTextWrapPos();
    } else {
      if (focus_filter_ && v == View::kTypes) {
        ImGui::SetKeyboardFocusHere();
        focus_filter_ = false;
      }
      switch (v) {
        case View::kSummary:
          DrawSummaryView(*this, *d);
          break;
        case View::kInspections:
          DrawInspectionsView(*this, *d);
          break;
        case View::kTypes:
          DrawTypesView(*this, *d);
          break;
        case View::kInstances:
          DrawInstancesView(*this, *d);
          break;
        case View::kInspector:
          DrawInspectorView(*this, *d);
          break;
        case View::kRoots:
          DrawRootsView(*this, *d);
          break;
        case View::kDominators:
          DrawDominatorsView(*this, *d);
          break;
        case View::kAge:
          DrawAgeView(*this, *d);
          break;
        default:
          break;
      }
    }
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  view_requested_ = false;
  ImGui::EndTabBar();
}

void App::DrawStatusBar() {
  ImGui::Separator();
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 10);
  const app::TaskStatus st = session_.work();
  if (st.busy) {
    if (WorkProgress(st)) session_.CancelWork();
  } else if (!session_.last_error().empty()) {
    TextColored(kBad, session_.last_error());
    ImGui::SameLine();
    if (ImGui::SmallButton("Dismiss")) session_.ClearError();
  } else if (!session_.log().empty()) {
    TextMuted(session_.log().back().text);
  } else {
    TextMuted("Ready.");
  }
  const std::string right = "memory " + FormatBytes(ResidentBytes());
  const float w = ImGui::CalcTextSize(right.c_str()).x + ImGui::CalcTextSize("Log").x + 40;
  ImGui::SameLine(ImGui::GetWindowWidth() - w);
  TextMuted(right);
  ImGui::SameLine();
  if (ImGui::SmallButton("Log")) show_log_ = !show_log_;
}

void App::DrawModals() {
  if (auto r = file_dialog_.Draw()) {
    if (export_counters_) {
      session_.device().ExportCounters(r->path);
      export_counters_ = false;
    } else if (save_recording_) {
      session_.recordings().Save(r->path);
      save_recording_ = false;
    } else if (save_doc_) {
      session_.documents().SaveAs(save_doc_, r->path, r->format);
      save_doc_ = 0;
    } else {
      OpenPath(r->path);
    }
  } else if (!file_dialog_.is_open()) {
    save_doc_ = 0;
    export_counters_ = false;
    save_recording_ = false;
  }

  if (close_prompt_doc_) {
    ImGui::OpenPopup("Unsaved snapshot");
    SnapshotDoc* d = session_.documents().doc(close_prompt_doc_);
    if (ImGui::BeginPopupModal("Unsaved snapshot", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::Text("\"%s\" has not been saved.", d ? d->title.c_str() : "?");
      ImGui::TextUnformatted("Closing it loses the capture.");
      ImGui::Spacing();
      const uint32_t id = close_prompt_doc_;
      if (ImGui::Button("Save As...", ImVec2(120, 0))) {
        close_prompt_doc_ = 0;
        ImGui::CloseCurrentPopup();
        ShowSaveDialog(id);
      }
      ImGui::SameLine();
      if (ImGui::Button("Close without saving", ImVec2(170, 0))) {
        session_.documents().Close(id, /*discard=*/true);
        close_prompt_doc_ = 0;
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel", ImVec2(100, 0)) || !d || EscapePressed()) {
        close_prompt_doc_ = 0;
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }

  if (quit_prompt_) {
    ImGui::OpenPopup("Quit with unsaved snapshots?");
    if (ImGui::BeginPopupModal("Quit with unsaved snapshots?", nullptr,
                               ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::TextUnformatted("These snapshots have not been saved:");
      for (const auto& d : session_.documents().docs())
        if (d->unsaved) ImGui::BulletText("%s", d->title.c_str());
      ImGui::Spacing();
      if (ImGui::Button("Quit without saving", ImVec2(170, 0))) {
        quit_requested_ = true;
        quit_prompt_ = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel", ImVec2(100, 0)) || EscapePressed()) {
        quit_prompt_ = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }

  if (show_demo_dialog_) {
    ImGui::OpenPopup("Generate demo heap");
    static int objects = 1'000'000, generation = 0, refs = 1;
    if (ImGui::BeginPopupModal("Generate demo heap", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::TextUnformatted("A game-shaped heap to try the monitor without a device.");
      ImGui::InputInt("Objects", &objects, 100'000, 1'000'000);
      objects = std::clamp(objects, 1, 1'000'000'000);
      ImGui::InputInt("References per object", &refs);
      refs = std::clamp(refs, 1, 8);
      HelpMarker("Game heaps hold about 3 references per object.");
      ImGui::InputInt("Leak generation", &generation);
      generation = std::clamp(generation, 0, 50);
      HelpMarker(
          "Each generation adds a leaking cache of 10% more objects; generate two "
          "generations and compare them.");
      const app::DemoHeapOptions demo{.objects = uint64_t(objects),
                                      .generation = uint32_t(generation),
                                      .extra_refs_per_object = double(refs - 1)};
      const uint64_t need = app::DemoHeapPeakBytes(demo);
      const uint64_t available = demo_available_bytes_;
      const std::string needs =
          "Needs at least ~" + FormatBytes(need) + " (" + FormatBytes(available) + " available)";
      if (need > available)
        TextColored(kWarn, needs);
      else
        TextMuted(needs);
      if (ImGui::Button("Generate", ImVec2(120, 0))) {
        session_.documents().OpenDemo(demo);
        SetView(View::kTypes);
        show_demo_dialog_ = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel", ImVec2(100, 0)) || EscapePressed()) {
        show_demo_dialog_ = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }
}

}  // namespace xrpm::gui
