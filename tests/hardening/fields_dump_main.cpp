// xrpm_fields_dump: captures with fields (and values) from the agent at --connect and prints the
// capture's canonical text (field_capture.h CanonicalText): layouts, roots with their labels,
// and per object its values, string text and the field of each reference. The big-endian check
// (scripts/big_endian.sh) diffs it between an x86-64 and an s390x emulator. Not a test.
//
// With --measure it prints, instead, for today's capture (no fields), --no-values and values,
// taken one after the other on one connection, the agent's figures from CaptureEnd (wire bytes,
// pause, agent peak) and the ratios the targets bound (docs/PERFORMANCE.md, Mono port).
//
// Usage: xrpm_fields_dump --connect 127.0.0.1:PORT [--no-values] [--cap N] [--timeout-ms N]
//                         [--measure]
// Exit status: 0 printed, 1 the capture failed (reason on stderr), 2 bad usage.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "field_capture.h"

int main(int argc, char** argv) {
  using namespace xrpm::testing;
  std::string endpoint;
  bool values = true, measure = false;
  uint32_t cap = 0, timeout_ms = 60000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--connect" && i + 1 < argc) {
      endpoint = argv[++i];
    } else if (a == "--measure") {
      measure = true;
    } else if (a == "--no-values") {
      values = false;
    } else if (a == "--cap" && i + 1 < argc) {
      cap = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--timeout-ms" && i + 1 < argc) {
      timeout_ms = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr,
                   "usage: xrpm_fields_dump --connect 127.0.0.1:PORT [--no-values] "
                   "[--cap N] [--timeout-ms N]\n");
      return 2;
    }
  }
  const size_t colon = endpoint.rfind(':');
  if (endpoint.rfind("127.0.0.1:", 0) != 0 || colon == std::string::npos) {
    std::fprintf(stderr, "xrpm_fields_dump: --connect 127.0.0.1:PORT is required\n");
    return 2;
  }
  const auto port = static_cast<uint16_t>(std::strtoul(endpoint.c_str() + colon + 1, nullptr, 10));
  auto peer = RawPeer::Connect(port, timeout_ms);
  FieldCapture c;
  xrpm::wire::Welcome welcome;
  std::string error;
  if (measure) {
    if (!peer || !HandshakeFields(*peer, &welcome, &error)) {
      std::fprintf(stderr, "xrpm_fields_dump: %s\n", peer ? error.c_str() : "cannot connect");
      return 1;
    }
    FieldCapture m[3];
    const char* names[3] = {"today (no fields)", "--no-values", "values"};
    for (int i = 0; i < 3; ++i) {
      if (!CaptureFields(*peer, welcome, i == 2, cap, &m[i], &error, timeout_ms, i > 0)) {
        std::fprintf(stderr, "xrpm_fields_dump: %s: %s\n", names[i], error.c_str());
        return 1;
      }
      const xrpm::wire::CaptureEnd& e = m[i].end;
      std::printf(
          "%-18s objects %llu refs %llu  wire %llu B (%.2f B/object)  pause %.1f ms  "
          "agent peak %.2f MiB  dropped %llu\n",
          names[i], (unsigned long long)e.object_count(), (unsigned long long)e.ref_count(),
          (unsigned long long)e.wire_bytes(), double(e.wire_bytes()) / double(e.object_count()),
          e.pause_us() / 1000.0, e.agent_peak_bytes() / 1048576.0,
          (unsigned long long)e.fields_dropped());
    }
    const double t = double(m[0].end.wire_bytes()), f = double(m[1].end.wire_bytes()),
                 v = double(m[2].end.wire_bytes());
    std::printf(
        "values/no-values %.3fx  no-values/today %.3fx  field identity %.3f B/ref  "
        "pause values/no-values %.2fx\n",
        v / f, f / t, (f - t) / double(m[1].end.ref_count()),
        double(m[2].end.pause_us()) / double(m[1].end.pause_us()));
    peer->DisconnectNow();
    return 0;
  }
  if (!peer || !HandshakeFields(*peer, &welcome, &error) ||
      !CaptureFields(*peer, welcome, values, cap, &c, &error, timeout_ms)) {
    std::fprintf(stderr, "xrpm_fields_dump: %s\n", peer ? error.c_str() : "cannot connect");
    return 1;
  }
  peer->DisconnectNow();  // the agent serves the next host at once
  const std::string text = CanonicalText(c);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
