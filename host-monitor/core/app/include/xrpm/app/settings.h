// Settings: what the monitor remembers between runs (last connection, emulator scenario,
// recent files, window size, view preferences), stored as JSON in
// $XDG_CONFIG_HOME/xrpm/settings.json (or ~/.config/xrpm/). Dear ImGui's own layout file
// (imgui.ini: table column widths, sort orders) lives next to it.
//
// Loading never fails: a missing or unreadable file gives defaults, and unknown or badly typed
// fields are ignored (with a message in `load_problem`). Saving is atomic.
//
// Thread-safety: a value; the session owns one and touches it from the UI thread only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace xrpm::app {

struct Settings {
  // Connection.
  std::string host = "127.0.0.1";
  int port = 4510;
  std::string token;  // not persisted: a secret stays out of config files
  std::string emulator_scenario = "bubbles";
  std::string emulator_path;  // "" = find xrpm-emulator next to xrpm-monitor, then in PATH
  // The launched emulator's captures walk a copy-on-write snapshot (xrpm-emulator --walk
  // snapshot): the game pauses for the collection only.
  bool emulator_snapshot_walk = false;
  // Options for Mono itself when a program runs under Mono (xrpm-mono --mono-option=OPT each),
  // separated by spaces: "--debug --gc-params=nursery-size=64m".
  std::string mono_options;
  // Programs launched under Mono or .NET, and .NET processes attached, report allocation
  // samples with their stacks (the launchers' --allocations; an attach needs .NET 10's sampled
  // allocations: on an older runtime the attach is refused, saying so).
  bool runtime_allocations = false;

  // Files.
  std::vector<std::string> recent_files;  // most recent first
  std::string last_dir;
  static constexpr size_t kMaxRecent = 10;

  // Window and views.
  int window_width = 1500;
  int window_height = 920;
  float font_size = 15.f;
  float sidebar_width = 330.f;
  bool counters_live = true;
  int counter_history_seconds = 120;

  // Moves (or inserts) `path` to the front of recent_files, keeping at most kMaxRecent.
  void AddRecent(const std::string& path);
  void RemoveRecent(const std::string& path);
};

// `path` made absolute and normal (unchanged if that fails): recent files and the last
// directory must work from any working directory.
std::string AbsolutePath(const std::string& path);

// $XDG_CONFIG_HOME/xrpm, else $HOME/.config/xrpm, else ./.xrpm. Not created here.
std::string ConfigDir();

// Reads `path`; missing file -> defaults. `problem` gets a plain-words reason when the file
// exists but could not be used (it is then ignored, not overwritten until the next save).
Settings LoadSettings(const std::string& path, std::string* problem = nullptr);
// Creates the directory if needed and writes atomically. Throws std::runtime_error.
void SaveSettings(const Settings& s, const std::string& path);

}  // namespace xrpm::app
