// MonoFieldsRun: a C# program under xrpm-mono with a RawPeer handshaken for captures with
// fields and values (field_capture.h), decoded with the protocol library alone: the setup the
// Mono fields and AppDomain tests share. The program is started, its `ready` line awaited on
// stderr (30 s), then the peer connects and shakes hands.
//
// Thread-safety: one test thread drives each MonoFieldsRun.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "field_capture.h"
#include "mono_process.h"
#include "raw_peer.h"

namespace xrpm::testing {

struct MonoFieldsRun {
  MonoFieldsRun(const std::vector<std::string>& launcher_args, const std::string& exe,
                const std::vector<std::string>& args, const std::string& ready);
  // A capture with fields and values into *c; false with error set (and the program's log).
  bool Capture(FieldCapture* c, uint32_t timeout_ms = 120000);

  MonoRun run;
  std::unique_ptr<RawPeer> peer;
  wire::Welcome welcome;
  std::string error;  // empty while all went well
};

}  // namespace xrpm::testing
