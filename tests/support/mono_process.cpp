#include "mono_process.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "test_util.h"

namespace xrpm::testing {

std::string MonoMissing() {
#ifndef XRPM_MONO_LAUNCHER
  return "the Mono port is not built in this configuration (sanitizer and fuzz builds leave it "
         "out; otherwise Mono is missing: sudo apt-get install mono-runtime libmono-2.0-dev "
         "mono-mcs, then rebuild)";
#else
  if (access("/usr/bin/mono", X_OK) != 0)
    return "mono is not installed (sudo apt-get install mono-runtime)";
  return "";
#endif
}

std::string MonoLauncher() {
#ifdef XRPM_MONO_LAUNCHER
  return XRPM_MONO_LAUNCHER;
#else
  return "";
#endif
}

std::string MonoProgram(const std::string& exe) {
#ifdef XRPM_MONO_PROGRAMS_DIR
  return std::string(XRPM_MONO_PROGRAMS_DIR) + "/" + exe;
#else
  return exe;
#endif
}

MonoRun::MonoRun(const std::vector<std::string>& launcher_args, const std::string& exe,
                 const std::vector<std::string>& args) {
  std::vector<std::string> argv = {MonoLauncher(), "--port", "0"};
  argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
  argv.push_back("--");
  argv.push_back(MonoProgram(exe));
  argv.insert(argv.end(), args.begin(), args.end());
  proc = std::make_unique<BackgroundProcess>(argv);
  endpoint = WaitForAgentEndpoint(*proc, 30000);
  if (endpoint.empty()) return;
  port = static_cast<uint16_t>(std::atoi(endpoint.substr(endpoint.find(':') + 1).c_str()));
}

RunResult RunLauncher(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {MonoLauncher()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 60000);
}

std::string WaitForEndpoint(BackgroundProcess& p) {
  const std::string line = p.log().WaitFor("listening on 127.0.0.1:", 30000);
  if (line.empty()) return "";
  std::string endpoint = line.substr(line.find("127.0.0.1:"));
  return endpoint.substr(0, endpoint.find(' '));
}

std::unique_ptr<client::HostClient> ConnectTo(const std::string& endpoint,
                                              const std::string& token) {
  client::ClientOptions o;
  o.endpoint = endpoint;
  o.token = token;
  o.connect_timeout_ms = 30000;  // a loaded machine may take seconds; only failures wait
  auto c = std::make_unique<client::HostClient>(o);
  c->Connect();
  std::string error;
  if (!c->WaitConnected(o.connect_timeout_ms + 1000, &error)) {
    ADD_FAILURE() << "cannot connect to " << endpoint << ": " << error;
    return nullptr;
  }
  return c;
}

client::CaptureResult CaptureAtOrAfterFrame(client::HostClient& c, uint64_t frame) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    client::CaptureResult r = CaptureOnce(c, 120000);
    if (!r.ok) return r;
    if (!r.snapshot->has_origins()) {
      r.ok = false;
      r.error = "the capture carries no allocation origins (no capture frame)";
      return r;
    }
    const uint64_t at = r.snapshot->origins->capture_frame;
    if (at >= frame) return r;
    if (std::chrono::steady_clock::now() > deadline) {
      r.ok = false;
      r.error = "the program did not reach frame " + std::to_string(frame) +
                " within 60 s (last capture at frame " + std::to_string(at) + ")";
      return r;
    }
    c.WaitCounterSamples(c.counters().received() + 5, 30000);
  }
}

std::shared_ptr<const Snapshot> CaptureFrom(const std::string& endpoint, BackgroundProcess& proc) {
  auto c = ConnectTo(endpoint);
  if (!c) return nullptr;
  const client::CaptureResult r = CaptureOnce(*c, 120000);
  EXPECT_TRUE(r.ok) << r.error << "\n" << proc.log().All();
  return r.ok ? r.snapshot : nullptr;
}

}  // namespace xrpm::testing
