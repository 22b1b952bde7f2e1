#include "mono_process.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>

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
  const std::string line = proc->log().WaitFor("listening on 127.0.0.1:", 30000);
  if (line.empty()) return;
  endpoint = line.substr(line.find("127.0.0.1:"));
  endpoint = endpoint.substr(0, endpoint.find(' '));
  port = static_cast<uint16_t>(std::atoi(endpoint.substr(endpoint.find(':') + 1).c_str()));
}

std::unique_ptr<client::HostClient> ConnectTo(const std::string& endpoint,
                                              const std::string& token) {
  client::ClientOptions o;
  o.endpoint = endpoint;
  o.token = token;
  auto c = std::make_unique<client::HostClient>(o);
  c->Connect();
  std::string error;
  if (!c->WaitConnected(10000, &error)) {
    ADD_FAILURE() << "cannot connect to " << endpoint << ": " << error;
    return nullptr;
  }
  return c;
}

}  // namespace xrpm::testing
