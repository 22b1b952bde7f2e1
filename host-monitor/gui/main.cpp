// xrpm-monitor: the Dear ImGui + GLFW front end of the host monitor.
//
// The loop redraws only when something happens: it sleeps in glfwWaitEventsTimeout until input
// arrives or a worker wakes it (Platform::Wake), with a short timeout while background work or
// live counters are running and right after input (so hover effects and popups settle).
// Scripted runs (--script, --screenshot) never sleep.
#include <imgui.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "app.h"
#include "platform.h"
#include "script_runner.h"
#include "xrpm/model/atomic_file.h"
#include "xrpm/model/diagnostics.h"

namespace {

struct Options {
  std::vector<std::string> files;
  std::string script;
  std::string screenshot;
  int frames = 10;
  std::string state_json;
  uint64_t demo = 0;
  std::string index = "auto";
  std::string config_dir;
  std::string size;
  std::string connect;
  std::string token;
  std::string launch;
  std::string launch_mono;
  std::string launch_dotnet;
};

// Exit code when no window can be opened (no display): scripts fall back to headless work.
constexpr int kExitNoDisplay = 3;

bool ParseSize(const std::string& s, int* w, int* h) {
  return std::sscanf(s.c_str(), "%dx%d", w, h) == 2 && *w >= 320 && *h >= 240;
}

// Hands the fonts the characters of each document's text once its analysis is ready (the
// analyses already fed are remembered weakly, so a closed document is forgotten).
void FeedDocumentGlyphs(const xrpm::app::AppSession& session, xrpm::gui::Platform& platform,
                        std::vector<std::weak_ptr<const xrpm::app::DocAnalysis>>& fed) {
  std::erase_if(fed, [](const auto& w) { return w.expired(); });
  for (const auto& d : session.documents().docs()) {
    const std::shared_ptr<const xrpm::app::DocAnalysis>& a = d->analysis;
    if (!a || std::any_of(fed.begin(), fed.end(),
                          [&](const auto& w) { return !w.owner_before(a) && !a.owner_before(w); }))
      continue;
    platform.WantGlyphs(a->glyphs);
    fed.push_back(a);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App cli{"xrpm-monitor: browse managed heaps live from a device or from snapshot files",
               "xrpm-monitor"};
  cli.add_option("files", o.files, "Snapshot files or saved frame recordings to open");
  cli.add_option("--script", o.script, "Run the steps in FILE (see docs: scripted mode)");
  cli.add_option("--screenshot", o.screenshot,
                 "Write a PNG of the window after --frames frames, then quit");
  cli.add_option("--frames", o.frames, "Frames to draw before --screenshot")
      ->check(CLI::Range(1, 100000));
  cli.add_option("--state-json", o.state_json, "Write the session state as JSON on exit");
  cli.add_option("--demo", o.demo, "Generate a demo heap with N objects at start");
  cli.add_option("--index", o.index,
                 "The analysis' graph index: full (referrers at once), lean (8 bytes per "
                 "reference and per object less; referrers found by a scan), auto (full when it "
                 "fits in the memory available)")
      ->check(CLI::IsMember({"auto", "full", "lean"}))
      ->default_str("auto");
  cli.add_option("--config-dir", o.config_dir,
                 "Settings directory (default $XDG_CONFIG_HOME/xrpm)");
  cli.add_option("--size", o.size, "Window size WIDTHxHEIGHT (default: last used)");
  cli.add_option("--connect", o.connect, "Connect to the device agent at HOST:PORT at start");
  cli.add_option("--token", o.token, "Token for --connect (agents serving a LAN require one)");
  cli.add_option("--launch-emulator", o.launch,
                 "Start xrpm-emulator with this scenario at start and connect to it");
  cli.add_option("--launch-mono", o.launch_mono,
                 "Start this C# program (\"sample\": the sample game XnaBubbles.exe) under Mono "
                 "with the device agent (xrpm-mono) at start and connect to it")
      ->expected(0, 1)
      ->default_str("sample");
  cli.add_option("--launch-dotnet", o.launch_dotnet,
                 "Start this .NET program (PROGRAM.dll; \"sample\": the sample game "
                 "XnaBubbles.dll) with the device agent (xrpm-dotnet) at start and connect to it")
      ->expected(0, 1)
      ->default_str("sample");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }

  std::optional<std::vector<xrpm::app::ScriptStep>> steps;
  if (!o.script.empty()) {
    try {
      steps = xrpm::app::ParseScriptFile(o.script);
    } catch (const xrpm::InputError& e) {
      std::fprintf(stderr, "xrpm-monitor: %s\n", e.what());
      return 1;
    }
  }

  // The session (and its worker threads, which call Platform::Wake) must end before GLFW does.
  auto session_owner = std::make_unique<xrpm::app::AppSession>(
      xrpm::app::AppSession::Options{o.config_dir, true, &xrpm::gui::Platform::Wake});
  xrpm::app::AppSession& session = *session_owner;
  session.documents().set_index_choice(o.index == "full"   ? xrpm::app::DocIndex::kFull
                                       : o.index == "lean" ? xrpm::app::DocIndex::kLean
                                                           : xrpm::app::DocIndex::kAuto);
  auto& settings = session.settings();
  xrpm::gui::PlatformOptions popts;
  popts.width = settings.window_width;
  popts.height = settings.window_height;
  if (!o.size.empty() && !ParseSize(o.size, &popts.width, &popts.height)) {
    std::fprintf(stderr, "xrpm-monitor: --size: expected WIDTHxHEIGHT, found '%s'\n",
                 o.size.c_str());
    return 2;
  }
  popts.ini_path = session.imgui_ini_path();
  popts.font_size = settings.font_size;

  xrpm::gui::Platform platform;
  std::string error;
  if (!platform.Init(popts, &error)) {
    std::fprintf(stderr, "xrpm-monitor: %s\n", error.c_str());
    return kExitNoDisplay;
  }
  xrpm::gui::App app(session);
  if (!o.connect.empty()) {
    session.device().Connect(o.connect, o.token);
    app.SetView(xrpm::gui::View::kCounters);
  } else if (!o.launch.empty()) {
    session.device().LaunchEmulator(o.launch);
    app.SetView(xrpm::gui::View::kCounters);
  } else if (cli.count("--launch-mono")) {
    session.device().LaunchMono(o.launch_mono == "sample" ? "" : o.launch_mono);
    app.SetView(xrpm::gui::View::kCounters);
  } else if (cli.count("--launch-dotnet")) {
    session.device().LaunchDotnet(o.launch_dotnet == "sample" ? "" : o.launch_dotnet);
    app.SetView(xrpm::gui::View::kCounters);
  }
  for (const auto& f : o.files) app.OpenPath(f);  // snapshots and saved recordings
  if (o.demo) {
    session.documents().OpenDemo({o.demo, 1, 0});
    app.SetView(xrpm::gui::View::kTypes);
  }
  std::unique_ptr<xrpm::gui::ScriptRunner> runner;
  if (steps) runner = std::make_unique<xrpm::gui::ScriptRunner>(std::move(*steps), app);
  const bool scripted = runner || !o.screenshot.empty();
  // Scripted runs ignore the (virtual) mouse, so screenshots show no accidental hover.
  if (scripted) ImGui::GetIO().ConfigFlags |= ImGuiConfigFlags_NoMouse;

  int exit_code = 0;
  std::string window_title;
  std::vector<std::weak_ptr<const xrpm::app::DocAnalysis>> fed_glyphs;
  for (int frame = 1;; ++frame) {
    if (scripted) {
      platform.WaitEvents(0);
    } else {
      const double since_input = platform.SecondsSinceInput();
      platform.WaitEvents(since_input < 0.3 ? 1.0 / 60 : app.Animating() ? 0.1 : 5.0);
    }
    if (platform.ShouldClose()) {
      platform.SetShouldClose(false);
      app.RequestQuit();
    }
    session.Poll();
    if (runner) runner->BeforeFrame();

    app.OpenDropped(platform.TakeDroppedFiles());
    FeedDocumentGlyphs(session, platform, fed_glyphs);
    platform.BeginFrame();
    app.Frame();
    if (std::string title = app.WindowTitle(); title != window_title) {
      platform.SetTitle(title);
      window_title = title;
    }
    std::string shot = runner ? runner->ScreenshotRequest() : std::string();
    if (!o.screenshot.empty() && frame == o.frames) shot = o.screenshot;
    std::string shot_error;
    const bool shot_ok = platform.EndFrame(shot, &shot_error);
    if (runner) runner->AfterFrame(shot_ok, shot_error);

    if (!o.screenshot.empty() && frame == o.frames) {
      if (!shot_ok) {
        std::fprintf(stderr, "xrpm-monitor: %s\n", shot_error.c_str());
        exit_code = 1;
      }
      break;
    }
    if (runner && runner->done()) {
      exit_code = runner->exit_code();
      break;
    }
    if (app.quit_requested()) break;
  }

  if (!scripted) {
    platform.WindowSize(&settings.window_width, &settings.window_height);
    session.SaveSettingsNow();
  }
  if (!o.state_json.empty()) {
    try {
      xrpm::AtomicFile f(o.state_json);
      f.Write(session.StateJson());
      f.Commit();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xrpm-monitor: %s\n", e.what());
      exit_code = 1;
    }
  }
  runner.reset();
  session_owner.reset();
  platform.Shutdown();
  return exit_code;
}
