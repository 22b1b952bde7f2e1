// Sidebar: the connection (host, port, token, Connect / Disconnect, Launch emulator with a
// scenario, a C# game under Mono or .NET, attach to a running .NET process), the device and app
// it reached, the devices announcing themselves on the network (one click connects), and the
// Capture heap button with its progress and the game's measured pause. Everything is the
// session's DeviceLink and discovery state in plain words.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/app/dotnet_processes.h"
#include "xrpm/model/human_format.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {
constexpr const char* kScenarios[] = {"bubbles", "leak", "synthetic"};

ImVec4 PhaseColour(DeviceLink::Phase p) {
  switch (p) {
    case DeviceLink::Phase::kConnected:
      return kGood;
    case DeviceLink::Phase::kConnecting:
    case DeviceLink::Phase::kStartingEmulator:
      return kWarn;
    case DeviceLink::Phase::kFailed:
      return kBad;
    default:
      return kMuted;
  }
}

// `clock_ms`: the device's clock now (HostClient::DeviceClockMs), its uptime.
void DeviceTable(const client::DeviceInfo& d, uint64_t clock_ms) {
  if (!ImGui::BeginTable("device", 2, ImGuiTableFlags_SizingFixedFit)) return;
  auto row = [](const char* k, const std::string& v) {
    if (v.empty()) return;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    TextMuted(k);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(v.c_str());
  };
  row("App", d.app_name);
  row("Runtime", d.runtime_name + (d.runtime_version.empty() ? "" : " " + d.runtime_version));
  row("Platform",
      d.platform + (d.pointer_bytes ? ", " + std::to_string(d.pointer_bytes * 8) + "-bit" : ""));
  row("AppDomains", d.app_domain_count ? std::to_string(d.app_domain_count) : "");
  row("Agent", d.agent_name + " (protocol " + std::to_string(d.protocol_version) + ")");
  row("Up for", clock_ms ? FormatDuration(double(clock_ms) / 1000.0) : "");
  ImGui::EndTable();
}

