// libFuzzer target: the diagnostics IPC response parser (ParseResponse, what xrpm-dotnet --attach
// reads from a runtime's socket) and the attach client data parser (ParseClientData, what the
// profiler reads inside the attached process), and the diagnostics socket's file name and a
// /proc/PID/stat text (xrpm/protocol/dotnet_diagnostic_socket.h), on arbitrary bytes.
//
// Per input, beyond "no crash, hang, leak or sanitizer report":
//   1. a response is complete only when the input holds the whole message its header sizes, and
//      a prefix of a complete or incomplete response is never bad; a bad one comes with an
//      error naming the byte and what was expected;
//   3. a socket name that parses names its key as written (unless written with leading zeros);
//   2. accepted client data formats (FormatClientData) to bytes that parse back to the same
//      fields; rejected data comes with an error saying what was expected.
//
// Thread-safety: libFuzzer calls it from one thread.
#include <cstdint>
#include <string>

#include "diagnostics_ipc.h"
#include "fuzz_check.h"
#include "xrpm/protocol/dotnet_diagnostic_socket.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xrpm::dotnet::ipc;
  Response r;
  std::string error;
  size_t need = 0;
  const ParseStatus s = ParseResponse(data, size, &r, &error, &need);
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (s == ParseStatus::kBad) {
    XRPM_FUZZ_CHECK(error.find("byte ") == 0 && error.find("expected") != std::string::npos, error);
  } else {
    if (s == ParseStatus::kComplete) {
      XRPM_FUZZ_CHECK(size >= need && need >= kHeaderBytes + 4, text);
      XRPM_FUZZ_CHECK(r.ok == (data[17] == kResponseOk), text);
    }
    // Every prefix is incomplete, never bad.
    for (size_t n = 0; n < size && n < need; n += 1 + n / 4) {
      Response p;
      std::string e;
      XRPM_FUZZ_CHECK(ParseResponse(data, n, &p, &e) == ParseStatus::kIncomplete, text);
    }
  }
  xrpm::protocol::DiagnosticSocketName name;
  if (xrpm::protocol::ParseDiagnosticSocketName(text, &name)) {
    XRPM_FUZZ_CHECK(name.pid > 0 || text.find("diagnostic-0") != std::string::npos, text);
    XRPM_FUZZ_CHECK(text.find("-" + std::to_string(name.key) + "-socket") != std::string::npos ||
                        text.find("-0") != std::string::npos,
                    text);
  }
  (void)xrpm::protocol::StartKeyFromStat(text);
  AttachClientData c;
  if (!ParseClientData(data, size, &c, &error)) {
    XRPM_FUZZ_CHECK(error.find("expected") != std::string::npos, error);
    return 0;
  }
  const std::string again = FormatClientData(c);
  AttachClientData back;
  XRPM_FUZZ_CHECK(
      ParseClientData(reinterpret_cast<const uint8_t*>(again.data()), again.size(), &back, &error),
      again + ": " + error);
  XRPM_FUZZ_CHECK(back.options == c.options && back.token == c.token && back.status == c.status,
                  again);
  return 0;
}
