// Shared by the verbs that talk to a device agent (`xrpm capture`, `xrpm counters`): the
// --connect/--token/--connect-timeout/--peer-timeout options and connecting with a clear error.
//
// Thread-safety: none needed (CLI main thread).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "xrpm/client/host_client.h"

namespace xrpm::cli {

struct ConnectOptions {
  std::string endpoint;          // --connect HOST:PORT
  std::string token;             // --token T
  double connect_timeout_s = 5;  // --connect-timeout S
  double peer_timeout_s = 5;     // --peer-timeout S: a silent agent is declared gone after this
};
void AddConnectOptions(CLI::App& cmd, ConnectOptions& o);

// Connects and completes the handshake. Throws InputError("cannot connect to ...: why").
std::unique_ptr<client::HostClient> ConnectForCli(const ConnectOptions& o,
                                                  size_t counter_history = 3000);

// True when stderr is a terminal (progress output is only drawn there).
bool StderrIsTerminal();

}  // namespace xrpm::cli
