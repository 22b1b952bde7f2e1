// PlayedScenario: an emulator runtime that played a fixed number of frames of a scenario on the
// test thread (so every capture of it sees one heap), served by an agent on 127.0.0.1, and a
// capture of it through the host's own client (HostClient -> CaptureAssembler -> Snapshot).
//
// Thread-safety: none (one test at a time).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "test_util.h"
#include "xrpm/client/host_client.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::testing {

struct PlayedScenario {
  emulator::Runtime rt{emulator::RuntimeConfig{.heap_reserve_bytes = 256u << 20}};
  std::unique_ptr<emulator::Scenario> scenario;
  emulator::GameLoop loop;
  LogSink log;
  std::unique_ptr<agent::Agent> agent;

  PlayedScenario(emulator::ScenarioParams p, uint64_t frames)
      : scenario(emulator::MakeScenario(p)), loop(rt, *scenario, emulator::LoopConfig{0, frames}) {
    loop.Setup();
    loop.RunHere();
    agent = StartAgent(rt, log);
  }

  // A capture through the host's client, with or without values; nullopt and *error on failure.
  std::optional<Snapshot> HostCapture(bool values, std::string* error) {
    client::ClientOptions o;
    o.endpoint = Endpoint(*agent);
    client::HostClient c(o);
    if (!Connected(c)) return *error = "cannot connect", std::nullopt;
    if (!c.StartCapture(error, {.values = values})) return std::nullopt;
    client::CaptureResult r;
    if (!c.WaitCapture(60000, &r) || !r.ok) return *error = r.error, std::nullopt;
    return std::move(*r.snapshot);
  }
};

}  // namespace xrpm::testing