// Devices that announce themselves (agents started with --announce), each with a Connect button.
// Nothing connects until the user clicks; a device that requires a token asks for it first.
void DiscoveredSection(App& app, char* token, size_t token_size) {
  AppSession& ses = app.session();
  static client::DiscoveredDevice asking;  // the device whose token prompt is open
  static bool ask_open = false;
  ses.device().StartDiscovery();
  const auto devices = ses.device().DiscoveredDevices();
  SectionTitle("ON THE NETWORK");
  if (!ses.device().discovery_error().empty()) {
    ImGui::PushTextWrapPos(0);
    TextMuted("Discovery is off: " + ses.device().discovery_error());
    ImGui::PopTextWrapPos();
  } else if (devices.empty()) {
    ImGui::PushTextWrapPos(0);
    TextMuted("No devices announcing themselves (start an agent with --announce).");
    ImGui::PopTextWrapPos();
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Button("Connect")) {
      if (d.beacon.token_required && token[0] == 0) {
        asking = d;
        ask_open = true;
        ImGui::OpenPopup("Token");
      } else {
        ses.device().ConnectDiscovered(
            d, d.beacon.token_required ? std::string(token) : std::string());
      }
    }
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(d.beacon.app.c_str());
    TextMuted(d.endpoint() + (d.beacon.token_required ? "  ·  token required" : ""));
    ImGui::EndGroup();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s\n%s\n%s, protocol %u", d.beacon.platform.c_str(),
                        d.beacon.runtime.c_str(), d.beacon.agent.c_str(),
                        d.beacon.protocol_version);
    if (ImGui::BeginPopupModal("Token", &ask_open, ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::Text("%s at %s requires a token.", asking.beacon.app.c_str(),
                  asking.endpoint().c_str());
      ImGui::SetNextItemWidth(240);
      if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
      const bool enter = ImGui::InputTextWithHint(
          "##asktoken", "token", token, token_size,
          ImGuiInputTextFlags_Password | ImGuiInputTextFlags_EnterReturnsTrue);
      if ((ImGui::Button("Connect") || enter) && token[0] != 0) {
        ses.device().ConnectDiscovered(asking, token);
        ask_open = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Cancel")) {
        ask_open = false;
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
    ImGui::PopID();
  }
}

void CaptureSection(App& app) {
  AppSession& ses = app.session();
  DeviceLink& link = ses.device().link();
  SectionTitle("CAPTURE");
  const bool connected = link.phase() == DeviceLink::Phase::kConnected;
  if (link.capturing()) {
    const client::CaptureProgress p = link.capture_progress();
    const double mb = double(p.heap_bytes) / (1024.0 * 1024.0);
    const double rate = p.elapsed_s > 0 ? double(p.objects) / p.elapsed_s : 0;
    const float frac =
        p.expected_heap_bytes ? float(double(p.heap_bytes) / double(p.expected_heap_bytes)) : -1.f;
    const float shown = frac >= 0 ? frac : 0.5f + 0.5f * std::sin(float(ImGui::GetTime()) * 3.f);
    const std::string overlay = p.phase == client::CapturePhase::kRequested
                                    ? std::string("stopping the game...")
                                    : FormatShortCount(double(p.objects)) + " objects";
    ImGui::ProgressBar(shown, ImVec2(-70, 0), overlay.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ses.device().CancelCapture();
    char line[128];
    std::snprintf(line, sizeof line, "%.1f MiB  ·  %s objects/s  ·  %s", mb,
                  FormatShortCount(rate).c_str(), FormatDuration(p.elapsed_s).c_str());
    TextMuted(line);
  } else {
    ImGui::BeginDisabled(!connected);
    if (ImGui::Button("Capture heap", ImVec2(-1, 0))) {
      if (ses.device().Capture()) app.SetView(View::kSummary);
    }
    ImGui::EndDisabled();
    bool values = link.capture_values();
    if (ImGui::Checkbox("Values (field values, string text)", &values))
      link.set_capture_values(values);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Off: the smallest capture, with type layouts and the field of each "
          "reference but without field values, string text or array lengths.");
    if (!connected) TextMuted("Connect to a device to capture its heap.");
  }
  if (const auto& last = link.last_capture(); last && !link.capturing()) {
    ImGui::PushTextWrapPos(0);
    TextMuted("Last capture: " + FormatCount(last->objects) + " objects, " +
              FormatBytes(last->heap_bytes) + " in " + FormatDuration(last->elapsed_s) + ".");
    TextColored(double(last->pause_us) / 1000.0 > 100 ? kWarn : kGood, link.last_pause_text());
    ImGui::PopTextWrapPos();
  }
}

// A text field over a std::string (ImGui keeps its own edit state while the field is active).
bool EditString(const char* label, const char* hint, std::string& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", s.c_str());
  if (!ImGui::InputTextWithHint(label, hint, buf, sizeof buf)) return false;
  s = buf;
  return true;
}

// Auto capture (auto_capture_board.h): the rules of `xrpm capture --every/--on-*` over this
// connection; the fields are edited while it is off.
void AutoCaptureSection(App& app) {
  AppSession& ses = app.session();
  AutoCaptureBoard& b = ses.device().auto_capture();
  SectionTitle("AUTO CAPTURE");
  if (b.active()) {
    ImGui::PushTextWrapPos(0);
    TextColored(kGood, "On: " + b.Describe());
    TextMuted(FormatCount(b.saved()) + " saved" +
              (b.failed() ? ", " + FormatCount(b.failed()) + " failed" : std::string()) +
              (b.last_file().empty() ? std::string() : "; last: " + b.last_file()));
    ImGui::PopTextWrapPos();
    if (ImGui::Button("Stop auto capture", ImVec2(-1, 0))) ses.device().StopAutoCapture();
    return;
  }
  ImGui::PushItemWidth(-110);
  EditString("Every", "10s, 2m, 1h", b.triggers.every);
  EditString("On growth", "64MB (in use after GC)", b.triggers.on_growth);
  EditString("On GC pause", "ms (e.g. 16)", b.triggers.on_gc_pause);
  EditString("On marker", "text, * matches any", b.triggers.on_marker);
  EditString("Files", "auto-{n}-{marker}.xrpm", b.output);
  int keep = static_cast<int>(b.keep);
  if (ImGui::InputInt("Keep newest", &keep)) b.keep = static_cast<uint32_t>(std::max(0, keep));
  ImGui::PopItemWidth();
  ImGui::Checkbox("When the game asks (RequestCapture)", &b.triggers.game_requests);
  const bool connected = ses.device().link().phase() == DeviceLink::Phase::kConnected;
  ImGui::BeginDisabled(!connected);
  if (ImGui::Button("Start auto capture", ImVec2(-1, 0))) ses.device().StartAutoCapture();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "Captures whenever a rule fires, saved under Files ({n}, {marker}, "
        "{trigger}); the oldest beyond Keep newest are removed (0: keep all).");
}

// Attach to a .NET process: the local .NET processes (found by their diagnostics sockets,
// xrpm/app/dotnet_processes.h), one to pick, and Attach (xrpm-dotnet --attach).
void DotnetAttachSection(App& app) {
  static std::vector<xrpm::app::DotnetProcess> processes;
  static bool listed = false;
  static pid_t picked = 0;
  if (!ImGui::CollapsingHeader("Attach to a .NET process")) return;
  if (!listed || ImGui::Button("Refresh", ImVec2(-1, 0))) {
    processes = xrpm::app::ListDotnetProcesses(xrpm::app::DefaultSocketDirs());
    listed = true;
  }
  if (processes.empty())
    ImGui::TextDisabled("No running .NET process (none with a diagnostics socket).");
  for (const xrpm::app::DotnetProcess& p : processes) {
    const std::string label = std::to_string(p.pid) + "  " + p.name;
    if (ImGui::Selectable(label.c_str(), picked == p.pid)) picked = p.pid;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.socket.c_str());
  }
  ImGui::BeginDisabled(picked == 0);
  if (ImGui::Button("Attach", ImVec2(-1, 0))) {
    if (app.session().device().AttachDotnet(picked)) app.SetView(View::kCounters);
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "Loads the device agent into the picked process (xrpm-dotnet --attach); "
        "the process keeps running when you disconnect");
}

}  // namespace

