// The monitor remembers the runtime launchers' settings between runs: Mono's own options for
// "Launch under Mono" and whether launched and attached programs report allocation samples.
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

TEST(MonoOptionsSetting, AllocationSamplesRoundTripAndDefaultToOff) {
  const std::string dir =
      ::testing::TempDir() + "/xrpm_runtime_allocations_setting_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(Settings{}.runtime_allocations);
  Settings s;
  s.runtime_allocations = true;
  SaveSettings(s, dir + "/settings.json");
  EXPECT_TRUE(LoadSettings(dir + "/settings.json").runtime_allocations);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xrpm::app
