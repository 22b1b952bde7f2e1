#include "shared/connect.h"

#include <unistd.h>

#include <cstdio>

#include "xrpm/model/diagnostics.h"

namespace xrpm::cli {

void AddConnectOptions(CLI::App& cmd, ConnectOptions& o) {
  cmd.add_option("--connect", o.endpoint, "Device agent address HOST:PORT (port 4510 by default)")
      ->required();
  cmd.add_option("--token", o.token, "Token the agent was started with (required off loopback)");
  cmd.add_option("--connect-timeout", o.connect_timeout_s, "Seconds to wait for the handshake")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--peer-timeout", o.peer_timeout_s,
                 "Seconds of silence before the agent is declared gone (raise it on lossy links)")
      ->check(CLI::Range(0.5, 600.0))
      ->capture_default_str();
}

std::unique_ptr<client::HostClient> ConnectForCli(const ConnectOptions& o, size_t counter_history) {
  client::ClientOptions co;
  co.endpoint = o.endpoint;
  co.token = o.token;
  co.connect_timeout_ms = static_cast<uint32_t>(o.connect_timeout_s * 1000);
  co.peer_timeout_ms = static_cast<uint32_t>(o.peer_timeout_s * 1000);
  co.counter_history = counter_history;
  auto c = std::make_unique<client::HostClient>(co);
  c->Connect();
  std::string error;
  if (!c->WaitConnected(co.connect_timeout_ms + 1000, &error))
    throw InputError(Diagnostic{o.endpoint, 0, "connect", "cannot connect: " + error});
  return c;
}

bool StderrIsTerminal() {
  return isatty(fileno(stderr)) != 0;
}

}  // namespace xrpm::cli
