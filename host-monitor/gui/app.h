// App: the monitor's window contents. It draws the menu bar, the sidebar (connection, capture,
// snapshots), the tabbed views of the active snapshot and the status bar, handles shortcuts,
// dropped files and the unsaved-changes prompts, and forwards every action to the AppSession.
// It holds only view state (current tab, scroll-independent choices, cached sort orders); the
// data and the work live in the session.
//
// Thread-safety: UI thread only.
#pragma once

#include <string>
#include <vector>

#include "file_dialog.h"
#include "view_registry.h"
#include "xrpm/app/app_session.h"

namespace xrpm::gui {

class App {
 public:
  explicit App(app::AppSession& session);

  // Draws one frame's UI (between Platform::BeginFrame and EndFrame).
  void Frame();

  // True while something moves on its own (work in progress, live counters): the main loop
  // then redraws at a steady rate instead of waiting for input.
  bool Animating() const;
  // Files dropped on the window: opened as snapshots.
  void OpenDropped(const std::vector<std::string>& paths);
  // "xrpm monitor — <active snapshot> *".
  std::string WindowTitle();
  bool quit_requested() const { return quit_requested_; }
  // Asks to quit; prompts first when snapshots have unsaved changes (unless `force`).
  void RequestQuit(bool force = false);

  void SetView(View v);
  View view() const { return view_; }
  void FocusTypeFilter() { focus_filter_ = true; }
  void ShowExportCountersDialog();
  // Save recording...: the shown frames recording to an .xrpm (Recordings::Save).
  void ShowSaveRecordingDialog();
  // File > Open (also dropped files, recent files, the command line): a saved recording goes to
  // the Timeline, a snapshot to the Inspections view.
  app::AppSession::Opened OpenPath(const std::string& path);
  void ShowOpenDialog();
  // File > Generate demo heap...: its dialog, with the memory available read once.
  void ShowDemoDialog();
  // The dialog the user sees: "none", "open", "save", "export", "demo", "close-unsaved" or
  // "quit-unsaved" (the script's expect-dialog names).
  const char* DialogName() const;

  app::AppSession& session() { return session_; }
  ViewStates& views() { return states_; }

 private:
  void HandleShortcuts();
  void DrawMenuBar();
  void DrawSidebar(float width, float height);
  void DrawSnapshotList();
  void DrawMain();
  void DrawStatusBar();
  void DrawModals();
  void ShowSaveDialog(uint32_t doc);
  void AskClose(uint32_t doc);

  app::AppSession& session_;
  ViewStates states_;
  View view_ = View::kSummary;
  bool view_requested_ = true;  // select view_'s tab on the next frame
  bool focus_filter_ = false;
  bool quit_requested_ = false;
  bool quit_prompt_ = false;
  uint32_t close_prompt_doc_ = 0;
  uint32_t save_doc_ = 0;
  bool export_counters_ = false;  // the file dialog is choosing a CSV path
  bool save_recording_ = false;   // the file dialog is choosing where to save the recording
  FileDialog file_dialog_;
  bool show_log_ = false;
  bool show_demo_dialog_ = false;
  uint64_t demo_available_bytes_ = 0;  // the memory available when the dialog opened
};

}  // namespace xrpm::gui
