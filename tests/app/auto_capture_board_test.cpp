// The monitor's Auto capture (AutoCaptureBoard through AppSession) against the
// emulator over 127.0.0.1, as the Capture panel drives it: bad fields are refused with the CLI's
// messages; "every" with a ring of 2 saves numbered files under the template and opens no
// document; the game's own requests and a marker rule fire with the frames the Timeline
// records; stopping stops. Bounded: every wait polls the session against a deadline.
#include "xrpm/app/auto_capture_board.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "temp_dir.h"
#include "tool_process.h"
#include "xrpm/app/app_session.h"

namespace xrpm::app {
namespace {

namespace fs = std::filesystem;

// Polls the session (as the UI does every frame) until `done` or 60 s.
bool PollUntil(AppSession& s, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    s.Poll();
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a UI frame, not a guess
  }
  return false;
}

std::string LogText(const AppSession& s) {
  std::string t;
  for (const auto& e : s.log()) t += e.text + "\n";
  return t;
}

struct Fixture {
  testing::TempDir dir{"xrpm_auto_board"};
  testing::EmulatorProcess emu{{"--scenario", "bubbles"}};
  AppSession s{AppSession::Options{dir.Path("config"), false, {}}};

  bool Connect() {
    if (emu.endpoint.empty()) return false;
    s.device().Connect(emu.endpoint, "");
    return PollUntil(s, [&] { return s.device().link().phase() == DeviceLink::Phase::kConnected; });
  }
};

TEST(AutoCaptureBoard, BadFieldsAreRefusedWithTheCliMessages) {
  AutoCaptureBoard b;
  std::string err;
  b.triggers.every = "soon";
  EXPECT_FALSE(b.Start(&err));
  EXPECT_EQ(err,
            "--every: expected a positive duration such as 10s, 500ms, 2m or 1h, found 'soon'");
  EXPECT_FALSE(b.active());
  b.triggers.every = "10s";
  b.output = "run.xrpm";
  b.keep = 3;
  EXPECT_FALSE(b.Start(&err));
  EXPECT_NE(err.find("need {n}"), std::string::npos) << err;
  b.output = "run-{n}.xrpm";
  EXPECT_TRUE(b.Start(&err)) << err;
  EXPECT_EQ(b.Describe(), "every 10.0 s, the game's requests");
}

TEST(AutoCaptureBoard, EveryKeepsARingOfFilesAndOpensNoDocument) {
  Fixture f;
  ASSERT_TRUE(f.Connect()) << f.emu.proc->log().All() << LogText(f.s);
  AutoCaptureBoard& b = f.s.device().auto_capture();
  b.triggers.every = "100ms";
  b.triggers.game_requests = false;
  b.output = f.dir.Path("a-{n}-{trigger}.xrpm");
  b.keep = 2;
  ASSERT_TRUE(f.s.device().StartAutoCapture()) << LogText(f.s);
  ASSERT_TRUE(PollUntil(f.s, [&] { return b.saved() >= 4; })) << LogText(f.s);
  f.s.device().StopAutoCapture();
  const uint64_t saved = b.saved();
  EXPECT_FALSE(b.active());
  EXPECT_EQ(b.failed(), 0u) << LogText(f.s);
  EXPECT_TRUE(f.s.documents().docs().empty()) << "auto captures are saved, not opened";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(f.dir.path()))
    if (e.path().extension() == ".xrpm") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"a-" + std::to_string(saved - 1) + "-every.xrpm",
                                             "a-" + std::to_string(saved) + "-every.xrpm"}));
  EXPECT_EQ(b.last_file(), f.dir.Path("a-" + std::to_string(saved) + "-every.xrpm"));
  EXPECT_NE(LogText(f.s).find("Auto capture 1 (every 100 ms) -> "), std::string::npos)
      << LogText(f.s);
  EXPECT_NE(LogText(f.s).find(", the game paused "), std::string::npos) << LogText(f.s);
  EXPECT_NE(LogText(f.s).find(" (GC "), std::string::npos) << LogText(f.s);  // what it held
  EXPECT_NE(f.s.StateJson().find("\"saved\": " + std::to_string(saved)), std::string::npos);
  // Stopped: no more captures, whatever the timer says.
  f.s.Poll();
  EXPECT_EQ(b.saved(), saved);
}

// Stopping while a capture is in flight: that capture still goes to the ring of files (it was
// started as an auto capture), and is never opened as a document.
TEST(AutoCaptureBoard, ACaptureInFlightWhenStoppedIsSavedNotOpened) {
  Fixture f;
  ASSERT_TRUE(f.Connect()) << f.emu.proc->log().All() << LogText(f.s);
  AutoCaptureBoard& b = f.s.device().auto_capture();
  b.triggers.every = "100ms";
  b.triggers.game_requests = false;
  b.output = f.dir.Path("b-{n}.xrpm");
  b.keep = 0;
  ASSERT_TRUE(f.s.device().StartAutoCapture()) << LogText(f.s);
  ASSERT_TRUE(PollUntil(f.s, [&] { return b.awaiting(); })) << LogText(f.s);
  const uint64_t done = b.saved() + b.failed();
  f.s.device().StopAutoCapture();
  EXPECT_FALSE(b.active());
  ASSERT_TRUE(PollUntil(f.s, [&] { return !b.awaiting(); })) << LogText(f.s);
  EXPECT_EQ(b.saved() + b.failed(), done + 1) << LogText(f.s);
  EXPECT_TRUE(f.s.documents().docs().empty()) << "auto captures are saved, not opened";
  EXPECT_TRUE(fs::exists(f.dir.Path("b-" + std::to_string(b.saved()) + ".xrpm"))) << LogText(f.s);
}

TEST(AutoCaptureBoard, TheGamesRequestsAndAMarkerRuleWithTheTimelinesFrames) {
  Fixture f;
  ASSERT_TRUE(f.Connect()) << f.emu.proc->log().All() << LogText(f.s);
  AutoCaptureBoard& b = f.s.device().auto_capture();
  b.triggers.on_marker = "Wave *";
  b.output = f.dir.Path("{trigger}-{n}-{marker}.xrpm");
  b.keep = 0;
  ASSERT_TRUE(f.s.device().StartAutoCapture()) << LogText(f.s);
  ASSERT_TRUE(PollUntil(f.s, [&] { return f.s.device().link().client()->frames_status().started; }))
      << "the marker rule started the Timeline's frames: " << LogText(f.s);
  bool marker = false, game = false;
  ASSERT_TRUE(PollUntil(f.s, [&] {
    for (const auto& e : fs::directory_iterator(f.dir.path())) {
      const std::string n = e.path().filename().string();
      marker |= n.rfind("marker-", 0) == 0 && n.find("-Wave_") != std::string::npos;
      game |= n.rfind("game-", 0) == 0 && n.find("_ended.xrpm") != std::string::npos;
    }
    return marker && game;
  })) << LogText(f.s);
  f.s.device().StopAutoCapture();
}

}  // namespace
}  // namespace xrpm::app
