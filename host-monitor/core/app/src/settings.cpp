#include "xrpm/app/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xrpm/model/atomic_file.h"

namespace xrpm::app {

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

void Settings::AddRecent(const std::string& path) {
  RemoveRecent(path);
  recent_files.insert(recent_files.begin(), path);
  if (recent_files.size() > kMaxRecent) recent_files.resize(kMaxRecent);
}

void Settings::RemoveRecent(const std::string& path) {
  std::erase(recent_files, path);
}

std::string ConfigDir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/xrpm";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/xrpm";
  return ".xrpm";
}

namespace {
template <class T>
void Get(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  try {
    out = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    // A badly typed field keeps its default; the rest of the file still applies.
  }
}
}  // namespace

Settings LoadSettings(const std::string& path, std::string* problem) {
  Settings s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return s;
  std::stringstream buf;
  buf << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(buf.str(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    if (problem) *problem = path + ": not a JSON object; using default settings";
    return s;
  }
  Get(j, "host", s.host);
  Get(j, "port", s.port);
  if (s.port <= 0 || s.port > 65535) s.port = Settings{}.port;
  Get(j, "emulator_scenario", s.emulator_scenario);
  Get(j, "emulator_path", s.emulator_path);
  Get(j, "emulator_snapshot_walk", s.emulator_snapshot_walk);
  Get(j, "runtime_allocations", s.runtime_allocations);
  Get(j, "mono_options", s.mono_options);
  Get(j, "recent_files", s.recent_files);
  if (s.recent_files.size() > Settings::kMaxRecent) s.recent_files.resize(Settings::kMaxRecent);
  Get(j, "last_dir", s.last_dir);
  Get(j, "window_width", s.window_width);
  Get(j, "window_height", s.window_height);
  s.window_width = std::clamp(s.window_width, 640, 16384);
  s.window_height = std::clamp(s.window_height, 400, 16384);
  Get(j, "font_size", s.font_size);
  s.font_size = std::clamp(s.font_size, 10.f, 32.f);
  Get(j, "sidebar_width", s.sidebar_width);
  s.sidebar_width = std::clamp(s.sidebar_width, 200.f, 1200.f);
  Get(j, "counters_live", s.counters_live);
  Get(j, "counter_history_seconds", s.counter_history_seconds);
  s.counter_history_seconds = std::clamp(s.counter_history_seconds, 10, 3600);
  return s;
}

void SaveSettings(const Settings& s, const std::string& path) {
  nlohmann::json j = {
      {"host", s.host},
      {"port", s.port},
      {"emulator_scenario", s.emulator_scenario},
      {"emulator_path", s.emulator_path},
      {"emulator_snapshot_walk", s.emulator_snapshot_walk},
      {"runtime_allocations", s.runtime_allocations},
      {"mono_options", s.mono_options},
      {"recent_files", s.recent_files},
      {"last_dir", s.last_dir},
      {"window_width", s.window_width},
      {"window_height", s.window_height},
      {"font_size", s.font_size},
      {"sidebar_width", s.sidebar_width},
      {"counters_live", s.counters_live},
      {"counter_history_seconds", s.counter_history_seconds},
  };
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  AtomicFile f(path);
  f.Write(j.dump(2) + "\n");
  f.Commit();
}

}  // namespace xrpm::app
