// The Mono profiler module's entry point: mono_profiler_init_xrpm parses the options, creates
// the MonoPort, wires Mono's profiler callbacks to it (profiler_callbacks.h) and starts the
// device agent, which prints "xrpm-agent: listening on ADDR:PORT" as it does in the emulator.
//
// Bad options or an agent that cannot listen end the process with exit code 2 before the
// program runs (never a program silently running without its agent). When the launcher passed
// a status descriptor (XRPM_MONO_STATUS_FD), one line tells it the outcome.
//
// The module is not linked against libmono-2.0: its mono_* symbols bind to the mono executable
// that loaded it (Debian's /usr/bin/mono-sgen links the runtime statically).
//
// Thread-safety: init runs once on Mono's main thread before any managed code.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agent_startup.h"
#include "game_api.h"
#include "mono_port.h"
#include "profiler_callbacks.h"
#include "profiler_options.h"
#include "xrpm/agent/agent.h"

namespace {

// One agent per process; never destroyed (Mono may call late).
xrpm::mono::MonoPort* g_port = nullptr;
xrpm::agent::Agent* g_agent = nullptr;

void WriteStatus(const std::string& line) {
  xrpm::launch::WriteAgentStatus(xrpm::mono::kStatusFdEnv, line);
}

[[noreturn]] void FailStartup(const std::string& why) {
  xrpm::launch::FailAgentStartup(xrpm::mono::kStatusFdEnv, why);
}

// The program's file name from the process's command line (the first *.exe or *.dll argument).
std::string AppName() {
  const std::string name =
      xrpm::launch::FirstFileWithExtension(xrpm::launch::ProcessArguments(), {".exe", ".dll"});
  return name.empty() ? "mono" : name;
}

// Before the runtime tears down what a capture would walk.
void StopAgent() {
  if (g_agent) g_agent->Stop();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void mono_profiler_init_xrpm(const char* desc) {
  xrpm::mono::ProfilerOptions opts;
  std::string error;
  if (!xrpm::mono::ParseProfilerOptions(desc ? desc : "xrpm", &opts, &error)) FailStartup(error);

  xrpm::agent::AgentOptions agent_opts;
  agent_opts.address = opts.address;
  agent_opts.announce = opts.announce;
  agent_opts.port = opts.port;
  if (const char* token = std::getenv(xrpm::mono::kTokenEnv)) {
    agent_opts.token = token;
    unsetenv(xrpm::mono::kTokenEnv);  // the program need not see it
  }
  if (opts.quiet) agent_opts.log = [](const std::string&) {};

  xrpm::mono::FrameMethod frame;
  if (!xrpm::mono::ParseFrameMethod(opts.frame, &frame, &error)) FailStartup(error);
  xrpm::mono::AnnounceGameApi();  // Xrpm.dll's calls (game_api.h), before any thread starts
  g_port = new xrpm::mono::MonoPort(AppName(), frame, &xrpm::mono::SetReporting, opts.allocations,
                                    opts.sample_bytes, opts.frame_window_ms, opts.walk);
  g_port->set_log(agent_opts.log);
  xrpm::mono::InstallProfiler(g_port, frame, opts.allocations, &StopAgent);

  g_agent = new xrpm::agent::Agent(*g_port, std::move(agent_opts));
  if (!g_agent->Start(&error)) FailStartup("device agent: " + error);
  WriteStatus("ok " + opts.address + ":" + std::to_string(g_agent->port()));
}
