// The monitor remembers Mono's own options for "Launch under Mono" between runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "xrpm/app/settings.h"

namespace xrpm::app {
namespace {

TEST(MonoOptionsSetting, RoundTripsAndDefaultsToNone) {
  const std::string dir =
      ::testing::TempDir() + "/xrpm_mono_options_setting_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(Settings{}.mono_options, "");
  Settings s;
  s.mono_options = "--debug --gc-params=nursery-size=64m";
  SaveSettings(s, dir + "/settings.json");
  EXPECT_EQ(LoadSettings(dir + "/settings.json").mono_options, s.mono_options);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xrpm::app