void DrawConnectionView(App& app) {
  AppSession& ses = app.session();
  Settings& set = ses.settings();
  DeviceLink& link = ses.device().link();
  SectionTitle("CONNECTION");

  static char host[128] = {}, token[128] = {};
  static bool init = false;
  if (!init) {
    std::snprintf(host, sizeof host, "%s", set.host.c_str());
    std::snprintf(token, sizeof token, "%s", set.token.c_str());
    init = true;
  }
  const bool busy = link.phase() == DeviceLink::Phase::kConnecting ||
                    link.phase() == DeviceLink::Phase::kStartingEmulator;
  const bool connected = link.phase() == DeviceLink::Phase::kConnected;
  ImGui::BeginDisabled(busy || connected);
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.62f);
  if (ImGui::InputTextWithHint("##host", "host", host, sizeof host)) set.host = host;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  ImGui::InputInt("##port", &set.port, 0);
  set.port = std::clamp(set.port, 1, 65535);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputTextWithHint("##token", "token (LAN only)", token, sizeof token,
                               ImGuiInputTextFlags_Password))
    set.token = token;
  ImGui::EndDisabled();

  const std::string endpoint = set.host + ":" + std::to_string(set.port);
  if (connected || busy) {
    if (ImGui::Button(link.emulator_running() ? "Disconnect and stop emulator" : "Disconnect",
                      ImVec2(-1, 0)))
      ses.device().Disconnect();
  } else {
    if (ImGui::Button("Connect", ImVec2(90, 0))) ses.device().Connect(endpoint, set.token);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 130);
    if (ImGui::BeginCombo("##scenario", set.emulator_scenario.c_str())) {
      for (const char* s : kScenarios)
        if (ImGui::Selectable(s, set.emulator_scenario == s)) set.emulator_scenario = s;
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Emulator scenario");
    ImGui::SameLine();
    if (ImGui::Button("Launch emulator", ImVec2(-1, 0))) {
      if (ses.device().LaunchEmulator(set.emulator_scenario)) app.SetView(View::kCounters);
    }
    ImGui::Checkbox("Emulator walks a snapshot", &set.emulator_snapshot_walk);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "The launched emulator's captures walk a copy-on-write copy of its process: the game\n"
          "pauses for the collection only and plays on while the walk is sent (xrpm-emulator\n"
          "--walk snapshot). Off: the game stays stopped for the walk, as on the device.");
    static char mono_options[256] = {};
    static bool mono_init = false;
    if (!mono_init) {
      std::snprintf(mono_options, sizeof mono_options, "%s", set.mono_options.c_str());
      mono_init = true;
    }
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputTextWithHint("##monooptions", "Mono options (e.g. --debug)", mono_options,
                                 sizeof mono_options))
      set.mono_options = mono_options;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Options for Mono itself when a program runs under Mono, separated by "
          "spaces (xrpm-mono --mono-option=OPT each)");
    ImGui::Checkbox("Allocation samples (Mono, .NET)", &set.runtime_allocations);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Programs launched under Mono or .NET, and .NET processes attached, report allocation\n"
          "samples with their stacks: the Allocations view and each frame's allocations\n"
          "(--allocations). Mono then reports every allocation (slower allocation); .NET 10\n"
          "samples one allocation per 100 KiB (an attach needs .NET 10: older runtimes refuse "
          "it).");
    if (ImGui::Button("Launch C# sample game under Mono", ImVec2(-1, 0))) {
      if (ses.device().LaunchMono("")) app.SetView(View::kCounters);
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("XnaBubbles.exe with the device agent inside Mono (xrpm-mono)");
    if (ImGui::Button("Launch C# sample game under .NET", ImVec2(-1, 0))) {
      if (ses.device().LaunchDotnet("")) app.SetView(View::kCounters);
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "XnaBubbles.dll with the device agent inside CoreCLR (xrpm-dotnet): counters, "
          "captures at the frame boundary, frames on the Timeline");
    DotnetAttachSection(app);
  }

  // State in plain words.
  ImGui::PushTextWrapPos(0);
  TextColored(PhaseColour(link.phase()), "\u25cf");
  ImGui::SameLine();
  ImGui::TextUnformatted(link.status_text().empty() ? "Not connected."
                                                    : link.status_text().c_str());
  if (!link.error().empty()) TextColored(kBad, link.error());
  ImGui::PopTextWrapPos();
  if (connected && link.client())
    DeviceTable(link.client()->device(), link.client()->DeviceClockMs());
  if (!connected && !busy) DiscoveredSection(app, token, sizeof token);

  CaptureSection(app);
  AutoCaptureSection(app);
}

}  // namespace xrpm::gui
