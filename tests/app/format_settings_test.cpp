#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "xrpm/app/settings.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {
namespace {

TEST(HumanFormat, BytesCountsAndDurations) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(45ull << 20), "45.0 MiB");
  EXPECT_EQ(FormatBytes(300ull << 30), "300 GiB");
  EXPECT_EQ(FormatSignedBytes(-2048), "-2.00 KiB");
  EXPECT_EQ(FormatSignedBytes(10), "+10 B");
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(12345678), "12,345,678");
  EXPECT_EQ(FormatSignedCount(-1234), "-1,234");
  EXPECT_EQ(FormatShortCount(1'500'000), "1.50 M");
  EXPECT_EQ(FormatDuration(0.25), "250 ms");
  EXPECT_EQ(FormatDuration(125), "2 m 05 s");
  EXPECT_EQ(FormatDuration(0.00045), "450 \u00b5s");
  EXPECT_EQ(FormatDuration(7384), "2 h 03 m");
  EXPECT_EQ(FormatPercent(0.1234), "12.3%");
  EXPECT_EQ(FormatHex(0x1ce056), "0x1ce056");
  EXPECT_EQ(FormatHex(0), "0x0");
  EXPECT_EQ(FormatHex(0x1ce056, 16), "0x00000000001ce056");
  EXPECT_EQ(FormatHex(~uint64_t{0}, 16), "0xffffffffffffffff");
  EXPECT_EQ(FormatHexDigits(0x1ce056), "1ce056");
}

class SettingsTest : public ::testing::Test {
 protected:
  std::string dir = ::testing::TempDir() + "/xrpm_settings_test_" + std::to_string(getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name();
  void SetUp() override { std::filesystem::remove_all(dir); }
};

TEST_F(SettingsTest, RoundTripsAndKeepsRecentFilesUniqueAndBounded) {
  Settings s;
  s.host = "10.0.0.2";
  s.port = 4600;
  s.token = "secret";
  for (int i = 0; i < 15; ++i) s.AddRecent("/f" + std::to_string(i));
  s.AddRecent("/f3");  // moves to the front
  EXPECT_EQ(s.recent_files.size(), Settings::kMaxRecent);
  EXPECT_EQ(s.recent_files.front(), "/f3");
  SaveSettings(s, dir + "/sub/settings.json");
  Settings r = LoadSettings(dir + "/sub/settings.json");
  EXPECT_EQ(r.host, "10.0.0.2");
  EXPECT_EQ(r.port, 4600);
  EXPECT_EQ(r.token, "");  // secrets are not written
  EXPECT_EQ(r.recent_files, s.recent_files);
}

TEST_F(SettingsTest, BadFilesGiveDefaultsWithAReason) {
  std::filesystem::create_directories(dir);
  { std::ofstream(dir + "/a.json") << "{not json"; }
  std::string problem;
  Settings s = LoadSettings(dir + "/a.json", &problem);
  EXPECT_EQ(s.port, Settings{}.port);
  EXPECT_NE(problem.find("a.json"), std::string::npos);
  {
    std::ofstream(dir + "/b.json")
        << R"({"port": "x", "host": "h", "window_width": 5, "font_size": 99})";
  }
  problem.clear();
  s = LoadSettings(dir + "/b.json", &problem);
  EXPECT_TRUE(problem.empty());
  EXPECT_EQ(s.port, Settings{}.port);  // badly typed: default
  EXPECT_EQ(s.host, "h");              // the rest applies
  EXPECT_EQ(s.window_width, 640);      // clamped
  EXPECT_EQ(s.font_size, 32.f);
  s = LoadSettings(dir + "/missing.json", &problem);
  EXPECT_EQ(s.host, Settings{}.host);
}

TEST(ConfigDir, FollowsXdgConfigHome) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", "/tmp/xdgtest", 1);
  EXPECT_EQ(ConfigDir(), "/tmp/xdgtest/xrpm");
  if (old)
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
}

}  // namespace
}  // namespace xrpm::app
